import Foundation
import SQLKit
import SQLiteNIO
import Synchronization

/// SQL for location points, stays and stay settings. Every query is scoped by user id.
struct LocationPointStore: Sendable {
    static let pointColumns = ["user_id", "recorded_at", "latitude", "longitude", "accuracy", "source", "import_id"]
    static let pointIdentity = ["user_id", "recorded_at", "latitude", "longitude"]
    /// 7 binds a row: 1000 rows stay under SQLite's and PostgreSQL's bind limits.
    static let rowsPerStatement = 1000

    /// Inserts what is new; returns how many rows were really added (the rest were already stored).
    static func insert(_ points: ArraySlice<LocationPoint>, userID: String, source: String, importID: String?,
                       on sql: any SQLDatabase) async throws -> Int {
        if let session = sql as? SQLiteSession, let handle = session.rawHandle {
            return try await LocationPointSQLite.insert(points, userID: userID, source: source, importID: importID, handle: handle)
        }
        var inserted = 0
        var start = points.startIndex
        while start < points.endIndex {
            let end = min(start + rowsPerStatement, points.endIndex)
            let chunk = points[start..<end]
            if let session = sql as? SQLiteSession {
                inserted += try await insertOnSQLite(chunk, userID: userID, source: source, importID: importID, on: session)
            } else {
                let builder = sql.insert(into: "location_points").columns(pointColumns)
                for p in chunk {
                    builder.values(SQLBind(userID), SQLBind(p.time), SQLBind(p.latitude), SQLBind(p.longitude), SQLBind(p.accuracy),
                                   SQLBind(source), SQLBind(importID))
                }
                // PostgreSQL: RETURNING tells what was really inserted.
                inserted += try await builder.ignoringConflicts(with: pointIdentity).returning("recorded_at").all().count
            }
            start = end
        }
        return inserted
    }

    /// The same statement as text with SQLite values bound directly; the count comes from `changes()`.
    static func insertOnSQLite(_ points: ArraySlice<LocationPoint>, userID: String, source: String, importID: String?,
                               on session: SQLiteSession) async throws -> Int {
        let row = "(?,?,?,?,?,?,?)"
        let text = "INSERT INTO location_points (\(pointColumns.joined(separator: ","))) VALUES "
            + Array(repeating: row, count: points.count).joined(separator: ",")
            + " ON CONFLICT (\(pointIdentity.joined(separator: ","))) DO NOTHING"
        var binds: [SQLiteData] = []
        binds.reserveCapacity(points.count * pointColumns.count)
        for p in points {
            binds += [.text(userID), .integer(SQLiteInt64(p.time)), .float(p.latitude), .float(p.longitude), p.accuracy.map { .float($0) } ?? .null,
                      .text(source), importID.map { .text($0) } ?? .null]
        }
        try await session.connection.query(text, binds) { _ in }
        let changed = Mutex(0)
        try await session.connection.query("SELECT changes()", []) { row in
            changed.withLock { $0 = Int(row.column("changes()")?.integer ?? 0) }
        }
        return changed.withLock { $0 }
    }

    /// Points in [from, to] in time order, `limit` at a time after `after` (keyset paging, so a
    /// million points are read in steps of bounded memory).
    static func points(userID: String, from: Int64, to: Int64, after: (Int64, Double, Double)?, limit: Int,
                       on sql: any SQLDatabase) async throws -> [LocationPoint] {
        if sql is PooledSQLiteDatabase || sql is SQLiteSession {
            let read = try await sql.withSession { session -> [LocationPoint]? in
                guard let handle = (session as? SQLiteSession)?.rawHandle else { return nil }
                return try await LocationPointSQLite.points(userID: userID, from: from, to: to, after: after, limit: limit, handle: handle)
            }
            if let read { return read }
        }
        var query = sql.select().columns("recorded_at", "latitude", "longitude").from("location_points")
            .where("user_id", .equal, userID).where("recorded_at", .lessThanOrEqual, to)
        if let (time, lat, lon) = after {
            // (t, lat, lon) > (time, lat, lon), spelled out for both engines; the plain lower bound first, so the
            // index range starts at the page's first second instead of the person's first point.
            query = query.where("recorded_at", .greaterThanOrEqual, time).where { group in
                group.where("recorded_at", .greaterThan, time)
                    .orWhere { g in g.where("recorded_at", .equal, time).where("latitude", .greaterThan, lat) }
                    .orWhere { g in g.where("recorded_at", .equal, time).where("latitude", .equal, lat).where("longitude", .greaterThan, lon) }
            }
        } else {
            query = query.where("recorded_at", .greaterThanOrEqual, from)
        }
        return try await query.orderBy("recorded_at").orderBy("latitude").orderBy("longitude").limit(limit).all().map { row in
            LocationPoint(time: try row.decode(column: "recorded_at", as: Int64.self), latitude: try row.decode(column: "latitude", as: Double.self),
                          longitude: try row.decode(column: "longitude", as: Double.self))
        }
    }

