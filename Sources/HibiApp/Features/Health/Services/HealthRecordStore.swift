import Foundation
import SQLKit
import SQLiteNIO
import Synchronization

/// Records in SQL, always scoped to one user.
public struct HealthRecordStore: Sendable {
    let database: Database

    static let columns = ["id", "user_id", "type", "value", "category", "unit", "start_at", "end_at", "source", "device", "details", "created_at"]
    static let identity = ["user_id", "type", "start_at", "end_at", "value", "category", "device"]

    /// Inserts what is new and skips duplicates; returns how many rows were really added.
    /// Runs on `sql`, so callers can put it inside their transaction. Every writer of `health_records` comes
    /// here (manual entry, CSV, the Apple Health export, Health Auto Export, takeout). One statement for both
    /// engines, SQLKit's, except on a SQLite session whose handle is reachable: there `HealthRecordSQLite`
    /// prepares one INSERT and steps it per record, because the multi-row statement, parsed anew for every
    /// 800 rows, was 12% of a 1 GB export import's writer thread (perf; Benchmarks/health-import.sh).
    static func insert(_ drafts: some Collection<HealthRecordDraft>, userID: String, source: DataSource, now: Date,
                       on sql: any SQLDatabase) async throws -> Int {
        guard !drafts.isEmpty else { return 0 }
        let created = Int64(saturating: now.timeIntervalSince1970)
        if let session = sql as? SQLiteSession, let handle = session.rawHandle {
            return try await HealthRecordSQLite.insert(Array(drafts), userID: userID, source: source.rawValue, created: created,
                                                       ids: HealthRecordIDs(now: now), handle: handle)
        }
        var inserted = 0
        // 12 binds a row; 800 rows stay under SQLite's and PostgreSQL's bind limits.
        var chunk: [HealthRecordDraft] = []
        chunk.reserveCapacity(800)
        func flush() async throws {
            guard !chunk.isEmpty else { return }
            // The portable statement (PostgreSQL, and SQLite should its handle not be reachable); RETURNING tells
            // what was really inserted.
            let builder = sql.insert(into: "health_records").columns(columns)
            for d in chunk {
                builder.values(SQLBind(TimeOrderedID.make(now: now)), SQLBind(userID), SQLBind(d.type), SQLBind(d.value), SQLBind(d.category),
                               SQLBind(d.unit), SQLBind(d.start), SQLBind(d.end), SQLBind(source.rawValue), SQLBind(d.device),
                               SQLBind(d.details), SQLBind(created))
            }
            inserted += try await builder.ignoringConflicts(with: identity).returning("id").all().count
            chunk.removeAll(keepingCapacity: true)
        }
        for draft in drafts {
            chunk.append(draft)
            if chunk.count == 800 { try await flush() }
        }
        try await flush()
        return inserted
    }

    /// `columns` without the three bound once per statement on SQLite, in the order each row binds them.
    static let sqliteRowColumns = ["id", "type", "value", "category", "unit", "start_at", "end_at", "device", "details"]

    public func insert(_ drafts: [HealthRecordDraft], userID: String, source: DataSource, now: Date) async throws -> Int {
        try await database.transaction { sql in try await Self.insert(drafts, userID: userID, source: source, now: now, on: sql) }
    }

    public struct Filter: Sendable {
        public var type: String?
        public var from: Date?
        public var to: Date?
        public var limit: Int = 100
        public var offset: Int = 0
        public init(type: String? = nil, from: Date? = nil, to: Date? = nil, limit: Int = 100, offset: Int = 0) {
            self.type = type
            self.from = from
            self.to = to
            self.limit = limit
            self.offset = offset
        }
    }

