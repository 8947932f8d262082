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
        api.get(RouterPath(VideoAPIPaths.videos), use: list)
        api.post(RouterPath(VideoAPIPaths.videos), use: upload)
        api.get(RouterPath(VideoAPIPaths.continueWatching), use: continueWatching)
        api.get(RouterPath(VideoAPIPaths.history), use: history)
        api.delete(RouterPath(VideoAPIPaths.history), use: clearHistory)
        api.post(RouterPath(VideoAPIPaths.scan), use: scan)
        api.get(RouterPath(VideoAPIPaths.video(":id")), use: video)
        api.patch(RouterPath(VideoAPIPaths.video(":id")), use: update)
        api.delete(RouterPath(VideoAPIPaths.video(":id")), use: delete)
        // The same answers as the page's media addresses.
        let media = VideoWebRoutes(videos: videos)
        api.get(RouterPath(VideoAPIPaths.stream(":id")), use: media.stream)
        api.head(RouterPath(VideoAPIPaths.stream(":id")), use: media.streamHead)
        api.get(RouterPath(VideoAPIPaths.thumbnail(":id")), use: media.thumbnail)
        api.get(RouterPath(VideoAPIPaths.captions(":id")), use: media.captions)
        api.put(RouterPath(VideoAPIPaths.captions(":id")), use: setCaptions)
        api.put(RouterPath(VideoAPIPaths.progress(":id")), use: saveProgress)
        api.post(RouterPath(VideoAPIPaths.plays(":id")), use: startPlay)
        api.post(RouterPath(VideoAPIPaths.hide(":id")), use: hideFromContinue)

        api.get(RouterPath(VideoAPIPaths.playlists), use: playlists)
        api.post(RouterPath(VideoAPIPaths.playlists), use: createPlaylist)
        api.get(RouterPath(VideoAPIPaths.playlist(":id")), use: playlist)
        api.patch(RouterPath(VideoAPIPaths.playlist(":id")), use: renamePlaylist)
        api.delete(RouterPath(VideoAPIPaths.playlist(":id")), use: deletePlaylist)
        api.post(RouterPath(VideoAPIPaths.items(":id")), use: addToPlaylist)
        api.delete(RouterPath(VideoAPIPaths.item(":id", video: ":videoId")), use: removeFromPlaylist)
        api.put(RouterPath(VideoAPIPaths.order(":id")), use: reorderPlaylist)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> JSONBody<[VideoResponse]> {
        let user = context.user
        let query = try VideoQueryParser.parse(request.uri.formQuery)
        return JSONBody(try await videos.store.list(userID: user.id, query: query).map { Self.response($0, context.language) })
    }

    /// The body is the file itself (not multipart), streamed to disk; the JSON body limit does not apply.
    @Sendable func upload(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        let name = request.uri.formQuery.get("filename") ?? request.headers[.fileName]?.removingPercentEncoding
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        // Checked before the body is read: a declared length that does not fit is refused at once.
        let left = try await quota.remaining(userID: user.id, declaredLength: length)
        let item = try await videos.upload(userID: user.id, fileName: name, expectedLength: length, body: request.body,
                                           quota: left.map { ($0, quota.limit ?? $0) }, now: context.now)
        return JSONBody(Self.response(item, context.language), status: .created)
    }

    @Sendable func continueWatching(_ request: Request, context: SignedInContext) async throws -> JSONBody<[VideoResponse]> {
        let user = context.user
        return JSONBody(try await videos.continueWatching(userID: user.id).map { Self.response($0, context.language) })
    }

    @Sendable func history(_ request: Request, context: SignedInContext) async throws -> JSONBody<[VideoResponse]> {
        let user = context.user
        return JSONBody(try await videos.store.history(userID: user.id).map { Self.response($0, context.language) })
    }

    @Sendable func clearHistory(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.store.clearHistory(userID: user.id)
        return Response(status: .noContent)
    }

    @Sendable func scan(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        _ = try context.requireAdmin()
        return JSONBody(try await videos.scanLibrary(now: context.now))
    }

    @Sendable func video(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        return JSONBody(Self.response(try await videos.item(userID: user.id, videoID: try context.parameters.require("id")), context.language))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(UpdateVideoRequest.self, limit: bodyLimit)
        let item = try await videos.update(userID: user.id, videoID: try context.parameters.require("id"), body)
        return JSONBody(Self.response(item, context.language))
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.delete(userID: user.id, videoID: try context.parameters.require("id"))
        return Response(status: .noContent)
    }

    @Sendable func setCaptions(_ request: Request, context: SignedInContext) async throws -> Response {
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

    @Sendable func saveProgress(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(ProgressRequest.self, limit: bodyLimit)
        let item = try await videos.saveProgress(userID: user.id, videoID: try context.parameters.require("id"),
                                                 position: body.positionSeconds, ended: body.ended ?? false, now: context.now)
        return JSONBody(Self.response(item, context.language))
    }

    @Sendable func startPlay(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        let item = try await videos.startPlay(userID: user.id, videoID: try context.parameters.require("id"), now: context.now)
        return JSONBody(Self.response(item, context.language))
    }

    @Sendable func hideFromContinue(_ request: Request, context: SignedInContext) async throws -> JSONBody<VideoResponse> {
        let user = context.user
        let item = try await videos.hideFromContinue(userID: user.id, videoID: try context.parameters.require("id"))
        return JSONBody(Self.response(item, context.language))
    }

    @Sendable func playlists(_ request: Request, context: SignedInContext) async throws -> JSONBody<[PlaylistResponse]> {
        let user = context.user
        return JSONBody(try await videos.store.playlists(userID: user.id).map(Self.response))
    }

    @Sendable func createPlaylist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(PlaylistNameRequest.self, limit: bodyLimit)
        return JSONBody(Self.response(try await videos.createPlaylist(userID: user.id, name: body.name, now: context.now)), status: .created)
    }

    @Sendable func playlist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        return JSONBody(Self.response(try await videos.playlist(userID: user.id, id: try context.parameters.require("id"))))
    }

    @Sendable func renamePlaylist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(PlaylistNameRequest.self, limit: bodyLimit)
        return JSONBody(Self.response(try await videos.renamePlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                      name: body.name, now: context.now)))
    }

    @Sendable func deletePlaylist(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.deletePlaylist(userID: user.id, id: try context.parameters.require("id"))
        return Response(status: .noContent)
    }

    @Sendable func addToPlaylist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(PlaylistItemRequest.self, limit: bodyLimit)
        return JSONBody(Self.response(try await videos.addToPlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                     videoID: body.videoId, now: context.now)))
    }

    @Sendable func removeFromPlaylist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        return JSONBody(Self.response(try await videos.removeFromPlaylist(
            userID: user.id, id: try context.parameters.require("id"), videoID: try context.parameters.require("videoId"), now: context.now)))
    }

    @Sendable func reorderPlaylist(_ request: Request, context: SignedInContext) async throws -> JSONBody<PlaylistResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(PlaylistOrderRequest.self, limit: bodyLimit)
        return JSONBody(Self.response(try await videos.reorderPlaylist(userID: user.id, id: try context.parameters.require("id"),
                                                                       order: body.videoIds, now: context.now)))
    }

    static func response(_ item: VideoItem, _ language: Language) -> VideoResponse {
        let video = item.video
        let playability = item.playability
        return VideoResponse(
            id: video.id, source: video.source, title: item.title, fileName: video.originalName, sizeBytes: video.sizeBytes,
            durationSeconds: video.media.durationSeconds, container: video.media.container, videoCodec: video.media.videoCodec,
            audioCodec: video.media.audioCodec, width: video.media.width, height: video.media.height,
            playable: playability.isPlayable, playabilityNote: playability.note(language),
            hasThumbnail: video.hasThumbnail, hasCaptions: video.hasCaptions, favorite: item.data.favorite, rating: item.data.rating,
            tags: item.data.tags, lastPlayedAt: item.data.lastPlayedAt, positionSeconds: item.data.positionSeconds,
            resumeAtSeconds: item.resumeAt, playCount: item.data.playCount, played: item.data.played,
            hiddenFromContinueWatching: item.data.hiddenFromContinue, streamURL: APIPaths.url(VideoAPIPaths.stream(video.id)),
            thumbnailURL: video.hasThumbnail ? APIPaths.url(VideoAPIPaths.thumbnail(video.id)) : nil,
            captionsURL: video.hasCaptions ? APIPaths.url(VideoAPIPaths.captions(video.id)) : nil,
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
