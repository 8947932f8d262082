import NIOPosix
import VaporCSQLite

/// The SQLite side of `HealthRecordStore.insert` for a session whose `sqlite3` handle is reachable: one
/// single-row INSERT prepared once per call and stepped per record, values bound straight from the drafts.
/// The multi-row statement it replaces was parsed and planned anew for every 800 rows (12% of a 1 GB
/// import's writer thread, perf) and carried its binds through `SQLiteData`. Same columns, same conflict
/// rule (`ON CONFLICT (identity) DO NOTHING`), and the count is what SQLite really inserted.
enum HealthRecordSQLite {
    static let text = "INSERT INTO health_records (user_id,source,created_at,"
        + HealthRecordStore.sqliteRowColumns.joined(separator: ",") + ") VALUES (?1,?2,?3,"
        + Array(repeating: "?", count: HealthRecordStore.sqliteRowColumns.count).joined(separator: ",")
        + ") ON CONFLICT (" + HealthRecordStore.identity.joined(separator: ",") + ") DO NOTHING"

    /// SQLITE_TRANSIENT: SQLite copies the bytes, so a Swift string's buffer need only live for the call.
    nonisolated(unsafe) private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Runs on NIO's thread pool: the calls block, and the cooperative threads serve everything else.
    static func insert(_ drafts: [HealthRecordDraft], userID: String, source: String, created: Int64, ids: HealthRecordIDs,
                       handle: SQLiteRawHandle) async throws -> Int {
        try await NIOThreadPool.singleton.runIfActive {
            var ids = ids
            return try insertBlocking(drafts, userID: userID, source: source, created: created, ids: &ids, db: handle.pointer)
        }
    }

    static func insertBlocking(_ drafts: [HealthRecordDraft], userID: String, source: String, created: Int64,
                               ids: inout HealthRecordIDs, db: OpaquePointer) throws -> Int {
        var statement: OpaquePointer?
        func failure(_ code: Int32) -> SQLiteStepError { SQLiteStepError(db, code: code) }
        let prepared = sqlite_nio_sqlite3_prepare_v2(db, text, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        defer { sqlite_nio_sqlite3_finalize(statement) }

        func bind(_ index: Int32, _ value: String) -> Int32 {
            var value = value
            return value.withUTF8 { bytes in
                // An empty buffer may have no address, and a NULL pointer would bind NULL, not ''.
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite_nio_sqlite3_bind_text(statement, index, "", 0, transient) }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite_nio_sqlite3_bind_text(statement, index, $0, Int32(bytes.count), transient)
                }
            }
        }
        // Bindings outlive a reset: the three shared values are bound once.
        var code = bind(1, userID)
        if code == SQLITE_OK { code = bind(2, source) }
        if code == SQLITE_OK { code = sqlite_nio_sqlite3_bind_int64(statement, 3, created) }
        guard code == SQLITE_OK else { throw failure(code) }

        var inserted = 0
        for d in drafts {
            code = bind(4, ids.next())
            if code == SQLITE_OK { code = bind(5, d.type) }
            if code == SQLITE_OK { code = sqlite_nio_sqlite3_bind_double(statement, 6, d.value) }
            if code == SQLITE_OK { code = bind(7, d.category) }
            if code == SQLITE_OK { code = bind(8, d.unit) }
            if code == SQLITE_OK { code = sqlite_nio_sqlite3_bind_int64(statement, 9, d.start) }
            if code == SQLITE_OK { code = sqlite_nio_sqlite3_bind_int64(statement, 10, d.end) }
            if code == SQLITE_OK { code = bind(11, d.device) }
            if code == SQLITE_OK { code = d.details.map { bind(12, $0) } ?? sqlite_nio_sqlite3_bind_null(statement, 12) }
            guard code == SQLITE_OK else { throw failure(code) }
            let stepped = sqlite_nio_sqlite3_step(statement)
            guard stepped == SQLITE_DONE else {
                let error = failure(stepped)
                sqlite_nio_sqlite3_reset(statement)
                throw error
            }
            // 1 when the row went in, 0 when the identity index already held it.
            inserted += Int(sqlite_nio_sqlite3_changes64(db))
            sqlite_nio_sqlite3_reset(statement)
        }
        return inserted
    }
}
