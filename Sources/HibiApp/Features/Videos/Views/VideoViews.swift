import Foundation

/// Pages of the video library. Pure functions of what the routes loaded.
enum VideoViews {
    static func page(_ title: String, context: HibiRequestContext, @NodeBuilder content: () -> [Node]) -> Node {
        Layout.page(title: title, context: context, current: VideoPaths.library) {
            link(.init("rel", "stylesheet"), .href("/static/videos.css"))
            content()
            el("script", .src("/static/videos.js"), .init("defer", nil))
        }
    }

    static func tabs(_ context: HibiRequestContext, current: String) -> Node {
        let l = context.language
        return el("nav", .class("video-tabs section-nav"), .aria("label", CommonStrings.videos(l))) {
            el("ul") {
                for (path, title) in [(VideoPaths.library, VideoStrings.library), (VideoPaths.playlists, VideoStrings.playlists), (VideoPaths.history, VideoStrings.history)] {
                    el("li") { el("a", [.href(path)] + (path == current ? [.aria("current", "page")] : [])) { title(l) } }
                }
            }
        }
    }

    // MARK: library

    struct LibraryModel {
        var items: [VideoItem]
        var continueWatching: [VideoItem]
        var query: VideoQuery
        var tags: [String]
        var isAdmin: Bool
        var hasLibrary: Bool
        var maxUploadMB: Int64
        var notice: (String, Layout.NoticeKind)?
    }

    static func library(context: HibiRequestContext, model: LibraryModel) -> Node {
        let l = context.language
        let filtered = model.query != VideoQuery()
        return page(CommonStrings.videos(l), context: context) {
            el("hgroup") {
                el("h1") { CommonStrings.videos(l) }
                tabs(context, current: VideoPaths.library)
            }
            if let notice = model.notice { Layout.notice(notice.0, kind: notice.1) }
            el("article", .class("card upload-card")) {
                el("h2") { VideoStrings.upload(l) }
                el("form", .id("upload-form"), .action(APIPaths.url(VideoAPIPaths.videos)), .method("post"), .data("max-bytes", String(model.maxUploadMB * 1_048_576)),
                   .data("msg-uploading", VideoStrings.uploading(l)), .data("msg-processing", VideoStrings.processing(l)), .data("msg-done", VideoStrings.uploadDone(l)),
                   .data("msg-failed", VideoStrings.uploadFailed(l)), .data("msg-aborted", VideoStrings.uploadAborted(l)),
                   .data("msg-too-large", VideoError.tooLarge(limitBytes: model.maxUploadMB * 1_048_576).message(l))) {
                    el("div", .class("upload-row")) {
                        el("label", .for("upload-file")) { VideoStrings.chooseFile(l) }
                        input(.type("file"), .id("upload-file"), .name("file"), .init("accept", "video/*,.mkv,.webm,.mp4,.mov,.m4v"), .required)
                        el("button", .type("submit"), .id("upload-button")) { VideoStrings.uploadButton(l) }
                    }
                    el("progress", .id("upload-progress"), .init("max", "100"), .value("0"), .init("hidden", nil)) {}
                    el("p", .id("upload-status"), .class("muted"), .role("status"), .aria("live", "polite")) {
                        VideoStrings.uploadHint(l, String(model.maxUploadMB))
                    }
                    el("noscript") { el("p") { VideoStrings.needsScript(l) } }
                }
                if model.isAdmin && model.hasLibrary {
                    el("form", .method("post"), .action(VideoPaths.scan), .class("inline scan-form")) {
                        Layout.csrfField(context)
                        el("button", .type("submit"), .class("secondary outline"), .id("scan-button")) { VideoStrings.scanLibrary(l) }
                    }
                }
            }
            if !model.continueWatching.isEmpty {
                el("section", .class("continue"), .id("continue-watching")) {
                    el("h2") { VideoStrings.continueWatching(l) }
                    el("div", .class("video-grid")) {
                        for item in model.continueWatching { card(item, context: context, hideButton: true) }
                    }
                }
            }
            el("section", .id("library")) {
                el("form", .method("get"), .action(VideoPaths.library), .class("video-filter"), .role("search"), .id("filter-form")) {
                    Node.void("input", [.type("search"), .name("q"), .value(model.query.text ?? ""), .placeholder(VideoStrings.searchPlaceholder(l)),
                                        .aria("label", VideoStrings.search(l)), .id("filter-q")])
                    el("select", .name("tag"), .aria("label", VideoStrings.tag(l)), .id("filter-tag")) {
                        el("option", .value("")) { VideoStrings.anyTag(l) }
                        for tag in model.tags {
                            el("option", [.value(tag)] + (model.query.tag == tag ? [.selected] : [])) { tag }
                        }
                    }
                    el("select", .name("min_rating"), .aria("label", VideoStrings.minRating(l)), .id("filter-rating")) {
                        el("option", .value("")) { VideoStrings.anyRating(l) }
                        for stars in 1...5 {
                            el("option", [.value(String(stars))] + (model.query.minimumRating == stars ? [.selected] : [])) {
                                VideoStrings.atLeast(l, String(repeating: "★", count: stars))
                            }
                        }
                    }
                    el("label", .class("inline-check")) {
                        input(.type("checkbox"), .name("favorite"), .value("true"), .id("filter-favorite"))
                            .with(model.query.favoritesOnly ? [.checked] : [])
                        VideoStrings.favoritesOnly(l)
                    }
                    el("button", .type("submit")) { VideoStrings.filter(l) }
                    if filtered { el("a", .href(VideoPaths.library), .role("button"), .class("secondary outline")) { VideoStrings.clearFilter(l) } }
                }
                if model.items.isEmpty {
                    el("p", .class("empty-state muted"), .id("no-videos")) { filtered ? VideoStrings.noMatches(l) : VideoStrings.noVideos(l) }
                } else {
                    el("div", .class("video-grid"), .id("video-grid")) {
                        for item in model.items { card(item, context: context, hideButton: false) }
                    }
                }
            }
        }
    }

