import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SQLKit
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// Everything the video routes do: uploads, the library scan, per-user data, playlists and streaming.
public struct VideoService: Sendable {
    public let store: VideoStore
    public let files: VideoFiles
    let probe: MediaProbe
    let settings: VideoSettings
    let logger: Logger
    let scans: ScanCoordinator
    /// Set when the service runs in a server: the library scan is claimed in the database, so of
    /// several instances sharing one database and library only one scans at a time.
    public var leases: JobLeases?
    static let scanLease = "video-library-scan"
    let fileIO = FileIO()
    /// Large enough to keep syscalls few when streaming, small enough that ten viewers cost a few MB.
    let streamer = FileRangeStreamer(threadPool: .singleton, chunkLength: 256 * 1024, ringSize: 3)

    public init(database: Database, dataDirectory: String, settings: VideoSettings, logger: Logger) {
        self.store = VideoStore(database: database)
        self.files = VideoFiles(dataDirectory: dataDirectory, libraryDirectory: settings.libraryDirectory)
        self.probe = MediaProbe(ffprobePath: settings.ffprobePath, ffmpegPath: settings.ffmpegPath)
        self.settings = settings
        self.logger = logger
        self.scans = ScanCoordinator()
    }

    public var maxUploadBytes: Int64 { settings.maxUploadBytes }
    public var hasLibrary: Bool { settings.libraryDirectory != nil }

    // MARK: adding videos

