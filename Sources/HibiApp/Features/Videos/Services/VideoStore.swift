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

    /// A video's columns beside the person's data about it (the two tables share no column name).
    static let joinedColumns = SQLRaw(VideoRow.qualifiedColumns("v") + ", " + VideoUserDataRow.qualifiedColumns("d"))

    // MARK: videos

    public func insert(_ video: Video, on sql: (any SQLDatabase)? = nil) async throws {
        try await VideoRow.insert([VideoRow(video)], into: sql ?? database.sql).run()
    }

    /// New facts about a library file that changed on disk; user data stays.
    public func updateFile(_ video: Video) async throws {
        try await database.sql.update("videos")
            .set("original_name", to: video.originalName)
            .set("size_bytes", to: video.sizeBytes)
            .set("modified_ms", to: video.modifiedMillis)
            .set("duration_ms", to: VideoRow.millis(video.media.durationSeconds))
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
        try await VideoRow.select(database.sql).where("source", .equal, VideoSource.library.rawValue)
            .all(decoding: VideoRow.self).map(\.video)
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
        let rows = try await VideoUserDataRow.select(database.sql)
            .where("user_id", .equal, userID).where("tags", .notEqual, "").all(decoding: VideoUserDataRow.self)
        return Array(Set(rows.flatMap(\.data.tags))).sorted()
    }

    func visible(userID: String) -> SQLSelectBuilder {
        database.sql.select().column(Self.joinedColumns)
            .from(SQLAlias(SQLIdentifier("videos"), as: SQLIdentifier("v")))
            .join(SQLAlias(SQLIdentifier("video_user_data"), as: SQLIdentifier("d")), method: SQLJoinMethod.left,
                  on: ("d.video_id = v.id AND d.user_id = \(bind: userID)" as SQLQueryString))
            .where(("(v.owner_id = \(bind: userID) OR v.source = \(bind: VideoSource.library.rawValue))" as SQLQueryString))
    }

    // MARK: per-user data

    /// Reads the user's data (defaults when none), applies `change`, and writes it back in one transaction:
    /// the table's one write, an insert that updates the row the person already has.
    @discardableResult
    public func updateData(userID: String, videoID: String,
                           _ change: @escaping @Sendable (inout VideoUserData) throws -> Void) async throws -> VideoUserData {
        try await database.transaction { sql in
            let row = try await VideoUserDataRow.select(sql).where("user_id", .equal, userID).where("video_id", .equal, videoID)
                .first(decoding: VideoUserDataRow.self)
            var data = row?.data ?? VideoUserData()
            try change(&data)
            let changed = VideoUserDataRow(userID: userID, videoID: videoID, data)
            try await VideoUserDataRow.insert([changed], into: sql)
                .onConflict(with: ["user_id", "video_id"]) { try $0.set(excludedContentOf: changed, nilEncodingStrategy: .asNil) }.run()
            return data
        }
    }

    // MARK: playlists

    public func playlists(userID: String) async throws -> [Playlist] {
        let rows = try await VideoPlaylistRow.select(database.sql).where("user_id", .equal, userID).orderBy("name")
            .all(decoding: VideoPlaylistRow.self)
        var result: [Playlist] = []
        for row in rows { result.append(row.playlist(videoIDs: try await itemIDs(playlistID: row.id, on: database.sql))) }
        return result
    }

    public func playlist(id: String, userID: String) async throws -> Playlist? {
        try await playlist(id: id, userID: userID, on: database.sql)
    }

    func playlist(id: String, userID: String, on sql: any SQLDatabase) async throws -> Playlist? {
        guard let row = try await VideoPlaylistRow.select(sql).where("id", .equal, id).where("user_id", .equal, userID)
            .first(decoding: VideoPlaylistRow.self) else { return nil }
        return row.playlist(videoIDs: try await itemIDs(playlistID: id, on: sql))
    }

    func itemIDs(playlistID: String, on sql: any SQLDatabase) async throws -> [String] {
        try await VideoPlaylistItemRow.select(sql).where("playlist_id", .equal, playlistID)
            .orderBy("position").all(decoding: VideoPlaylistItemRow.self).map(\.videoID)
    }

    public func createPlaylist(userID: String, name: String, now: Date) async throws -> Playlist {
        let playlist = Playlist(id: UUID().uuidString.lowercased(), name: name, videoIDs: [], createdAt: now, updatedAt: now)
        try await VideoPlaylistRow.insert([VideoPlaylistRow(id: playlist.id, userID: userID, name: name, createdAt: Self.seconds(now),
                                                            updatedAt: Self.seconds(now))], into: database.sql).run()
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
        try await VideoPlaylistItemRow.insert([VideoPlaylistItemRow(playlistID: playlist.id, videoID: videoID, position: Int64(playlist.videoIDs.count),
                                                                    addedAt: seconds(now))], into: sql).run()
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
}