    static func card(_ item: VideoItem, context: HibiRequestContext, hideButton: Bool) -> Node {
        let l = context.language
        let video = item.video
        return el("article", .class("video-card"), .data("video-id", video.id)) {
            el("a", .href(VideoPaths.video(video.id)), .class("thumb")) {
                if video.hasThumbnail {
                    Node.void("img", [.src(VideoPaths.thumbnail(video.id)), .init("alt", ""), .init("loading", "lazy")])
                } else {
                    el("span", .class("thumb-placeholder"), .aria("hidden", "true")) { "▶" }
                }
                if let duration = video.media.durationSeconds { el("span", .class("duration")) { formatTime(duration) } }
                if let resume = item.resumeAt, let duration = video.media.durationSeconds {
                    el("span", .class("resume-bar"), .aria("hidden", "true")) {
                        el("span", .init("style", "width: \(Int(saturating: (resume / duration * 100).rounded()))%")) {}
                    }
                }
            }
            el("div", .class("video-card-body")) {
                el("a", .href(VideoPaths.video(video.id)), .class("video-title")) { item.title }
                el("p", .class("badges")) {
                    if video.source == .library { el("span", .class("badge")) { VideoStrings.shared(l) } }
                    if item.data.favorite { el("span", .class("badge fav"), .init("title", VideoStrings.favorite(l))) { "♥ " + VideoStrings.favorite(l) } }
                    if let rating = item.data.rating {
                        el("span", .class("badge stars"), .aria("label", "\(VideoStrings.rating(l)) \(rating)/5")) { String(repeating: "★", count: rating) }
                    }
                    if item.data.played { el("span", .class("badge")) { VideoStrings.watched(l) } }
                    if !item.playability.isPlayable { el("span", .class("badge warn")) { "⚠ " + VideoStrings.cannotPlay(l) } }
                    for tag in item.data.tags { el("a", .class("badge tag"), .href(VideoPaths.library(tag: tag))) { "#" + tag } }
                }
                if hideButton {
                    el("form", .method("post"), .action(VideoPaths.hide(video.id)), .class("inline")) {
                        Layout.csrfField(context)
                        el("button", .type("submit"), .class("linklike small"), .init("title", VideoStrings.hideFromContinue(l))) { VideoStrings.hide(l) }
                    }
                }
            }
        }
    }

