import Foundation
import SQLKit

/// Diary rows. Text is sealed per entry (context "diary-text:<id>"), so a row copied to another
/// entry or user does not open; moods and dates stay plain so statistics need no decryption.
public struct DiaryStore: Sendable {
    let database: Database
    let box: SealedBoxService

    public init(database: Database, box: SealedBoxService) {
        self.database = database
        self.box = box
    }

    public struct Filter: Sendable, Equatable {
        public var mood: Mood?
        public var tag: String?
        public var from: Date?
        public var to: Date?

        public init(mood: Mood? = nil, tag: String? = nil, from: Date? = nil, to: Date? = nil) {
            self.mood = mood
            self.tag = tag
            self.from = from
            self.to = to
        }
    }

    /// Bound to the owner as well as the row: a row moved to another person in the database, without the
    /// key, does not open for them.
    static func textContext(userID: String, _ id: String) -> String { "diary-text:\(userID):\(id)" }
    /// Before owner binding (sealed rows are moved to the new context once, by `OwnerSealing`).
    static func legacyTextContext(_ id: String) -> String { "diary-text:\(id)" }

    public func insert(_ entry: DiaryEntry) async throws {
        try await insert([entry])
    }

    /// All or nothing: several entries (an import) go in one transaction.
    public func insert(_ entries: [DiaryEntry]) async throws {
        let rows = try entries.map { entry in
            (entry, DiaryEntryRow(id: entry.id, userID: entry.userID, entryAt: Self.seconds(entry.date),
                                  textSealed: try box.sealString(entry.text, context: Self.textContext(userID: entry.userID, entry.id)),
                                  moodScores: try Self.scoresText(entry.moodScores), confirmedMood: entry.confirmedMood?.rawValue,
                                  hasPhoto: !entry.photos.isEmpty, createdAt: Self.seconds(entry.createdAt), updatedAt: Self.seconds(entry.updatedAt)))
        }
        try await database.transaction { sql in
            for (entry, row) in rows {
                try await DiaryEntryRow.insert([row], into: sql).run()
                try await Self.writeTags(sql, entryID: entry.id, userID: entry.userID, tags: entry.tags)
                try await Self.writePhotos(sql, entry: entry)
            }
            for userID in Set(rows.map(\.0.userID)) { try await ChangeCounters.bump(ChangeCounters.diary(userID), on: sql) }
        }
    }

    public func update(_ entry: DiaryEntry) async throws {
        let sealed = try box.sealString(entry.text, context: Self.textContext(userID: entry.userID, entry.id))
        let scores = try Self.scoresText(entry.moodScores)
        try await database.transaction { sql in
            try await sql.update("diary_entries")
                .set("entry_at", to: Self.seconds(entry.date))
                .set("text_sealed", to: sealed)
                .set("mood_scores", to: scores)
                .set("confirmed_mood", to: entry.confirmedMood?.rawValue)
                .set("has_photo", to: !entry.photos.isEmpty)
                .set("updated_at", to: Self.seconds(entry.updatedAt))
                .where("id", .equal, entry.id).where("user_id", .equal, entry.userID)
                .run()
            try await sql.delete(from: "diary_tags").where("entry_id", .equal, entry.id).run()
            try await Self.writeTags(sql, entryID: entry.id, userID: entry.userID, tags: entry.tags)
            try await Self.writePhotos(sql, entry: entry)
            try await ChangeCounters.bump(ChangeCounters.diary(entry.userID), on: sql)
        }
    }

    /// The entry's photo rows made to match `entry.photos`: removed ones deleted, the rest upserted in order.
    static func writePhotos(_ sql: any SQLDatabase, entry: DiaryEntry) async throws {
        var removal = sql.delete(from: "diary_photos").where("entry_id", .equal, entry.id)
        if !entry.photos.isEmpty { removal = removal.where("id", .notIn, entry.photos.map(\.id)) }
        try await removal.run()
        for (position, photo) in entry.photos.enumerated() {
            try await DiaryPhotoRow.insert([DiaryPhotoRow(id: photo.id, entryID: entry.id, userID: entry.userID, position: Int64(position),
                                                          hasFace: photo.hasFace, moodSource: photo.moodSource, createdAt: seconds(entry.updatedAt))], into: sql)
                .onConflict(with: ["id"]) { $0.set(excludedValueOf: "position").set(excludedValueOf: "has_face").set(excludedValueOf: "mood_source") }
                .run()
        }
    }

    static func writeTags(_ sql: any SQLDatabase, entryID: String, userID: String, tags: [String]) async throws {
        for tag in tags {
            try await DiaryTagRow.insert([DiaryTagRow(entryID: entryID, userID: userID, tag: tag, tagKey: tag.lowercased())], into: sql).run()
        }
    }

    public func delete(id: String, userID: String) async throws -> Bool {
        guard try await find(id: id, userID: userID) != nil else { return false }
        try await database.transaction { sql in
            try await sql.delete(from: "diary_entries").where("id", .equal, id).where("user_id", .equal, userID).run()
            try await ChangeCounters.bump(ChangeCounters.diary(userID), on: sql)
        }
        return true
    }

