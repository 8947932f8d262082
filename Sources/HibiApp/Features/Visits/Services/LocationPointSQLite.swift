import NIOPosix
import VaporCSQLite

/// The SQLite side of `LocationPointStore` for a session whose `sqlite3` handle is reachable: one
/// single-row INSERT prepared once per batch and stepped per point, and the detection's read-back
/// stepped straight into `LocationPoint`s. Through SQLiteNIO every 1000-row statement was parsed and
/// planned anew with its binds carried as `SQLiteData`, and every row read back went through SQLKit's
/// decoder by column name. Same columns, same conflict rule, same order; the counts are SQLite's own.
enum LocationPointSQLite {
    static let insertText = "INSERT INTO location_points (user_id,source,import_id,recorded_at,latitude,longitude,accuracy) "
        + "VALUES (?1,?2,?3,?,?,?,?) ON CONFLICT (user_id,recorded_at,latitude,longitude) DO NOTHING"

    /// SQLITE_TRANSIENT: SQLite copies the bytes, so a Swift string's buffer need only live for the call.
    nonisolated(unsafe) private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func failure(_ db: OpaquePointer, _ code: Int32) -> SQLiteStepError {
        SQLiteStepError(db, code: code)
    }

    static func bind(_ statement: OpaquePointer, _ index: Int32, _ value: String?) -> Int32 {
        guard var value else { return sqlite_nio_sqlite3_bind_null(statement, index) }
        return value.withUTF8 { bytes in
            // An empty buffer may have no address, and a NULL pointer would bind NULL, not ''.
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite_nio_sqlite3_bind_text(statement, index, "", 0, transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite_nio_sqlite3_bind_text(statement, index, $0, Int32(bytes.count), transient)
            }
        }
    }

    /// Runs on NIO's thread pool: the calls block, and the cooperative threads serve everything else.
    static func insert(_ points: ArraySlice<LocationPoint>, userID: String, source: String, importID: String?,
                       handle: SQLiteRawHandle) async throws -> Int {
        let points = Array(points)
        return try await NIOThreadPool.singleton.runIfActive {
            try insertBlocking(points, userID: userID, source: source, importID: importID, db: handle.pointer)
        }
    }

    static func insertBlocking(_ points: [LocationPoint], userID: String, source: String, importID: String?, db: OpaquePointer) throws -> Int {
        var prepared: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v2(db, insertText, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(db, code) }
        defer { sqlite_nio_sqlite3_finalize(statement) }
        // Bindings outlive a reset: the three shared values are bound once.
        var bound = bind(statement, 1, userID)
        if bound == SQLITE_OK { bound = bind(statement, 2, source) }
        if bound == SQLITE_OK { bound = bind(statement, 3, importID) }
        guard bound == SQLITE_OK else { throw failure(db, bound) }
        var inserted = 0
        for p in points {
            bound = sqlite_nio_sqlite3_bind_int64(statement, 4, p.time)
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(statement, 5, p.latitude) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(statement, 6, p.longitude) }
            if bound == SQLITE_OK { bound = p.accuracy.map { sqlite_nio_sqlite3_bind_double(statement, 7, $0) } ?? sqlite_nio_sqlite3_bind_null(statement, 7) }
            guard bound == SQLITE_OK else { throw failure(db, bound) }
            let stepped = sqlite_nio_sqlite3_step(statement)
            guard stepped == SQLITE_DONE else {
                let error = failure(db, stepped)
                sqlite_nio_sqlite3_reset(statement)
                throw error
            }
            // 1 when the row went in, 0 when the identity key already held it.
            inserted += Int(sqlite_nio_sqlite3_changes64(db))
            sqlite_nio_sqlite3_reset(statement)
        }
        return inserted
    }

    static let selectFirst = "SELECT recorded_at, latitude, longitude FROM location_points WHERE user_id = ?1 AND recorded_at <= ?2 "
        + "AND recorded_at >= ?3 ORDER BY recorded_at, latitude, longitude LIMIT ?4"
    /// `recorded_at >= ?3` is implied by the OR that follows, and is there for the planner: without it the OR
    /// left the index range open below, and every page scanned the person's points from the first one (a
    /// million points read back in 50 pages stepped through 25 million index entries).
    static let selectAfter = "SELECT recorded_at, latitude, longitude FROM location_points WHERE user_id = ?1 AND recorded_at <= ?2 "
        + "AND recorded_at >= ?3 AND (recorded_at > ?3 OR (recorded_at = ?3 AND latitude > ?5) OR (recorded_at = ?3 AND latitude = ?5 AND longitude > ?6)) "
        + "ORDER BY recorded_at, latitude, longitude LIMIT ?4"

    /// The same page as `LocationPointStore.points`, read with the columns' own types.
    static func points(userID: String, from: Int64, to: Int64, after: (Int64, Double, Double)?, limit: Int,
                       handle: SQLiteRawHandle) async throws -> [LocationPoint] {
        try await NIOThreadPool.singleton.runIfActive {
            try pointsBlocking(userID: userID, from: from, to: to, after: after, limit: limit, db: handle.pointer)
        }
    }

    static func pointsBlocking(userID: String, from: Int64, to: Int64, after: (Int64, Double, Double)?, limit: Int,
                               db: OpaquePointer) throws -> [LocationPoint] {
        var prepared: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v2(db, after == nil ? selectFirst : selectAfter, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(db, code) }
        defer { sqlite_nio_sqlite3_finalize(statement) }
        var bound = bind(statement, 1, userID)
        if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(statement, 2, to) }
        if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(statement, 3, after?.0 ?? from) }
        if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(statement, 4, Int64(limit)) }
        if let after {
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(statement, 5, after.1) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(statement, 6, after.2) }
        }
        guard bound == SQLITE_OK else { throw failure(db, bound) }
        var out: [LocationPoint] = []
        out.reserveCapacity(min(limit, 1 << 16))
        while true {
            let stepped = sqlite_nio_sqlite3_step(statement)
            if stepped == SQLITE_DONE { break }
            guard stepped == SQLITE_ROW else { throw failure(db, stepped) }
            out.append(LocationPoint(time: sqlite_nio_sqlite3_column_int64(statement, 0), latitude: sqlite_nio_sqlite3_column_double(statement, 1),
                                     longitude: sqlite_nio_sqlite3_column_double(statement, 2)))
        }
        return out
    }
}
