import Foundation
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

    static let nearbyVisits = "SELECT id, name, latitude, longitude, visited_at FROM visits WHERE user_id = ?1 AND deleted_at IS NULL "
        + "AND latitude >= ?2 AND latitude <= ?3 AND longitude >= ?4 AND longitude <= ?5 ORDER BY visited_at DESC LIMIT 200"
    static let insertStay = "INSERT INTO location_stays (id,user_id,arrival,departure,latitude,longitude,point_count,name,status,visit_id,source,"
        + "created_at,decided_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (user_id,arrival) DO NOTHING"

    /// `LocationService.offerEach` inside its transaction: per stay the same visits query as `LocationPointStore.visitsNear`
    /// and the same insert as `insertStay`, each prepared once, on one thread instead of three trips through the pool.
    static func offer(_ candidates: [StayCandidate], stored: [LocationService.StoredStay], settings: StaySettings, userID: String, source: String,
                      now: Date, handle: SQLiteRawHandle) async throws -> [LocationService.OfferOutcome] {
        try await NIOThreadPool.singleton.runIfActive {
            try offerBlocking(candidates, stored: stored, settings: settings, userID: userID, source: source, now: now, db: handle.pointer)
        }
    }

    static func prepare(_ db: OpaquePointer, _ text: String) throws -> OpaquePointer {
        var prepared: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v2(db, text, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(db, code) }
        return statement
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite_nio_sqlite3_column_text(statement, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite_nio_sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }

    static func offerBlocking(_ candidates: [StayCandidate], stored: [LocationService.StoredStay], settings: StaySettings, userID: String,
                              source: String, now: Date, db: OpaquePointer) throws -> [LocationService.OfferOutcome] {
        let visits = try prepare(db, nearbyVisits)
        defer { sqlite_nio_sqlite3_finalize(visits) }
        let insert = try prepare(db, insertStay)
        defer { sqlite_nio_sqlite3_finalize(insert) }
        var stored = stored
        var outcomes: [LocationService.OfferOutcome] = []
        let near = StayOffer.sameplace(settings)
        let created = Int64(saturating: now.timeIntervalSince1970)
        for stay in candidates {
            let box = LocationPointStore.nearBox(latitude: stay.latitude, longitude: stay.longitude, meters: near)
            var bound = bind(visits, 1, userID)
            for (index, value) in [box.minLat, box.maxLat, box.minLon, box.maxLon].enumerated() where bound == SQLITE_OK {
                bound = sqlite_nio_sqlite3_bind_double(visits, Int32(index + 2), value)
            }
            guard bound == SQLITE_OK else { throw failure(db, bound) }
            var places: [StayOffer.Place] = []
            while true {
                let stepped = sqlite_nio_sqlite3_step(visits)
                if stepped == SQLITE_DONE { break }
                guard stepped == SQLITE_ROW else {
                    sqlite_nio_sqlite3_reset(visits)
                    throw failure(db, stepped)
                }
                places.append(StayOffer.Place(id: text(visits, 0), name: text(visits, 1), latitude: sqlite_nio_sqlite3_column_double(visits, 2),
                                              longitude: sqlite_nio_sqlite3_column_double(visits, 3), time: sqlite_nio_sqlite3_column_int64(visits, 4)))
            }
            sqlite_nio_sqlite3_reset(visits)
            guard let row = LocationService.stayRow(stay, settings: settings, storedStays: stored, visits: places, source: source) else {
                outcomes.append(.known)
                continue
            }
            let (arrival, departure, latitude, longitude) = LocationService.storedStay(row)
            bound = bind(insert, 1, row.id)
            if bound == SQLITE_OK { bound = bind(insert, 2, userID) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(insert, 3, arrival) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(insert, 4, departure) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(insert, 5, latitude) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_double(insert, 6, longitude) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(insert, 7, Int64(row.pointCount)) }
            if bound == SQLITE_OK { bound = bind(insert, 8, row.name) }
            if bound == SQLITE_OK { bound = bind(insert, 9, row.status.rawValue) }
            if bound == SQLITE_OK { bound = bind(insert, 10, row.visitId) }
            if bound == SQLITE_OK { bound = bind(insert, 11, source) }
            if bound == SQLITE_OK { bound = sqlite_nio_sqlite3_bind_int64(insert, 12, created) }
            if bound == SQLITE_OK { bound = row.status == .merged ? sqlite_nio_sqlite3_bind_int64(insert, 13, created) : sqlite_nio_sqlite3_bind_null(insert, 13) }
            guard bound == SQLITE_OK else { throw failure(db, bound) }
            let stepped = sqlite_nio_sqlite3_step(insert)
            guard stepped == SQLITE_DONE else {
                let error = failure(db, stepped)
                sqlite_nio_sqlite3_reset(insert)
                throw error
            }
            let inserted = sqlite_nio_sqlite3_changes64(db) == 1
            sqlite_nio_sqlite3_reset(insert)
            if inserted {
                outcomes.append(row.status == .merged ? .merged : .offered)
                stored.append((arrival, departure, latitude, longitude))
            } else {
                outcomes.append(.known)
            }
        }
        return outcomes
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