    public func list(userID: String, filter: Filter) async throws -> [HealthRecord] {
        let query = database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("health_records")
            .where("user_id", .equal, userID)
        if let type = filter.type { query.where("type", .equal, type) }
        if let from = filter.from { query.where("start_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970)) }
        if let to = filter.to { query.where("start_at", .lessThanOrEqual, Int64(saturating: to.timeIntervalSince1970)) }
        return try await query.orderBy("start_at", .descending).orderBy("id").limit(filter.limit).offset(filter.offset)
            .all().map(Self.decode)
    }

    public func find(id: String, userID: String) async throws -> HealthRecord? {
        try await database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("health_records")
            .where("id", .equal, id).where("user_id", .equal, userID).first().map(Self.decode)
    }

    public func update(_ record: HealthRecord, userID: String) async throws {
        do {
            try await database.sql.update("health_records")
                .set("type", to: record.type).set("value", to: record.value).set("unit", to: record.unit)
                .set("start_at", to: Int64(saturating: record.start.timeIntervalSince1970)).set("end_at", to: Int64(saturating: record.end.timeIntervalSince1970))
                .where("id", .equal, record.id).where("user_id", .equal, userID).run()
        } catch where DatabaseErrors.isUniqueViolation(error) {
            throw HealthError.duplicate
        }
    }

    public func delete(id: String, userID: String) async throws -> Bool {
        let rows = try await database.sql.delete(from: "health_records").where("id", .equal, id).where("user_id", .equal, userID)
            .returning("id").all()
        return !rows.isEmpty
    }

    /// (instant, value) of one type in a time window, for trends and goals.
    /// The first and last start of the person's records of a type, nil without any.
    public func span(userID: String, type: String) async throws -> (first: Int64, last: Int64)? {
        guard let row = try await database.sql.select()
            .column(SQLFunction("MIN", args: SQLColumn("start_at")), as: "first")
            .column(SQLFunction("MAX", args: SQLColumn("start_at")), as: "last")
            .from("health_records").where("user_id", .equal, userID).where("type", .equal, type).first(),
            let first = try row.decodeNil(column: "first") ? nil : row.decode(column: "first", as: Int64.self),
            let last = try row.decodeNil(column: "last") ? nil : row.decode(column: "last", as: Int64.self) else { return nil }
        return (first, last)
    }

    public func samples(userID: String, type: String, from: Int64, to: Int64) async throws -> [TrendAnalyzer.Sample] {
        try await database.sql.select().columns(HealthRecordRow.Sample.columns).from("health_records")
            .where("user_id", .equal, userID).where("type", .equal, type)
            .where("start_at", .greaterThanOrEqual, from).where("start_at", .lessThanOrEqual, to)
            .orderBy("start_at").all(decoding: HealthRecordRow.Sample.self).map(\.sample)
    }

    /// What sums add up instead of `value`: a stored value beyond ±1e15 (which no import or form accepts, so only an old
    /// import or a hand edit can have left it) counts as nothing. PostgreSQL refuses a SUM that passes the largest double
    /// ("value out of range: overflow", every page with the sum answered 500) and SQLite returns infinity, which JSON cannot
    /// carry; terms of at most 1e15 cannot reach either in any table that fits on a disk.
    static let summableValue = "(CASE WHEN value BETWEEN -1e15 AND 1e15 THEN value ELSE 0 END)"

    public func sum(userID: String, type: String, from: Int64, to: Int64) async throws -> Double {
        let row = try await database.sql.select().column(SQLFunction("SUM", args: SQLRaw(Self.summableValue)), as: "total").from("health_records")
            .where("user_id", .equal, userID).where("type", .equal, type)
            .where("start_at", .greaterThanOrEqual, from).where("start_at", .lessThanOrEqual, to).first()
        return (try row?.decode(column: "total", as: Double?.self)) ?? 0
    }

    public func latest(userID: String, type: String, ascending: Bool = false) async throws -> HealthRecord? {
        try await database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("health_records")
            .where("user_id", .equal, userID).where("type", .equal, type)
            .orderBy("start_at", ascending ? .ascending : .descending).limit(1).first().map(Self.decode)
    }

    public func count(userID: String) async throws -> Int {
        let row = try await database.sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("health_records")
            .where("user_id", .equal, userID).first()
        return (try row?.decode(column: "n", as: Int.self)) ?? 0
    }

    /// Distinct quarter-hours with a record: enough to place every record on its local day in any
    /// time zone (offsets are multiples of 15 minutes) without reading millions of rows.
    /// Streamed row by row: years of Apple Health data hold hundreds of thousands of quarter hours, and
    /// only the numbers are kept, not a row object for each.
    public func activeQuarterHours(userID: String) async throws -> [Int64] {
        let quarters = Mutex<[Int64]>([])
        try await database.sql.raw("SELECT DISTINCT start_at / 900 AS q FROM health_records WHERE user_id = \(bind: userID)")
            .run { row in
                if let q = try? row.decode(column: "q", as: Int64.self) { quarters.withLock { $0.append(q * 900) } }
            }
        return quarters.withLock { $0 }
    }

    public func types(userID: String) async throws -> [String] {
        try await database.sql.raw("SELECT DISTINCT type FROM health_records WHERE user_id = \(bind: userID) ORDER BY type")
            .all().map { try $0.decode(column: "type", as: String.self) }
    }

    static func decode(_ row: any SQLRow) throws -> HealthRecord {
        try row.decode(model: HealthRecordRow.self).record
    }
}
