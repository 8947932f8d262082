import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON API of the video library under /api/v1 (documented in Resources/openapi/videos.json).
struct VideoAPIRoutes: Sendable {
    let videos: VideoService
    let bodyLimit: Int
    let quota: StorageQuota

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get("videos") { request, context in
            let user = context.user
            let query = try VideoQueryParser.parse(request.uri.formQuery)
            return JSONBody(try await videos.store.list(userID: user.id, query: query).map { Self.response($0, context.language) })
        }
        // The body is the file itself (not multipart), streamed to disk; the JSON body limit does not apply.
        api.post("videos") { request, context in
            let user = context.user
            let name = request.uri.formQuery.get("filename") ?? request.headers[.fileName]?.removingPercentEncoding
            let length = request.headers[.contentLength].flatMap { Int64($0) }
            // Checked before the body is read: a declared length that does not fit is refused at once.
            let left = try await quota.remaining(userID: user.id, declaredLength: length)
            let item = try await videos.upload(userID: user.id, fileName: name, expectedLength: length, body: request.body,
                                               quota: left.map { ($0, quota.limit ?? $0) }, now: context.now)
            return JSONBody(Self.response(item, context.language), status: .created)
        }
        api.get("videos/continue-watching") { _, context in
            let user = context.user
            return JSONBody(try await videos.continueWatching(userID: user.id).map { Self.response($0, context.language) })
        }
        api.get("videos/history") { _, context in
            let user = context.user
            return JSONBody(try await videos.store.history(userID: user.id).map { Self.response($0, context.language) })
        }
        api.delete("videos/history") { _, context in
            let user = context.user
            try await videos.store.clearHistory(userID: user.id)
            return Response(status: .noContent)
        }
        api.post("videos/library/scan") { _, context in
            _ = try context.requireAdmin()
            return JSONBody(try await videos.scanLibrary(now: context.now))
        }
        api.get("videos/:id") { _, context in
            let user = context.user
            return JSONBody(Self.response(try await videos.item(userID: user.id, videoID: try context.parameters.require("id")), context.language))
        }
        api.patch("videos/:id") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(UpdateVideoRequest.self, limit: bodyLimit)
            let item = try await videos.update(userID: user.id, videoID: try context.parameters.require("id"), body)
            return JSONBody(Self.response(item, context.language))
        }
        api.delete("videos/:id") { _, context in
            let user = context.user
            try await videos.delete(userID: user.id, videoID: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        // HEAD answers the same headers without a body (the body is a lazy stream, so nothing is read).
        for method in [HTTPRequest.Method.get, .head] {
            api.on("videos/:id/stream", method: method) { request, context in
                let user = context.user
                let response = try await videos.streamResponse(userID: user.id, videoID: try context.parameters.require("id"),
                                                               request: request, context: context.base)
                return method == .head ? Response(status: response.status, headers: response.headers, body: .init()) : response
            }
        }
        api.get("videos/:id/thumbnail") { _, context in
            let user = context.user
            return try await videos.thumbnailResponse(userID: user.id, videoID: try context.parameters.require("id"), context: context.base)
        }
        api.get("videos/:id/captions") { _, context in
            let user = context.user
            return try await videos.captionsResponse(userID: user.id, videoID: try context.parameters.require("id"), context: context.base)
        }
        api.put("videos/:id/captions") { request, context in
            let user = context.user
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: 1_048_576)
            } catch is NIOTooManyBytesError {
                throw VideoError.invalidCaptions
            }
            try await videos.setCaptions(userID: user.id, videoID: try context.parameters.require("id"), text: String(buffer: buffer))
            return Response(status: .noContent)
        }
        api.put("videos/:id/progress") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(ProgressRequest.self, limit: bodyLimit)
            let item = try await videos.saveProgress(userID: user.id, videoID: try context.parameters.require("id"),
                                                     position: body.positionSeconds, ended: body.ended ?? false, now: context.now)
            return JSONBody(Self.response(item, context.language))
        }
        api.post("videos/:id/plays") { _, context in
            let user = context.user
            let item = try await videos.startPlay(userID: user.id, videoID: try context.parameters.require("id"), now: context.now)
            return JSONBody(Self.response(item, context.language))
        }
        api.post("videos/:id/hide") { _, context in
            let user = context.user
            let item = try await videos.hideFromContinue(userID: user.id, videoID: try context.parameters.require("id"))
            return JSONBody(Self.response(item, context.language))
        }

        api.get("playlists") { _, context in
            let user = context.user
            return JSONBody(try await videos.store.playlists(userID: user.id).map(Self.response))
        }
        api.post("playlists") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(PlaylistNameRequest.self, limit: bodyLimit)
            return JSONBody(Self.response(try await videos.createPlaylist(userID: user.id, name: body.name, now: context.now)), status: .created)
        }
        api.get("playlists/:id") { _, context in
            let user = context.user
            return JSONBody(Self.response(try await videos.playlist(userID: user.id, id: try context.parameters.require("id"))))
        }
        api.patch("playlists/:id") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(PlaylistNameRequest.self, limit: bodyLimit)
            return JSONBody(Self.response(try await videos.renamePlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                          name: body.name, now: context.now)))
        }
        api.delete("playlists/:id") { _, context in
            let user = context.user
            try await videos.deletePlaylist(userID: user.id, id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        api.post("playlists/:id/items") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(PlaylistItemRequest.self, limit: bodyLimit)
            return JSONBody(Self.response(try await videos.addToPlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                         videoID: body.videoId, now: context.now)))
        }
        api.delete("playlists/:id/items/:videoId") { _, context in
            let user = context.user
            return JSONBody(Self.response(try await videos.removeFromPlaylist(
                userID: user.id, id: try context.parameters.require("id"), videoID: try context.parameters.require("videoId"), now: context.now)))
        }
        api.put("playlists/:id/order") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(PlaylistOrderRequest.self, limit: bodyLimit)
            return JSONBody(Self.response(try await videos.reorderPlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                           order: body.videoIds, now: context.now)))
        }
    }

    static func response(_ item: VideoItem, _ language: Language) -> VideoResponse {
        let video = item.video
        let playability = item.playability
        let base = "/api/v1/videos/\(video.id)"
        return VideoResponse(
            id: video.id, source: video.source, title: item.title, fileName: video.originalName, sizeBytes: video.sizeBytes,
            durationSeconds: video.media.durationSeconds, container: video.media.container, videoCodec: video.media.videoCodec,
            audioCodec: video.media.audioCodec, width: video.media.width, height: video.media.height,
            playable: playability.isPlayable, playabilityNote: playability.note(language),
            hasThumbnail: video.hasThumbnail, hasCaptions: video.hasCaptions, favorite: item.data.favorite, rating: item.data.rating,
            tags: item.data.tags, lastPlayedAt: item.data.lastPlayedAt, positionSeconds: item.data.positionSeconds,
            resumeAtSeconds: item.resumeAt, playCount: item.data.playCount, played: item.data.played,
            hiddenFromContinueWatching: item.data.hiddenFromContinue, streamURL: base + "/stream",
            thumbnailURL: video.hasThumbnail ? base + "/thumbnail" : nil, captionsURL: video.hasCaptions ? base + "/captions" : nil,
            createdAt: video.createdAt)
    }

    static func response(_ playlist: Playlist) -> PlaylistResponse {
        PlaylistResponse(id: playlist.id, name: playlist.name, videoIds: playlist.videoIDs, createdAt: playlist.createdAt,
                         updatedAt: playlist.updatedAt)
    }
}

/// Search and filter parameters shared by the page and the API: q, tag, favorite, min_rating.
enum VideoQueryParser {
    static func parse(_ parameters: Parameters) throws -> VideoQuery {
        var query = VideoQuery()
        query.text = VideoRules.cleanSearch(parameters.get("q"))
        query.tag = VideoRules.cleanSearch(parameters.get("tag")).map { String($0.prefix(40)) }
        if let favorite = parameters.get("favorite"), !favorite.isEmpty {
            guard ["true", "false", "1", "0", "on"].contains(favorite.lowercased()) else {
                throw RequestError.invalidField("favorite", Text(en: "must be true or false", ja: "true か false にしてください"))
            }
            query.favoritesOnly = ["true", "1", "on"].contains(favorite.lowercased())
        }
        if let raw = parameters.get("min_rating"), !raw.isEmpty {
            guard let rating = Int(raw), (1...5).contains(rating) else {
                throw RequestError.invalidField("min_rating", Text(en: "must be 1 to 5", ja: "1〜5 にしてください"))
            }
            query.minimumRating = rating
        }
        return query
    }
}