    /// Whether any point is stored (one index probe, not a count of millions).
    static func hasPoints(userID: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("user_id").from("location_points").where("user_id", .equal, userID).limit(1).first() != nil
    }

    static func pointCount(userID: String, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM location_points WHERE user_id = \(bind: userID)").first()
            .map { Int(try $0.decode(column: "n", as: Int64.self)) } ?? 0
    }

    // MARK: stays

    static let stayColumns = ["id", "user_id", "arrival", "departure", "latitude", "longitude", "point_count", "name", "status", "visit_id",
                              "source", "created_at", "decided_at"]

    static func decodeStay(_ row: any SQLRow) throws -> DetectedStay {
        DetectedStay(id: try row.decode(column: "id", as: String.self), arrival: try row.date("arrival"), departure: try row.date("departure"),
                     latitude: try row.decode(column: "latitude", as: Double.self), longitude: try row.decode(column: "longitude", as: Double.self),
                     pointCount: Int(try row.decode(column: "point_count", as: Int64.self)), name: try row.decode(column: "name", as: String.self),
                     status: StayStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .open,
                     visitId: try row.decode(column: "visit_id", as: String?.self), source: try row.decode(column: "source", as: String.self))
    }

    /// Takes back what one import stored (every point at one second: kept out of the history).
    static func deleteImport(_ importID: String, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.delete(from: "location_points").where("user_id", .equal, userID).where("import_id", .equal, importID).run()
    }

    static func insertStay(_ stay: DetectedStay, userID: String, now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.insert(into: "location_stays").columns(stayColumns).values(
            SQLBind(stay.id), SQLBind(userID), SQLBind(Int64(saturating: stay.arrival.timeIntervalSince1970)), SQLBind(Int64(saturating: stay.departure.timeIntervalSince1970)),
            SQLBind(stay.latitude), SQLBind(stay.longitude), SQLBind(Int64(stay.pointCount)), SQLBind(stay.name), SQLBind(stay.status.rawValue),
            SQLBind(stay.visitId), SQLBind(stay.source), SQLBind(Int64(saturating: now.timeIntervalSince1970)),
            SQLBind(stay.status == .merged ? Int64(saturating: now.timeIntervalSince1970) : Int64?.none)
        ).ignoringConflicts(with: ["user_id", "arrival"]).returning("id").all().count == 1
    }

    /// Stays of this person overlapping [from, to].
    static func overlappingStays(userID: String, from: Int64, to: Int64, on sql: any SQLDatabase) async throws -> [DetectedStay] {
        try await sql.select().columns(stayColumns.map { SQLIdentifier($0) }).from("location_stays")
            .where("user_id", .equal, userID).where("arrival", .lessThanOrEqual, to).where("departure", .greaterThanOrEqual, from)
            .all().map(decodeStay)
    }

    static func stays(userID: String, status: StayStatus?, limit: Int, on sql: any SQLDatabase) async throws -> [DetectedStay] {
        var query = sql.select().columns(stayColumns.map { SQLIdentifier($0) }).from("location_stays").where("user_id", .equal, userID)
        if let status { query = query.where("status", .equal, status.rawValue) }
        return try await query.orderBy("arrival", .descending).limit(limit).all().map(decodeStay)
    }

    static func stay(id: String, userID: String, on sql: any SQLDatabase) async throws -> DetectedStay? {
        try await sql.select().columns(stayColumns.map { SQLIdentifier($0) }).from("location_stays")
            .where("id", .equal, id).where("user_id", .equal, userID).first().map(decodeStay)
    }