    // MARK: player

    struct PlayerModel {
        var item: VideoItem
        var playlists: [Playlist]
        var memberOf: Set<String>
        var playlist: Playlist?
        var next: VideoItem?
        var notice: (String, Layout.NoticeKind)?
    }

    static func player(context: HibiRequestContext, model: PlayerModel) -> Node {
        let l = context.language
        let item = model.item
        let video = item.video
        let playability = item.playability
        let ext = (video.filePath as NSString).pathExtension
        var attributes: [Attribute] = [.id("player"), .init("controls", nil), .init("preload", "metadata"), .init("playsinline", nil),
                                       .data("video-id", video.id), .data("position", String(item.data.positionSeconds))]
        if let resume = item.resumeAt { attributes.append(.data("resume", String(resume))) }
        if let next = model.next, let playlist = model.playlist { attributes.append(.data("next", VideoPaths.video(next.video.id, playlist: playlist.id))) }
        if video.hasThumbnail { attributes.append(.init("poster", VideoPaths.thumbnail(video.id))) }
        return page(item.title, context: context) {
            el("hgroup") {
                el("h1", .id("video-title")) { item.title }
                tabs(context, current: "")
            }
            if let notice = model.notice { Layout.notice(notice.0, kind: notice.1) }
            if let note = playability.note(l) { Layout.notice(note, kind: .error) }
            el("div", .class("player-frame")) {
                el("video", attributes) {
                    Node.void("source", [.src(VideoPaths.stream(video.id)), .type(VideoRules.mimeType(forExtension: ext))])
                    if video.hasCaptions {
                        Node.void("track", [.init("kind", "captions"), .src(VideoPaths.captions(video.id)), .init("srclang", l.rawValue),
                                            .init("label", VideoStrings.captions(l)), .init("default", nil)])
                    }
                }
            }
            el("div", .class("player-controls")) {
                el("button", .type("button"), .id("play-toggle"), .data("play", VideoStrings.play(l)), .data("pause", VideoStrings.pause(l))) { VideoStrings.play(l) }
                el("button", .type("button"), .id("restart"), .class("secondary")) { VideoStrings.restart(l) }
                el("span", .id("player-status"), .class("muted"), .role("status"), .aria("live", "polite")) {
                    if let resume = item.resumeAt { VideoStrings.resumeFrom(l, formatTime(resume)) }
                }
            }
            if let playlist = model.playlist {
                el("p", .class("playlist-next"), .id("playlist-next")) {
                    if let next = model.next {
                        VideoStrings.nextInPlaylist(l, playlist.name) + " "
                        el("a", .href(VideoPaths.video(next.video.id, playlist: playlist.id))) { next.title }
                    } else {
                        VideoStrings.playlistEnd(l, playlist.name)
                    }
                }
            }
            el("details", .class("shortcuts")) {
                el("summary") { VideoStrings.shortcuts(l) }
                el("dl") {
                    for (keys, meaning) in VideoStrings.shortcutList {
                        el("dt") { el("kbd") { keys } }
                        el("dd") { meaning(l) }
                    }
                }
            }
            el("div", .class("grid player-panels")) {
                el("article", .class("card")) {
                    el("h2") { VideoStrings.details(l) }
                    el("form", .method("post"), .action(VideoPaths.video(video.id)), .id("meta-form")) {
                        Layout.csrfField(context)
                        Layout.field(label: VideoStrings.title(l), id: "title", .name("title"), .value(item.data.title ?? ""),
                                     .placeholder(VideoRules.defaultTitle(fileName: video.originalName)), .maxlength(200))
                        Layout.field(label: VideoStrings.tags(l), id: "tags", .name("tags"), .value(item.data.tags.joined(separator: ", ")))
                        el("label", .for("rating")) {
                            VideoStrings.rating(l)
                            el("select", .name("rating"), .id("rating")) {
                                el("option", .value("")) { VideoStrings.noRating(l) }
                                for stars in 1...5 {
                                    el("option", [.value(String(stars))] + (item.data.rating == stars ? [.selected] : [])) {
                                        String(repeating: "★", count: stars) + String(repeating: "☆", count: 5 - stars)
                                    }
                                }
                            }
                        }
                        el("label", .class("inline-check")) {
                            input(.type("checkbox"), .name("favorite"), .value("true"), .id("favorite")).with(item.data.favorite ? [.checked] : [])
                            VideoStrings.favorite(l)
                        }
                        el("label", .class("inline-check")) {
                            input(.type("checkbox"), .name("played"), .value("true"), .id("played")).with(item.data.played ? [.checked] : [])
                            VideoStrings.markWatched(l)
                        }
                        el("button", .type("submit")) { CommonStrings.save(l) }
                    }
                }
                el("article", .class("card")) {
                    el("h2") { VideoStrings.addToPlaylist(l) }
                    let available = model.playlists.filter { !model.memberOf.contains($0.id) }
                    if model.playlists.isEmpty {
                        el("p", .class("muted")) { VideoStrings.noPlaylistsYet(l) + " " }
                        el("a", .href(VideoPaths.playlists)) { VideoStrings.createPlaylistFirst(l) }
                    } else if !available.isEmpty {
                        el("form", .method("post"), .action(VideoPaths.addToPlaylists(video.id)), .id("add-to-playlist")) {
                            Layout.csrfField(context)
                            el("select", .name("playlist_id"), .id("playlist-select"), .aria("label", VideoStrings.playlists(l))) {
                                for playlist in available { el("option", .value(playlist.id)) { playlist.name } }
                            }
                            el("button", .type("submit")) { VideoStrings.add(l) }
                        }
                    }
                    let member = model.playlists.filter { model.memberOf.contains($0.id) }
                    if !member.isEmpty {
                        el("p", .id("member-of")) {
                            VideoStrings.inPlaylists(l) + " "
                            for (index, playlist) in member.enumerated() {
                                if index > 0 { ", " }
                                el("a", .href(VideoPaths.playlist(playlist.id))) { playlist.name }
                            }
                        }
                    }
                    el("h2") { VideoStrings.about(l) }
                    el("dl", .class("facts")) {
                        el("dt") { VideoStrings.fileName(l) }
                        el("dd") { video.originalName }
                        el("dt") { VideoStrings.size(l) }
                        el("dd") { formatSize(video.sizeBytes) }
                        if let duration = video.media.durationSeconds {
                            el("dt") { VideoStrings.length(l) }
                            el("dd", .id("video-length")) { formatTime(duration) }
                        }
                        el("dt") { VideoStrings.codecs(l) }
                        el("dd") {
                            ([video.media.container.map(MediaNames.container)] + [video.media.videoCodec, video.media.audioCodec].map { $0.map(MediaNames.codec) })
                                .compactMap { $0 }.joined(separator: " · ")
                        }
                        if let width = video.media.width, let height = video.media.height {
                            el("dt") { VideoStrings.resolution(l) }
                            el("dd") { "\(width)×\(height)" }
                        }
                        el("dt") { VideoStrings.playCount(l) }
                        el("dd", .id("play-count")) { String(item.data.playCount) }
                        el("dt") { VideoStrings.lastPlayed(l) }
                        el("dd") { item.data.lastPlayedAt.map { formatDate($0, context) } ?? VideoStrings.neverPlayed(l) }
                    }
                    if item.resumeAt != nil && !item.data.hiddenFromContinue {
                        el("form", .method("post"), .action(VideoPaths.hide(video.id)), .class("inline")) {
                            Layout.csrfField(context)
                            el("button", .type("submit"), .class("secondary outline")) { VideoStrings.hideFromContinue(l) }
                        }
                    }
                    if video.source == .upload {
                        el("form", .method("post"), .action(VideoPaths.delete(video.id)), .class("inline"), .data("confirm", VideoStrings.confirmDelete(l))) {
                            Layout.csrfField(context)
                            el("button", .type("submit"), .class("secondary outline danger"), .id("delete-video")) { VideoStrings.deleteVideo(l) }
                        }
                    }
                }
            }
        }
    }

