import Foundation
import HTTPTypes
import Hummingbird

/// Pages of the video library, plus the media URLs the pages use (stream, thumbnail, captions).
struct VideoWebRoutes: Sendable {
    let videos: VideoService

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(VideoPaths.library), use: libraryPage)
        router.post(RouterPath(VideoPaths.scan), use: scan)
        router.get(RouterPath(VideoPaths.history), use: historyPage)
        router.post(RouterPath(VideoPaths.clearHistory), use: clearHistory)

        router.get(RouterPath(VideoPaths.playlists), use: playlistsPage)
        router.post(RouterPath(VideoPaths.playlists), use: createPlaylist)
        router.get(RouterPath(VideoPaths.playlist(":id")), use: playlistPage)
        router.post(RouterPath(VideoPaths.renamePlaylist(":id")), use: renamePlaylist)
        router.post(RouterPath(VideoPaths.deletePlaylist(":id")), use: deletePlaylist)
        router.post(RouterPath(VideoPaths.playlistItem(":id", video: ":videoId", action: ":action")), use: changePlaylistItem)

        router.get(RouterPath(VideoPaths.video(":id")), use: playerPage)
        router.post(RouterPath(VideoPaths.video(":id")), use: update)
        router.post(RouterPath(VideoPaths.addToPlaylists(":id")), use: addToPlaylist)
        router.post(RouterPath(VideoPaths.hide(":id")), use: hideFromContinue)
        router.post(RouterPath(VideoPaths.delete(":id")), use: delete)
        router.get(RouterPath(VideoPaths.stream(":id")), use: stream)
        router.head(RouterPath(VideoPaths.stream(":id")), use: streamHead)
        router.get(RouterPath(VideoPaths.thumbnail(":id")), use: thumbnail)
        router.get(RouterPath(VideoPaths.captions(":id")), use: captions)
    }

    @Sendable func libraryPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var notice: (String, Layout.NoticeKind)?
        if let scanned = request.uri.formQuery.get("scanned") {
            let counts = scanned.split(separator: "-").map(String.init)
            if counts.count == 3 { notice = (VideoStrings.scanned(context.language, counts), .success) }
        }
        if request.uri.formQuery.get("deleted") != nil { notice = (VideoStrings.deleted(context.language), .success) }
        let query = (try? VideoQueryParser.parse(request.uri.formQuery)) ?? VideoQuery()
        let model = VideoViews.LibraryModel(
            items: try await videos.store.list(userID: user.id, query: query),
            continueWatching: query == VideoQuery() ? try await videos.continueWatching(userID: user.id) : [],
            query: query, tags: try await videos.store.tags(userID: user.id), isAdmin: user.isAdmin, hasLibrary: videos.hasLibrary,
            maxUploadMB: videos.maxUploadBytes / 1_048_576, notice: notice)
        return HTMLPage(VideoViews.library(context: context.base, model: model))
    }

    @Sendable func scan(_ request: Request, context: SignedInContext) async throws -> Response {
        _ = try context.requireAdmin()
        let result = try await videos.scanLibrary(now: context.now)
        return Response.redirect(to: VideoPaths.library + "?scanned=\(result.added)-\(result.updated)-\(result.removed)", type: .normal)
    }

    @Sendable func historyPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let notice = request.uri.formQuery.get("cleared") != nil ? VideoStrings.historyCleared(context.language) : nil
        return HTMLPage(VideoViews.history(context: context.base, items: try await videos.store.history(userID: user.id), notice: notice))
    }

    @Sendable func clearHistory(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.store.clearHistory(userID: user.id)
        return Response.redirect(to: VideoPaths.history + "?cleared=1", type: .normal)
    }

    @Sendable func playlistsPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(VideoViews.playlists(context: context.base, playlists: try await videos.store.playlists(userID: user.id)))
    }

    @Sendable func createPlaylist(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            let playlist = try await videos.createPlaylist(userID: user.id, name: form["name"] ?? "", now: context.now)
            return Response.redirect(to: VideoPaths.playlist(playlist.id), type: .normal)
        } catch let error as VideoError {
            return try HTMLPage(VideoViews.playlists(context: context.base, playlists: try await videos.store.playlists(userID: user.id),
                                                     error: error.message(context.language)), status: error.status)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func playlistPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let playlist = try await videos.playlist(userID: user.id, id: try context.parameters.require("id"))
        return HTMLPage(VideoViews.playlist(context: context.base, playlist: playlist,
                                            items: try await videos.playlistItems(userID: user.id, playlist: playlist)))
    }

    @Sendable func renamePlaylist(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let form = try await request.form()
        do {
            _ = try await videos.renamePlaylist(userID: user.id, id: id, name: form["name"] ?? "", now: context.now)
            return Response.redirect(to: VideoPaths.playlist(id), type: .normal)
        } catch let error as VideoError where error != .playlistNotFound {
            let playlist = try await videos.playlist(userID: user.id, id: id)
            return try HTMLPage(VideoViews.playlist(context: context.base, playlist: playlist,
                                                    items: try await videos.playlistItems(userID: user.id, playlist: playlist),
                                                    error: error.message(context.language)), status: error.status)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func deletePlaylist(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.deletePlaylist(userID: user.id, id: try context.parameters.require("id"))
        return Response.redirect(to: VideoPaths.playlists, type: .normal)
    }

    @Sendable func changePlaylistItem(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        let videoID = try context.parameters.require("videoId")
        switch try context.parameters.require("action") {
        case "up": _ = try await videos.movePlaylistItem(userID: user.id, id: id, videoID: videoID, offset: -1, now: context.now)
        case "down": _ = try await videos.movePlaylistItem(userID: user.id, id: id, videoID: videoID, offset: 1, now: context.now)
        case "remove": _ = try await videos.removeFromPlaylist(userID: user.id, id: id, videoID: videoID, now: context.now)
        default: throw RequestError.notFound
        }
        return Response.redirect(to: VideoPaths.playlist(id), type: .normal)
    }

    @Sendable func playerPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let item = try await videos.item(userID: user.id, videoID: try context.parameters.require("id"))
        let playlists = try await videos.store.playlists(userID: user.id)
        var current: Playlist?
        var next: VideoItem?
        if let playlistID = request.uri.formQuery.get("playlist"), let playlist = playlists.first(where: { $0.id == playlistID }) {
            current = playlist
            let items = try await videos.playlistItems(userID: user.id, playlist: playlist)
            if let index = items.firstIndex(where: { $0.video.id == item.video.id }), index + 1 < items.count { next = items[index + 1] }
        }
        let notice: (String, Layout.NoticeKind)? = request.uri.formQuery.get("saved") != nil ? (VideoStrings.saved(context.language), .success)
            : request.uri.formQuery.get("added") != nil ? (VideoStrings.added(context.language), .success) : nil
        return HTMLPage(VideoViews.player(context: context.base, model: .init(
            item: item, playlists: playlists,
            memberOf: try await videos.store.playlistIDs(containing: item.video.id, userID: user.id),
            playlist: current, next: next, notice: notice)))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let form = try await request.form()
        let rating = (form["rating"] ?? "").isEmpty ? nil : Int(form["rating"] ?? "")
        if !(form["rating"] ?? "").isEmpty && rating == nil { throw VideoError.invalidRating }
        _ = try await videos.update(userID: user.id, videoID: id, UpdateVideoRequest(
            title: .some(form["title"]), favorite: form.bool("favorite"), rating: .some(rating),
            tags: try VideoRules.parseTagField(form["tags"] ?? ""), played: form.bool("played")))
        return Response.redirect(to: VideoPaths.video(id) + "?saved=1", type: .normal)
    }

    @Sendable func addToPlaylist(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let form = try await request.form()
        _ = try await videos.addToPlaylist(userID: user.id, id: try form.required("playlist_id"), videoID: id, now: context.now)
        return Response.redirect(to: VideoPaths.video(id) + "?added=1", type: .normal)
    }

    @Sendable func hideFromContinue(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        _ = try await videos.hideFromContinue(userID: user.id, videoID: id)
        let back = request.headers[.referer].flatMap { URL(string: $0)?.path } ?? VideoPaths.library
        return Response.redirect(to: back.hasPrefix(VideoPaths.library) ? back : VideoPaths.library, type: .normal)
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await videos.delete(userID: user.id, videoID: try context.parameters.require("id"))
        return Response.redirect(to: VideoPaths.library + "?deleted=1", type: .normal)
    }

    @Sendable func stream(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        return try await videos.streamResponse(userID: user.id, videoID: try context.parameters.require("id"), request: request, context: context.base)
    }

    /// HEAD answers the same headers without a body (the body is a lazy stream, so nothing is read).
    @Sendable func streamHead(_ request: Request, context: SignedInContext) async throws -> Response {
        let response = try await stream(request, context: context)
        return Response(status: response.status, headers: response.headers, body: .init())
    }

    @Sendable func thumbnail(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        return try await videos.thumbnailResponse(userID: user.id, videoID: try context.parameters.require("id"), context: context.base)
    }

    @Sendable func captions(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        return try await videos.captionsResponse(userID: user.id, videoID: try context.parameters.require("id"), context: context.base)
    }
}