    /// Streams the body to a temporary file, checks it with ffprobe, moves it into the user's folder and
    /// makes a thumbnail. Any failure removes every file this upload created.
    public func upload<Body: AsyncSequence & Sendable>(userID: String, fileName: String?, expectedLength: Int64?, body: Body,
                                                       quota: (left: Int64, total: Int64)? = nil,
                                                       now: Date) async throws -> VideoItem where Body.Element == ByteBuffer {
        let (temporary, size) = try await files.receive(body, expectedLength: expectedLength, limit: settings.maxUploadBytes, quota: quota)
        var created: [String] = [temporary]
        do {
            guard let media = try await probe.probe(path: temporary), media.videoCodec != nil else { throw VideoError.notAVideo }
            let name = VideoRules.uploadName(fileName)
            let id = UUID().uuidString.lowercased()
            let stored = "\(id).\(VideoRules.storedExtension(container: media.container, fileName: name))"
            let directory = files.uploadDirectory(userID: userID)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let destination = (directory as NSString).appendingPathComponent(stored)
            try FileManager.default.moveItem(atPath: temporary, toPath: destination)
            created = [destination]
            let thumbnail = files.thumbnailPath(videoID: id)
            let hasThumbnail = await probe.thumbnail(path: destination, duration: media.durationSeconds, to: thumbnail)
            if hasThumbnail { created.append(thumbnail) }
            let video = Video(id: id, ownerID: userID, source: .upload, filePath: stored, originalName: name, sizeBytes: size,
                              modifiedMillis: VideoFiles.stat(destination)?.modifiedMillis ?? 0, media: media,
                              hasThumbnail: hasThumbnail, hasCaptions: false, createdAt: now)
            try await store.insert(video)
            logger.info("video uploaded", metadata: ["video": "\(id)", "bytes": "\(size)"])
            return VideoItem(video: video, data: VideoUserData())
        } catch {
            for path in created { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
    }

    public func delete(userID: String, videoID: String) async throws {
        let item = try await item(userID: userID, videoID: videoID)
        guard item.video.source == .upload else { throw VideoError.sharedVideoReadOnly }
        try await store.delete(id: videoID)
        if let path = files.resolveUnchecked(item.video) {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: (path as NSString).deletingPathExtension + ".vtt")
        }
        try? FileManager.default.removeItem(atPath: files.thumbnailPath(videoID: videoID))
    }

    /// Stores WebVTT captions beside an upload (library captions are the admin's .vtt files).
    public func setCaptions(userID: String, videoID: String, text: String) async throws {
        let item = try await item(userID: userID, videoID: videoID)
        guard item.video.source == .upload else { throw VideoError.sharedVideoReadOnly }
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        guard body.hasPrefix("WEBVTT") else { throw VideoError.invalidCaptions }
        guard let path = files.resolve(item.video) else { throw VideoError.videoNotFound }
        try Data(body.utf8).write(to: URL(fileURLWithPath: (path as NSString).deletingPathExtension + ".vtt"), options: .atomic)
        try await store.setHasCaptions(videoID: videoID, true)
    }

    // MARK: library scan

    /// Brings the index of the shared folder up to date: new files are probed, changed ones (size or
    /// modification time) probed again, vanished ones dropped with their per-user data.
    public func scanLibrary(now: Date) async throws -> ScanResponse {
        guard let library = settings.libraryDirectory else { throw VideoError.noLibrary }
        guard let leases else { return try await scans.run { try await performScan(library: library, now: now) } }
        // Another instance scanning: wait for it, then scan here too (finding what it indexed unchanged),
        // so the answer is always about the folder as it is now and no file is indexed twice.
        while true {
            if let result = try await leases.run(Self.scanLease, lease: 60, logger: logger, {
                try await scans.run { try await performScan(library: library, now: now) }
            }) { return result }
            // Ends with a CancellationError when the request or the server stops waiting.
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    func performScan(library: String, now: Date) async throws -> ScanResponse {
        // An unmounted or unreadable folder must not look like "every video was deleted".
        guard let realRoot = VideoFiles.realPath(library), VideoFiles.stat(realRoot) != nil,
              (try? FileManager.default.contentsOfDirectory(atPath: realRoot)) != nil else {
            logger.warning("video library folder is not readable; scan skipped")
            return ScanResponse(added: 0, updated: 0, removed: 0, unchanged: 0)
        }
        let found = Self.walk(root: library, realRoot: realRoot)
        var known: [String: Video] = [:]
        for video in try await store.libraryVideos() { known[video.filePath] = video }
        var added = 0, updated = 0, removed = 0, unchanged = 0
        for (relative, stat) in found.sorted(by: { $0.key < $1.key }) {
            let full = (library as NSString).appendingPathComponent(relative)
            let hasCaptions = VideoFiles.isRegularFile((full as NSString).deletingPathExtension + ".vtt")
            if let existing = known.removeValue(forKey: relative) {
                if existing.sizeBytes == stat.size && existing.modifiedMillis == stat.modifiedMillis {
                    if existing.hasCaptions != hasCaptions { try await store.setHasCaptions(videoID: existing.id, hasCaptions) }
                    unchanged += 1
                    continue
                }
                var video = existing
                video.sizeBytes = stat.size
                video.modifiedMillis = stat.modifiedMillis
                video.media = try await probe.probe(path: full) ?? MediaInfo()
                video.hasThumbnail = await probe.thumbnail(path: full, duration: video.media.durationSeconds,
                                                           to: files.thumbnailPath(videoID: video.id))
                video.hasCaptions = hasCaptions
                try await store.updateFile(video)
                updated += 1
            } else {
                let id = UUID().uuidString.lowercased()
                let media = try await probe.probe(path: full) ?? MediaInfo()
                let hasThumbnail = media.videoCodec == nil ? false
                    : await probe.thumbnail(path: full, duration: media.durationSeconds, to: files.thumbnailPath(videoID: id))
                try await store.insert(Video(id: id, ownerID: nil, source: .library, filePath: relative,
                                             originalName: (relative as NSString).lastPathComponent, sizeBytes: stat.size,
                                             modifiedMillis: stat.modifiedMillis, media: media, hasThumbnail: hasThumbnail,
                                             hasCaptions: hasCaptions, createdAt: now))
                added += 1
            }
        }
        for video in known.values {
            try await store.delete(id: video.id)
            try? FileManager.default.removeItem(atPath: files.thumbnailPath(videoID: video.id))
            removed += 1
        }
        logger.info("video library scanned", metadata: ["added": "\(added)", "updated": "\(updated)", "removed": "\(removed)"])
        return ScanResponse(added: added, updated: updated, removed: removed, unchanged: unchanged)
    }

    /// Video files under the folder by relative path. Symlinks are followed only when their target stays
    /// inside the folder; symlinked directories are not entered (no loops, no escapes); dot files are skipped.
    static func walk(root: String, realRoot: String, maxDepth: Int = 20) -> [String: VideoFiles.FileStat] {
        var result: [String: VideoFiles.FileStat] = [:]
        func visit(_ relative: String, depth: Int) {
            let directory = relative.isEmpty ? root : (root as NSString).appendingPathComponent(relative)
            guard depth <= maxDepth, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
            for name in names where !name.hasPrefix(".") {
                let childRelative = relative.isEmpty ? name : relative + "/" + name
                let full = (root as NSString).appendingPathComponent(childRelative)
                guard let real = VideoFiles.realPath(full), VideoRules.isInside(root: realRoot, path: real) else { continue }
                var info = Glibc.stat()
                guard lstat(full, &info) == 0 else { continue }
                let isLink = (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFLNK)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    if !isLink { visit(childRelative, depth: depth + 1) }
                } else if VideoRules.videoExtensions.contains((name as NSString).pathExtension.lowercased()),
                          VideoRules.isSafeRelativePath(childRelative), let stat = VideoFiles.stat(real) {
                    result[childRelative] = stat
                }
            }
        }
        visit("", depth: 0)
        return result
    }

    // MARK: per-user data

    public func item(userID: String, videoID: String) async throws -> VideoItem {
        guard VideoRules.isPlausibleID(videoID), let item = try await store.find(id: videoID, userID: userID) else { throw VideoError.videoNotFound }
        return item
    }

    func update(userID: String, videoID: String, _ request: UpdateVideoRequest) async throws -> VideoItem {
        var item = try await item(userID: userID, videoID: videoID)
        let title = try request.title.map { try VideoRules.validateTitle($0) }
        let rating = try request.rating.map { try VideoRules.validateRating($0) }
        let tags = try request.tags.map { try VideoRules.normalizeTags($0) }
        item.data = try await store.updateData(userID: userID, videoID: videoID) { data in
            if let title { data.title = title }
            if let rating { data.rating = rating }
            if let tags { data.tags = tags }
            if let favorite = request.favorite { data.favorite = favorite }
            if let played = request.played { data.played = played }
        }
        return item
    }

    /// The player reports where it is; this also moves the video to the top of the history.
    public func saveProgress(userID: String, videoID: String, position: Double, ended: Bool, now: Date) async throws -> VideoItem {
        var item = try await item(userID: userID, videoID: videoID)
        let duration = item.video.media.durationSeconds
        let clamped = try ResumeRules.clampedPosition(position, duration: duration)
        item.data = try await store.updateData(userID: userID, videoID: videoID) { data in
            data.played = ResumeRules.isPlayed(position: clamped, duration: duration, ended: ended, wasPlayed: data.played)
            data.positionSeconds = clamped
            data.lastPlayedAt = now
        }
        return item
    }

    /// A new viewing starts: counted once, and the video comes back to "continue watching" if hidden.
    public func startPlay(userID: String, videoID: String, now: Date) async throws -> VideoItem {
        var item = try await item(userID: userID, videoID: videoID)
        item.data = try await store.updateData(userID: userID, videoID: videoID) { data in
            data.playCount += 1
            data.lastPlayedAt = now
            data.hiddenFromContinue = false
        }
        return item
    }

    /// Hides from "continue watching" only; the saved position stays for the player.
    public func hideFromContinue(userID: String, videoID: String) async throws -> VideoItem {
        var item = try await item(userID: userID, videoID: videoID)
        item.data = try await store.updateData(userID: userID, videoID: videoID) { $0.hiddenFromContinue = true }
        return item
    }

    public func continueWatching(userID: String, limit: Int = 12) async throws -> [VideoItem] {
        Array(try await store.withPositions(userID: userID).filter(ResumeRules.inContinueWatching).prefix(limit))
    }

    // MARK: playlists

    public func playlist(userID: String, id: String) async throws -> Playlist {
        guard VideoRules.isPlausibleID(id), let playlist = try await store.playlist(id: id, userID: userID) else { throw VideoError.playlistNotFound }
        return playlist
    }

    /// The playlist's videos the user can still see, in order.
    public func playlistItems(userID: String, playlist: Playlist) async throws -> [VideoItem] {
        let visible = Dictionary(try await store.list(userID: userID).map { ($0.video.id, $0) }, uniquingKeysWith: { a, _ in a })
        return playlist.videoIDs.compactMap { visible[$0] }
    }

    public func createPlaylist(userID: String, name: String, now: Date) async throws -> Playlist {
        try await store.createPlaylist(userID: userID, name: try VideoRules.validatePlaylistName(name), now: now)
    }

    public func renamePlaylist(userID: String, id: String, name: String, now: Date) async throws -> Playlist {
        let name = try VideoRules.validatePlaylistName(name)
        return try await changePlaylist(userID: userID, id: id, now: now) { sql, playlist in
            try await VideoStore.rename(sql, playlistID: playlist.id, name: name)
        }
    }

    public func addToPlaylist(userID: String, id: String, videoID: String, now: Date) async throws -> Playlist {
        _ = try await item(userID: userID, videoID: videoID)
        return try await changePlaylist(userID: userID, id: id, now: now) { sql, playlist in
            try await VideoStore.addItem(sql, playlist: playlist, videoID: videoID, now: now)
        }
    }

    public func removeFromPlaylist(userID: String, id: String, videoID: String, now: Date) async throws -> Playlist {
        try await changePlaylist(userID: userID, id: id, now: now) { sql, playlist in
            guard playlist.videoIDs.contains(videoID) else { throw VideoError.videoNotFound }
            try await VideoStore.removeItem(sql, playlist: playlist, videoID: videoID)
        }
    }

    public func reorderPlaylist(userID: String, id: String, order: [String], now: Date) async throws -> Playlist {
        try await changePlaylist(userID: userID, id: id, now: now) { sql, playlist in
            let order = try VideoRules.validateOrder(current: playlist.videoIDs, proposed: order)
            try await VideoStore.reorder(sql, playlistID: playlist.id, order: order)
        }
    }

    public func movePlaylistItem(userID: String, id: String, videoID: String, offset: Int, now: Date) async throws -> Playlist {
        try await changePlaylist(userID: userID, id: id, now: now) { sql, playlist in
            try await VideoStore.reorder(sql, playlistID: playlist.id, order: VideoRules.move(videoID, by: offset, in: playlist.videoIDs))
        }
    }

    public func deletePlaylist(userID: String, id: String) async throws {
        guard VideoRules.isPlausibleID(id), try await store.deletePlaylist(id: id, userID: userID) else { throw VideoError.playlistNotFound }
    }

    func changePlaylist(userID: String, id: String, now: Date,
                        _ change: @escaping @Sendable (any SQLDatabase, Playlist) async throws -> Void) async throws -> Playlist {
        guard VideoRules.isPlausibleID(id), let playlist = try await store.changePlaylist(id: id, userID: userID, now: now, change) else {
            throw VideoError.playlistNotFound
        }
        return playlist
    }

    // MARK: streaming

    /// The file with range support (see `ByteRanges` for the exact rules), streamed in chunks from disk.
    public func streamResponse(userID: String, videoID: String, request: Request, context: some RequestContext) async throws -> Response {
        let item = try await item(userID: userID, videoID: videoID)
        guard let path = files.resolve(item.video), let stat = VideoFiles.stat(path) else { throw VideoError.videoNotFound }
        let etag = ByteRanges.etag(size: stat.size, modifiedMillis: stat.modifiedMillis)
        var headers: HTTPFields = [
            .acceptRanges: "bytes",
            .eTag: etag,
            .lastModified: HTTPDate.format(stat.modified),
            .contentType: VideoRules.mimeType(forExtension: (path as NSString).pathExtension),
            // Personal files: a browser may keep them but must check back; shared caches must not.
            .cacheControl: "private, no-cache",
            .contentTypeOptions: "nosniff",
        ]
        let decision = ByteRanges.decide(range: request.headers[.range], ifRange: request.headers[.ifRange],
                                         ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince],
                                         etag: etag, lastModified: stat.modified, size: stat.size)
        switch decision {
        case .notModified:
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(stat.size)"
            headers[.contentType] = nil
            return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
        case .full:
            guard stat.size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            return Response(status: .ok, headers: headers, body: try streamer.body(path: path, range: 0...(stat.size - 1), userID: userID))
        case let .partial(range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(stat.size)"
            return Response(status: .partialContent, headers: headers, body: try streamer.body(path: path, range: range, userID: userID))
        }
    }

    public func thumbnailResponse(userID: String, videoID: String, context: some RequestContext) async throws -> Response {
        let item = try await item(userID: userID, videoID: videoID)
        let path = files.thumbnailPath(videoID: item.video.id)
        guard item.video.hasThumbnail, VideoFiles.isRegularFile(path) else { throw VideoError.videoNotFound }
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: body)
    }

    public func captionsResponse(userID: String, videoID: String, context: some RequestContext) async throws -> Response {
        let item = try await item(userID: userID, videoID: videoID)
        guard let path = files.captionsPath(item.video) else { throw VideoError.videoNotFound }
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: [.contentType: "text/vtt; charset=utf-8", .cacheControl: "private, no-cache"], body: body)
    }
}