    // MARK: history

    static func history(context: HibiRequestContext, items: [VideoItem], notice: String?) -> Node {
        let l = context.language
        return page(VideoStrings.history(l), context: context) {
            el("hgroup") {
                el("h1") { VideoStrings.history(l) }
                tabs(context, current: VideoPaths.history)
            }
            if let notice { Layout.notice(notice, kind: .success) }
            el("p", .class("muted")) { VideoStrings.historyIntro(l) }
            if items.isEmpty {
                el("p", .class("empty-state muted"), .id("history-empty")) { VideoStrings.historyEmpty(l) }
            } else {
                el("ol", .class("history-list"), .id("history")) {
                    for item in items {
                        el("li") {
                            el("a", .href(VideoPaths.video(item.video.id))) { item.title }
                            el("small", .class("muted")) {
                                " · " + (item.data.lastPlayedAt.map { formatDate($0, context) } ?? "")
                                if let duration = item.video.media.durationSeconds {
                                    " · \(formatTime(item.data.positionSeconds)) / \(formatTime(duration))"
                                }
                            }
                        }
                    }
                }
                el("form", .method("post"), .action(VideoPaths.clearHistory), .data("confirm", VideoStrings.confirmClearHistory(l))) {
                    Layout.csrfField(context)
                    el("button", .type("submit"), .class("secondary outline"), .id("clear-history")) { VideoStrings.clearHistory(l) }
                }
            }
        }
    }