    /// Moves an open stay to `status`; false when it was no longer open (someone decided first).
    static func decide(id: String, userID: String, status: StayStatus, visitID: String?, now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.update("location_stays").set("status", to: status.rawValue).set("visit_id", to: visitID)
            .set("decided_at", to: Int64(saturating: now.timeIntervalSince1970))
            .where("id", .equal, id).where("user_id", .equal, userID).where("status", .equal, StayStatus.open.rawValue)
            .returning("id").all().count == 1
    }

    static func latestDeparture(userID: String, on sql: any SQLDatabase) async throws -> Int64? {
        try await sql.raw("SELECT MAX(departure) AS d FROM location_stays WHERE user_id = \(bind: userID)").first()
            .flatMap { try $0.decode(column: "d", as: Int64?.self) }
    }

    // MARK: settings

    static func settings(userID: String, on sql: any SQLDatabase) async throws -> StaySettings {
        guard let row = try await sql.select().columns("distance_m", "duration_min").from("location_settings").where("user_id", .equal, userID).first()
        else { return .standard }
        return StaySettings(distanceMeters: try row.decode(column: "distance_m", as: Double.self),
                            durationMinutes: Int(try row.decode(column: "duration_min", as: Int64.self)))
    }

    static func setSettings(_ settings: StaySettings, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "location_settings").columns("user_id", "distance_m", "duration_min")
            .values(SQLBind(userID), SQLBind(settings.distanceMeters), SQLBind(Int64(settings.durationMinutes)))
            .onConflict(with: ["user_id"]) { $0.set(excludedValueOf: "distance_m").set(excludedValueOf: "duration_min") }.run()
    }

    static func liveSince(userID: String, on sql: any SQLDatabase) async throws -> Int64? {
        try await sql.select().columns("live_since").from("location_settings").where("user_id", .equal, userID).first()
            .flatMap { try $0.decode(column: "live_since", as: Int64?.self) }
    }

    /// Keeps the person's settings (the defaults when they never set any) and records the live window's start.
    static func setLiveSince(_ time: Int64, settings: StaySettings, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "location_settings").columns("user_id", "distance_m", "duration_min", "live_since")
            .values(SQLBind(userID), SQLBind(settings.distanceMeters), SQLBind(Int64(settings.durationMinutes)), SQLBind(time))
            .onConflict(with: ["user_id"]) { $0.set(excludedValueOf: "live_since") }.run()
    }

    // MARK: visits, for merging and naming

    struct NearbyVisit: Sendable {
        var id: String
        var name: String
        var latitude: Double
        var longitude: Double
        var at: Int64

        var place: StayOffer.Place { StayOffer.Place(id: id, name: name, latitude: latitude, longitude: longitude, time: at) }
    }

    /// The box `visitsNear` looks in (also `LocationPointSQLite.offer`'s).
    static func nearBox(latitude: Double, longitude: Double, meters: Double) -> (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        let dLat = meters / 111_000
        let dLon = meters / max(1000, 111_000 * cos(latitude * .pi / 180))
        return (latitude - dLat, latitude + dLat, longitude - dLon, longitude + dLon)
    }

    /// Live visits within a box around a point (and, if given, a time range): a cheap first cut before the distance.
    static func visitsNear(userID: String, latitude: Double, longitude: Double, meters: Double, from: Int64? = nil, to: Int64? = nil,
                           on sql: any SQLDatabase) async throws -> [NearbyVisit] {
        let box = nearBox(latitude: latitude, longitude: longitude, meters: meters)
        var query = sql.select().columns("id", "name", "latitude", "longitude", "visited_at").from("visits")
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .where("latitude", .greaterThanOrEqual, box.minLat).where("latitude", .lessThanOrEqual, box.maxLat)
            .where("longitude", .greaterThanOrEqual, box.minLon).where("longitude", .lessThanOrEqual, box.maxLon)
        if let from { query = query.where("visited_at", .greaterThanOrEqual, from) }
        if let to { query = query.where("visited_at", .lessThanOrEqual, to) }
        return try await query.orderBy("visited_at", .descending).limit(200).all().map { row in
            NearbyVisit(id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                        latitude: try row.decode(column: "latitude", as: Double.self), longitude: try row.decode(column: "longitude", as: Double.self),
                        at: try row.decode(column: "visited_at", as: Int64.self))
        }
    }
}