/// One scan at a time: a second request while one runs waits for it and gets the same result.
actor ScanCoordinator {
    private var running: Task<ScanResponse, any Error>?

    func run(_ work: @escaping @Sendable () async throws -> ScanResponse) async throws -> ScanResponse {
        if let running { return try await running.value }
        let task = Task { try await work() }
        running = task
        defer { running = nil }
        return try await task.value
    }
}

/// Scans the shared folder at start and then every `interval` (ServiceLifecycle runs it beside the server).
/// It never returns before shutdown: a finished service would stop the whole group.
struct VideoLibraryScanService: Service {
    let videos: VideoService
    let interval: TimeInterval
    let clock: WallClock

    func run() async throws {
        while videos.hasLibrary && !Task.isShuttingDownGracefully && !Task.isCancelled {
            await pass()
            guard interval > 0 else { break }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
        }
        try? await gracefulShutdown()
    }

    /// One scan at the clock's time, what `run` does every `interval`; callable outside a ServiceGroup (`run`
    /// ends by waiting for the group's shutdown, which never comes without one).
    @discardableResult
    func pass() async -> ScanResponse? {
        do {
            return try await videos.scanLibrary(now: clock.now())
        } catch {
            videos.logger.error("video library scan failed", metadata: ["error": "\(String(describing: error).prefix(200))"])
            return nil
        }
    }
}

// MARK: read methods for the journal

extension VideoService {
    /// Videos last played in `[from, to)`, most recent first (the journal's "videos watched" on a day).
    public func played(userID: String, from: Date, to: Date) async throws -> [VideoItem] {
        let lower = Int64(saturating: from.timeIntervalSince1970), upper = Int64(saturating: to.timeIntervalSince1970)
        return try await store.visible(userID: userID)
            .where(("d.last_played_at >= \(bind: lower) AND d.last_played_at < \(bind: upper)" as SQLQueryString))
            .orderBy(SQLRaw("d.last_played_at DESC")).all().map(VideoStore.decodeItem)
    }
}

extension VideoService {
    /// The earliest last play the user has, for paging back through time without scanning past it.
    public func firstPlayDate(userID: String) async throws -> Date? {
        let row = try await store.database.sql.raw("SELECT MIN(last_played_at) AS first FROM video_user_data WHERE user_id = \(bind: userID)").first()
        return try row?.decode(column: "first", as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