    // MARK: playlists

    static func playlists(context: HibiRequestContext, playlists: [Playlist], error: String? = nil) -> Node {
        let l = context.language
        return page(VideoStrings.playlists(l), context: context) {
            el("hgroup") {
                el("h1") { VideoStrings.playlists(l) }
                tabs(context, current: VideoPaths.playlists)
            }
            if let error { Layout.notice(error, kind: .error) }
            el("form", .method("post"), .action(VideoPaths.playlists), .id("new-playlist"), .class("inline-form")) {
                Layout.csrfField(context)
                el("label", .for("playlist-name")) { VideoStrings.name(l) }
                input(.type("text"), .name("name"), .id("playlist-name"), .placeholder(VideoStrings.newPlaylist(l)), .aria("label", VideoStrings.newPlaylist(l)), .required, .maxlength(100))
                el("button", .type("submit")) { VideoStrings.create(l) }
            }
            if playlists.isEmpty {
                el("p", .class("empty-state muted")) { VideoStrings.noPlaylistsYet(l) }
            } else {
                el("ul", .class("playlist-list"), .id("playlists")) {
                    for playlist in playlists {
                        el("li") {
                            el("a", .href(VideoPaths.playlist(playlist.id))) { playlist.name }
                            el("small", .class("muted")) { " · " + VideoStrings.videosCount(l, playlist.videoIDs.count) }
                        }
                    }
                }
            }
        }
    }