    /// The owner of each of these entry ids that exists (ids are global primary keys).
    public func owners(ids: [String]) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        var owners: [String: String] = [:]
        for row in try await database.sql.select().columns(DiaryEntryRow.Owner.columns).from("diary_entries").where("id", .in, ids)
            .all(decoding: DiaryEntryRow.Owner.self) {
            owners[row.id] = row.userID
        }
        return owners
    }

    public func find(id: String, userID: String) async throws -> DiaryEntry? {
        guard let row = try await baseSelect(userID: userID).where("id", .equal, id).first(decoding: DiaryEntryRow.self) else { return nil }
        return try await decode([row]).first
    }

    public func list(userID: String, filter: Filter, limit: Int, offset: Int) async throws -> (entries: [DiaryEntry], total: Int) {
        let count = try await apply(filter, to: database.sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            .from("diary_entries").where("user_id", .equal, userID), userID: userID).first()
        let total = try count?.decode(column: "n", as: Int.self) ?? 0
        let rows = try await apply(filter, to: baseSelect(userID: userID), userID: userID)
            .orderBy("entry_at", .descending).orderBy("id").limit(limit).offset(offset).all(decoding: DiaryEntryRow.self)
        return (try await decode(rows), total)
    }

    /// Full rows for the given ids, newest first (used after an in-memory search picked them).
    public func entries(ids: [String], userID: String) async throws -> [DiaryEntry] {
        guard !ids.isEmpty else { return [] }
        // Looked up by primary key alone and the owner checked here: with `user_id = ?` in the query,
        // SQLite (without statistics) walks the user's whole date index and fetches every row to find a
        // handful of ids — 100k page reads per search page on a large diary.
        let rows = try await DiaryEntryRow.select(database.sql).where("id", .in, ids)
            .orderBy("entry_at", .descending).all(decoding: DiaryEntryRow.self)
            .filter { $0.userID == userID }
        return try await decode(rows)
    }

    /// Entries inside any of the time windows, newest first (one query whatever the number of windows).
    public func entries(inWindows windows: [ClosedRange<Date>], userID: String, limit: Int) async throws -> [DiaryEntry] {
        guard !windows.isEmpty else { return [] }
        let rows = try await baseSelect(userID: userID).where(group: { group in
            for window in windows {
                group.orWhere(group: { inner in
                    inner.where("entry_at", .greaterThanOrEqual, Int64(saturating: window.lowerBound.timeIntervalSince1970))
                        .where("entry_at", .lessThanOrEqual, Int64(saturating: window.upperBound.timeIntervalSince1970))
                })
            }
            return group
        }).orderBy("entry_at", .descending).limit(limit).all(decoding: DiaryEntryRow.self)
        return try await decode(rows)
    }

    /// Dates and confirmed moods only: what statistics, trends and the calendar need.
    public func moodPoints(userID: String, from: Date? = nil, to: Date? = nil) async throws -> [MoodPoint] {
        var query = database.sql.select().columns(DiaryEntryRow.MoodColumns.columns).from("diary_entries").where("user_id", .equal, userID)
        if let from { query = query.where("entry_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970)) }
        if let to { query = query.where("entry_at", .lessThanOrEqual, Int64(saturating: to.timeIntervalSince1970)) }
        return try await query.all(decoding: DiaryEntryRow.MoodColumns.self).map(\.point)
    }

    /// Counts per confirmed mood and the date range, summed by the database (one row per mood, not per entry).
    public func tally(userID: String, from: Date? = nil, to: Date? = nil) async throws -> MoodTally {
        var query = database.sql.select()
            .column("confirmed_mood")
            .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            .column(SQLFunction("MIN", args: SQLColumn("entry_at")), as: "first")
            .column(SQLFunction("MAX", args: SQLColumn("entry_at")), as: "last")
            .from("diary_entries").where("user_id", .equal, userID)
        if let from { query = query.where("entry_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970)) }
        if let to { query = query.where("entry_at", .lessThanOrEqual, Int64(saturating: to.timeIntervalSince1970)) }
        var tally = MoodTally()
        for row in try await query.groupBy("confirmed_mood").all() {
            let count = try row.decode(column: "n", as: Int.self)
            tally.total += count
            if let mood = try row.decode(column: "confirmed_mood", as: String?.self).flatMap(Mood.init(rawValue:)) { tally.counts[mood] = count }
            let first = try row.date("first")
            let last = try row.date("last")
            tally.first = min(tally.first ?? first, first)
            tally.last = max(tally.last ?? last, last)
        }
        return tally
    }

    /// Everything the search index needs, text decrypted, for one user; with `editedSince`, only rows
    /// edited at or after that time (seconds since 1970).
    public func searchRecords(userID: String, editedSince: Int64? = nil) async throws -> [DiarySearchIndex.Record] {
        var query = database.sql.select().columns(DiaryEntryRow.SearchColumns.columns).from("diary_entries")
            .where("user_id", .equal, userID)
        if let editedSince { query = query.where("updated_at", .greaterThanOrEqual, editedSince) }
        let rows = try await query.all(decoding: DiaryEntryRow.SearchColumns.self)
        var records: [DiarySearchIndex.Record] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            let text = try box.openString(row.textSealed, context: Self.textContext(userID: userID, row.id))
            records.append(.init(id: row.id, date: UnixTime(seconds: row.entryAt).date, text: DiarySearch.normalize(text), updatedAt: row.updatedAt))
        }
        return records
    }

    public func entryIDs(userID: String) async throws -> [String] {
        try await database.sql.select().column("id").from("diary_entries").where("user_id", .equal, userID).all()
            .map { try $0.decode(column: "id", as: String.self) }
    }

    /// A cheap fingerprint of a user's diary, read from an index alone: it changes whenever an entry is
    /// added or removed, and when one is edited: the diary's change counter moves with every write, whichever
    /// instance made it and however close in time.
    public func searchFingerprint(userID: String) async throws -> DiarySearchIndex.Fingerprint {
        let row = try await database.sql.raw("""
            SELECT COUNT(*) AS n, COALESCE(MAX(updated_at), 0) AS u,
                   COALESCE((SELECT version FROM change_counters WHERE key = \(bind: ChangeCounters.diary(userID))), 0) AS v
            FROM diary_entries WHERE user_id = \(bind: userID)
            """).first()
        return .init(count: try row?.decode(column: "n", as: Int.self) ?? 0, latestUpdate: try row?.decode(column: "u", as: Int64.self) ?? 0,
                     version: try row?.decode(column: "v", as: Int64.self) ?? 0)
    }

    public func tags(userID: String) async throws -> [(tag: String, count: Int)] {
        try await database.sql.raw("""
            SELECT MIN(tag) AS tag, COUNT(*) AS n FROM diary_tags WHERE user_id = \(bind: userID) GROUP BY tag_key ORDER BY n DESC, tag_key
            """).all().map { (try $0.decode(column: "tag", as: String.self), try $0.decode(column: "n", as: Int.self)) }
    }

    func baseSelect(userID: String) -> SQLSelectBuilder {
        DiaryEntryRow.select(database.sql).where("user_id", .equal, userID)
    }

    static func seconds(_ date: Date) -> Int64 { Int64(saturating: date.timeIntervalSince1970) }

    /// Mood scores as the JSON text `mood_scores` holds.
    static func scoresText(_ scores: MoodScores?) throws -> String? {
        try scores.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    func apply(_ filter: Filter, to query: SQLSelectBuilder, userID: String) -> SQLSelectBuilder {
        var query = query
        if let mood = filter.mood { query = query.where("confirmed_mood", .equal, mood.rawValue) }
        if let from = filter.from { query = query.where("entry_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970)) }
        if let to = filter.to { query = query.where("entry_at", .lessThanOrEqual, Int64(saturating: to.timeIntervalSince1970)) }
        if let tag = filter.tag {
            query = query.where(SQLIdentifier("id"), .in, SQLGroupExpression(
                SQLQueryString("SELECT entry_id FROM diary_tags WHERE user_id = \(bind: userID) AND tag_key = \(bind: tag.lowercased())")))
        }
        return query
    }

    /// The entries of these rows, their text opened, with their tags and photos.
    func decode(_ rows: [DiaryEntryRow]) async throws -> [DiaryEntry] {
        guard !rows.isEmpty else { return [] }
        let ids = rows.map(\.id)
        var tags: [String: [String]] = [:]
        for row in try await DiaryTagRow.select(database.sql).where("entry_id", .in, ids).orderBy("tag").all(decoding: DiaryTagRow.self) {
            tags[row.entryID, default: []].append(row.tag)
        }
        var photos: [String: [DiaryPhoto]] = [:]
        for row in try await DiaryPhotoRow.select(database.sql).where("entry_id", .in, ids).orderBy("position").all(decoding: DiaryPhotoRow.self) {
            photos[row.entryID, default: []].append(row.photo)
        }
        return try rows.map { row in
            DiaryEntry(
                id: row.id, userID: row.userID,
                date: UnixTime(seconds: row.entryAt).date,
                text: try box.openString(row.textSealed, context: Self.textContext(userID: row.userID, row.id)),
                tags: tags[row.id] ?? [], moodScores: try row.moodScores.map { try JSONDecoder().decode(MoodScores.self, from: Data($0.utf8)) },
                confirmedMood: row.confirmedMood.flatMap(Mood.init(rawValue:)),
                hasPhoto: row.hasPhoto,
                createdAt: UnixTime(seconds: row.createdAt).date,
                updatedAt: UnixTime(seconds: row.updatedAt).date,
                photos: photos[row.id] ?? []
            )
        }
    }
}
