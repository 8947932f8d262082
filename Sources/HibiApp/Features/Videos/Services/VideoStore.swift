import Foundation
import SQLKit

/// SQL for videos, per-user video data and playlists. Every read that takes a user id returns only
/// what that user may see: their own uploads and the shared library.
public struct VideoStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Bytes of the videos this person uploaded (the shared library counts for nobody), for the quota.
    public func uploadedBytes(userID: String) async throws -> Int64 {
        try await database.sql.raw("""
            SELECT COALESCE(SUM(size_bytes), 0) AS total FROM videos WHERE owner_id = \(bind: userID) AND source = \(bind: VideoSource.upload.rawValue)
            """).first().map { try $0.decode(column: "total", as: Int64.self) } ?? 0
    }

    static let videoColumns = ["id", "owner_id", "source", "file_path", "original_name", "size_bytes", "modified_ms", "duration_ms",
                               "container", "video_codec", "audio_codec", "width", "height", "has_thumbnail", "has_captions", "created_at"]
    static let dataColumns = ["title", "favorite", "rating", "tags", "last_played_at", "position_ms", "play_count", "played",
                              "hidden_from_continue"]
    static let joinedColumns = SQLRaw((videoColumns.map { "v.\($0)" } + dataColumns.map { "d.\($0)" }).joined(separator: ", "))

    // MARK: videos

    public func insert(_ video: Video, on sql: (any SQLDatabase)? = nil) async throws {
        try await (sql ?? database.sql).insert(into: "videos").columns(Self.videoColumns).values(Self.binds(video)).run()
    }

    /// New facts about a library file that changed on disk; user data stays.
    public func updateFile(_ video: Video) async throws {
        try await database.sql.update("videos")
            .set("original_name", to: video.originalName)
            .set("size_bytes", to: video.sizeBytes)
            .set("modified_ms", to: video.modifiedMillis)
            .set("duration_ms", to: video.media.durationSeconds.map { Int64(saturating: ($0 * 1000).rounded()) })
            .set("container", to: video.media.container)
            .set("video_codec", to: video.media.videoCodec)
            .set("audio_codec", to: video.media.audioCodec)
            .set("width", to: video.media.width.map(Int64.init))
            .set("height", to: video.media.height.map(Int64.init))
            .set("has_thumbnail", to: video.hasThumbnail)
            .set("has_captions", to: video.hasCaptions)
            .where("id", .equal, video.id)
            .run()
    }

    public func setHasCaptions(videoID: String, _ value: Bool) async throws {
        try await database.sql.update("videos").set("has_captions", to: value).where("id", .equal, videoID).run()
    }

    public func delete(id: String) async throws {
        // Children first: SQLite enforces foreign keys but the cascade must not depend on it.
        try await database.transaction { sql in
            try await sql.delete(from: "video_playlist_items").where("video_id", .equal, id).run()
            try await sql.delete(from: "video_user_data").where("video_id", .equal, id).run()
            try await sql.delete(from: "videos").where("id", .equal, id).run()
        }
    }

    public func libraryVideos() async throws -> [Video] {
        try await database.sql.select().columns(Self.videoColumns.map { SQLIdentifier($0) }).from("videos")
            .where("source", .equal, VideoSource.library.rawValue).all().map(Self.decodeVideo)
    }

    /// A video the user may see, with their data; nil both for made-up ids and for other users' uploads.
    public func find(id: String, userID: String) async throws -> VideoItem? {
        try await visible(userID: userID).where(("v.id = \(bind: id)" as SQLQueryString)).first().map(Self.decodeItem)
    }

    public func list(userID: String, query: VideoQuery = .init()) async throws -> [VideoItem] {
        var select = visible(userID: userID)
        if let text = query.text?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            let pattern = "%" + Self.escapeLike(text.lowercased()) + "%"
            select = select.where(("(LOWER(COALESCE(d.title, v.original_name)) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(v.original_name) LIKE \(bind: pattern) ESCAPE '\\')" as SQLQueryString))
        }
        if let tag = query.tag?.trimmingCharacters(in: .whitespaces).lowercased(), !tag.isEmpty {
            let pattern = "%," + Self.escapeLike(tag) + ",%"
            select = select.where(("d.tags LIKE \(bind: pattern) ESCAPE '\\'" as SQLQueryString))
        }
        if query.favoritesOnly {
            select = select.where(("d.favorite = \(bind: true)" as SQLQueryString))
        }
        if let rating = query.minimumRating {
            select = select.where(("d.rating >= \(bind: Int64(rating))" as SQLQueryString))
        }
        return try await select.orderBy(SQLRaw("v.created_at DESC, v.original_name ASC")).all().map(Self.decodeItem)
    }

    /// Videos with a saved position, most recently played first; the resume rules pick from these.
    public func withPositions(userID: String) async throws -> [VideoItem] {
        try await visible(userID: userID).where(("d.position_ms > 0" as SQLQueryString))
            .orderBy(SQLRaw("d.last_played_at DESC")).all().map(Self.decodeItem)
    }

    public func history(userID: String, limit: Int = 200) async throws -> [VideoItem] {
        try await visible(userID: userID).where(("d.last_played_at IS NOT NULL" as SQLQueryString))
            .orderBy(SQLRaw("d.last_played_at DESC")).limit(limit).all().map(Self.decodeItem)
    }

    /// Forgets when videos were played; positions, counts and the played mark stay.
    public func clearHistory(userID: String) async throws {
        try await database.sql.update("video_user_data").set("last_played_at", to: SQLLiteral.null)
            .where("user_id", .equal, userID).run()
    }

    public func tags(userID: String) async throws -> [String] {
        let rows = try await database.sql.select().column("tags").from("video_user_data")
            .where("user_id", .equal, userID).where("tags", .notEqual, "").all()
        let all = try rows.flatMap { VideoRules.decodeTags(try $0.decode(column: "tags", as: String.self)) }
        return Array(Set(all)).sorted()
    }

    func visible(userID: String) -> SQLSelectBuilder {
        database.sql.select().column(Self.joinedColumns)
            .from(SQLAlias(SQLIdentifier("videos"), as: SQLIdentifier("v")))
            .join(SQLAlias(SQLIdentifier("video_user_data"), as: SQLIdentifier("d")), method: SQLJoinMethod.left,
                  on: ("d.video_id = v.id AND d.user_id = \(bind: userID)" as SQLQueryString))
            .where(("(v.owner_id = \(bind: userID) OR v.source = \(bind: VideoSource.library.rawValue))" as SQLQueryString))
    }

    // MARK: per-user data

    /// Reads the user's data (defaults when none), applies `change`, and writes it back in one transaction.
    @discardableResult
    public func updateData(userID: String, videoID: String,
                           _ change: @escaping @Sendable (inout VideoUserData) throws -> Void) async throws -> VideoUserData {
        try await database.transaction { sql in
            let row = try await sql.select().columns(Self.dataColumns.map { SQLIdentifier($0) }).from("video_user_data")
                .where("user_id", .equal, userID).where("video_id", .equal, videoID).first()
            var data = try row.map(Self.decodeData) ?? VideoUserData()
            try change(&data)
            if row == nil {
                try await sql.insert(into: "video_user_data").columns(["user_id", "video_id"] + Self.dataColumns)
                    .values([SQLBind(userID), SQLBind(videoID)] + Self.binds(data)).run()
            } else {
                let values = Self.binds(data)
                var update = sql.update("video_user_data")
                for (column, value) in zip(Self.dataColumns, values) { update = update.set(SQLIdentifier(column), to: value) }
                try await update.where("user_id", .equal, userID).where("video_id", .equal, videoID).run()
            }
            return data
        }
    }

    // MARK: playlists

    public func playlists(userID: String) async throws -> [Playlist] {
        let rows = try await database.sql.select().columns("id", "name", "created_at", "updated_at").from("video_playlists")
            .where("user_id", .equal, userID).orderBy("name").all()
        var result: [Playlist] = []
        for row in rows {
            let id = try row.decode(column: "id", as: String.self)
            result.append(Playlist(id: id, name: try row.decode(column: "name", as: String.self),
                                   videoIDs: try await itemIDs(playlistID: id, on: database.sql),
                                   createdAt: Self.date(try row.decode(column: "created_at", as: Int64.self)),
                                   updatedAt: Self.date(try row.decode(column: "updated_at", as: Int64.self))))
        }
        return result
    }

    public func playlist(id: String, userID: String) async throws -> Playlist? {
        try await playlist(id: id, userID: userID, on: database.sql)
    }

    func playlist(id: String, userID: String, on sql: any SQLDatabase) async throws -> Playlist? {
        guard let row = try await sql.select().columns("id", "name", "created_at", "updated_at").from("video_playlists")
            .where("id", .equal, id).where("user_id", .equal, userID).first() else { return nil }
        return Playlist(id: id, name: try row.decode(column: "name", as: String.self),
                        videoIDs: try await itemIDs(playlistID: id, on: sql),
                        createdAt: Self.date(try row.decode(column: "created_at", as: Int64.self)),
                        updatedAt: Self.date(try row.decode(column: "updated_at", as: Int64.self)))
    }

    func itemIDs(playlistID: String, on sql: any SQLDatabase) async throws -> [String] {
        try await sql.select().column("video_id").from("video_playlist_items").where("playlist_id", .equal, playlistID)
            .orderBy("position").all().map { try $0.decode(column: "video_id", as: String.self) }
    }

    public func createPlaylist(userID: String, name: String, now: Date) async throws -> Playlist {
        let playlist = Playlist(id: UUID().uuidString.lowercased(), name: name, videoIDs: [], createdAt: now, updatedAt: now)
        try await database.sql.insert(into: "video_playlists").columns("id", "user_id", "name", "created_at", "updated_at")
            .values(SQLBind(playlist.id), SQLBind(userID), SQLBind(name), SQLBind(Self.seconds(now)), SQLBind(Self.seconds(now))).run()
        return playlist
    }

    /// Runs `change` on the user's playlist inside a transaction; nil when the playlist is not theirs.
    public func changePlaylist(id: String, userID: String, now: Date,
                               _ change: @escaping @Sendable (any SQLDatabase, Playlist) async throws -> Void) async throws -> Playlist? {
        try await database.transaction { sql in
            guard let playlist = try await self.playlist(id: id, userID: userID, on: sql) else { return nil }
            try await change(sql, playlist)
            try await sql.update("video_playlists").set("updated_at", to: Self.seconds(now)).where("id", .equal, id).run()
            return try await self.playlist(id: id, userID: userID, on: sql)
        }
    }

    static func rename(_ sql: any SQLDatabase, playlistID: String, name: String) async throws {
        try await sql.update("video_playlists").set("name", to: name).where("id", .equal, playlistID).run()
    }

    static func addItem(_ sql: any SQLDatabase, playlist: Playlist, videoID: String, now: Date) async throws {
        guard !playlist.videoIDs.contains(videoID) else { return }
        try await sql.insert(into: "video_playlist_items").columns("playlist_id", "video_id", "position", "added_at")
            .values(SQLBind(playlist.id), SQLBind(videoID), SQLBind(Int64(playlist.videoIDs.count)), SQLBind(seconds(now))).run()
    }

    static func removeItem(_ sql: any SQLDatabase, playlist: Playlist, videoID: String) async throws {
        try await sql.delete(from: "video_playlist_items").where("playlist_id", .equal, playlist.id).where("video_id", .equal, videoID).run()
        try await reorder(sql, playlistID: playlist.id, order: playlist.videoIDs.filter { $0 != videoID })
    }

    static func reorder(_ sql: any SQLDatabase, playlistID: String, order: [String]) async throws {
        for (index, videoID) in order.enumerated() {
            try await sql.update("video_playlist_items").set("position", to: Int64(index))
                .where("playlist_id", .equal, playlistID).where("video_id", .equal, videoID).run()
        }
    }

    public func deletePlaylist(id: String, userID: String) async throws -> Bool {
        try await database.transaction { sql in
            guard try await sql.select().column("id").from("video_playlists").where("id", .equal, id)
                .where("user_id", .equal, userID).first() != nil else { return false }
            try await sql.delete(from: "video_playlist_items").where("playlist_id", .equal, id).run()
            try await sql.delete(from: "video_playlists").where("id", .equal, id).run()
            return true
        }
    }

    /// The user's playlists holding this video (for the player page).
    public func playlistIDs(containing videoID: String, userID: String) async throws -> Set<String> {
        let rows = try await database.sql.raw("""
            SELECT i.playlist_id AS id FROM video_playlist_items i JOIN video_playlists p ON p.id = i.playlist_id
            WHERE i.video_id = \(bind: videoID) AND p.user_id = \(bind: userID)
            """).all()
        return Set(try rows.map { try $0.decode(column: "id", as: String.self) })
    }

    // MARK: encoding

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    static func seconds(_ date: Date) -> Int64 { Int64(saturating: date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

    static func binds(_ video: Video) -> [any SQLExpression] {
        [SQLBind(video.id), SQLBind(video.ownerID), SQLBind(video.source.rawValue), SQLBind(video.filePath), SQLBind(video.originalName),
         SQLBind(video.sizeBytes), SQLBind(video.modifiedMillis),
         SQLBind(video.media.durationSeconds.map { Int64(saturating: ($0 * 1000).rounded()) }), SQLBind(video.media.container),
         SQLBind(video.media.videoCodec), SQLBind(video.media.audioCodec), SQLBind(video.media.width.map(Int64.init)),
         SQLBind(video.media.height.map(Int64.init)), SQLBind(video.hasThumbnail), SQLBind(video.hasCaptions),
         SQLBind(seconds(video.createdAt))]
    }

    static func binds(_ data: VideoUserData) -> [any SQLExpression] {
        [SQLBind(data.title), SQLBind(data.favorite), SQLBind(data.rating.map(Int64.init)), SQLBind(VideoRules.encodeTags(data.tags)),
         SQLBind(data.lastPlayedAt.map(seconds)), SQLBind(Int64(saturating: (data.positionSeconds * 1000).rounded())),
         SQLBind(Int64(data.playCount)), SQLBind(data.played), SQLBind(data.hiddenFromContinue)]
    }

    static func decodeVideo(_ row: any SQLRow) throws -> Video {
        Video(
            id: try row.decode(column: "id", as: String.self),
            ownerID: try row.decode(column: "owner_id", as: String?.self),
            source: VideoSource(rawValue: try row.decode(column: "source", as: String.self)) ?? .upload,
            filePath: try row.decode(column: "file_path", as: String.self),
            originalName: try row.decode(column: "original_name", as: String.self),
            sizeBytes: try row.decode(column: "size_bytes", as: Int64.self),
            modifiedMillis: try row.decode(column: "modified_ms", as: Int64.self),
            media: MediaInfo(
                durationSeconds: try row.decode(column: "duration_ms", as: Int64?.self).map { Double($0) / 1000 },
                container: try row.decode(column: "container", as: String?.self),
                videoCodec: try row.decode(column: "video_codec", as: String?.self),
                audioCodec: try row.decode(column: "audio_codec", as: String?.self),
                width: try row.decode(column: "width", as: Int64?.self).map(Int.init),
                height: try row.decode(column: "height", as: Int64?.self).map(Int.init)),
            hasThumbnail: try row.decode(column: "has_thumbnail", as: Bool.self),
            hasCaptions: try row.decode(column: "has_captions", as: Bool.self),
            createdAt: date(try row.decode(column: "created_at", as: Int64.self))
        )
    }

    /// Data columns of a LEFT JOIN are all NULL when the user never touched the video.
    static func decodeData(_ row: any SQLRow) throws -> VideoUserData {
        var data = VideoUserData()
        guard try row.decode(column: "position_ms", as: Int64?.self) != nil else { return data }
        data.title = try row.decode(column: "title", as: String?.self)
        data.favorite = try row.decode(column: "favorite", as: Bool?.self) ?? false
        data.rating = try row.decode(column: "rating", as: Int64?.self).map(Int.init)
        data.tags = VideoRules.decodeTags(try row.decode(column: "tags", as: String?.self) ?? "")
        data.lastPlayedAt = try row.decode(column: "last_played_at", as: Int64?.self).map(date)
        data.positionSeconds = Double(try row.decode(column: "position_ms", as: Int64?.self) ?? 0) / 1000
        data.playCount = Int(try row.decode(column: "play_count", as: Int64?.self) ?? 0)
        data.played = try row.decode(column: "played", as: Bool?.self) ?? false
        data.hiddenFromContinue = try row.decode(column: "hidden_from_continue", as: Bool?.self) ?? false
        return data
    }

    static func decodeItem(_ row: any SQLRow) throws -> VideoItem {
        VideoItem(video: try decodeVideo(row), data: try decodeData(row))
    }
}