    static func playlist(context: HibiRequestContext, playlist: Playlist, items: [VideoItem], error: String? = nil) -> Node {
        let l = context.language
        return page(playlist.name, context: context) {
            el("hgroup") {
                el("h1", .id("playlist-title")) { playlist.name }
                tabs(context, current: "")
            }
            if let error { Layout.notice(error, kind: .error) }
            if let first = items.first {
                el("a", .href(VideoPaths.video(first.video.id, playlist: playlist.id, autoplay: true)), .role("button"), .id("play-all")) { "▶ " + VideoStrings.playAll(l) }
            }
            if items.isEmpty {
                el("p", .class("empty-state muted")) { VideoStrings.playlistEmpty(l) }
            } else {
                el("ol", .class("playlist-items"), .id("playlist-items")) {
                    for (index, item) in items.enumerated() {
                        el("li", .data("video-id", item.video.id)) {
                            el("a", .href(VideoPaths.video(item.video.id, playlist: playlist.id)), .class("item-title")) { item.title }
                            el("span", .class("item-actions")) {
                                for (label, action, enabled) in [(VideoStrings.moveUp(l), "up", index > 0), (VideoStrings.moveDown(l), "down", index < items.count - 1)] {
                                    el("form", .method("post"), .action(VideoPaths.playlistItem(playlist.id, video: item.video.id, action: action)), .class("inline")) {
                                        Layout.csrfField(context)
                                        el("button", ([.type("submit"), .class("secondary outline small"), .aria("label", "\(label): \(item.title)")] as [Attribute])
                                           + (enabled ? [] : [Attribute.disabled])) { action == "up" ? "↑" : "↓" }
                                    }
                                }
                                el("form", .method("post"), .action(VideoPaths.playlistItem(playlist.id, video: item.video.id, action: "remove")), .class("inline")) {
                                    Layout.csrfField(context)
                                    el("button", .type("submit"), .class("secondary outline small"), .aria("label", "\(VideoStrings.remove(l)): \(item.title)")) { VideoStrings.remove(l) }
                                }
                            }
                        }
                    }
                }
            }
            el("div", .class("grid")) {
                el("form", .method("post"), .action(VideoPaths.renamePlaylist(playlist.id)), .id("rename-playlist"), .class("inline-form")) {
                    Layout.csrfField(context)
                    el("label", .for("rename-name"), .class("visually-hidden")) { VideoStrings.name(l) }
                    input(.type("text"), .name("name"), .id("rename-name"), .value(playlist.name), .required, .maxlength(100))
                    el("button", .type("submit"), .class("secondary")) { VideoStrings.rename(l) }
                }
                el("form", .method("post"), .action(VideoPaths.deletePlaylist(playlist.id)), .data("confirm", VideoStrings.confirmDeletePlaylist(l))) {
                    Layout.csrfField(context)
                    el("button", .type("submit"), .class("secondary outline danger"), .id("delete-playlist")) { VideoStrings.deletePlaylist(l) }
                }
            }
        }
    }

    // MARK: formatting

    static func formatTime(_ seconds: Double) -> String {
        let total = Int(saturating: seconds.rounded(.down))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    static func formatSize(_ bytes: Int64) -> String {
        bytes >= 1_073_741_824 ? String(format: "%.1f GB", Double(bytes) / 1_073_741_824)
            : bytes >= 1_048_576 ? String(format: "%.1f MB", Double(bytes) / 1_048_576) : String(format: "%d KB", max(1, bytes / 1024))
    }

    static func formatDate(_ date: Date, _ context: HibiRequestContext) -> String {
        let zone = context.user.flatMap { TimeZone(identifier: $0.timeZone) } ?? .gmt
        return date.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened,
                                               locale: Locale(identifier: context.language == .ja ? "ja_JP" : "en_US"), timeZone: zone))
    }
}

extension Node {
    /// Adds attributes to a void element (for conditional `checked`).
    func with(_ extra: [Attribute]) -> Node {
        if case let .void(tag, attributes) = self { return .void(tag, attributes + extra) }
        return self
    }
}
