import Foundation
import SQLKit

/// SQL for location points, stays and stay settings. Every query is scoped by user id.
struct LocationPointStore: Sendable {
    /// 7 binds a row: 1000 rows stay under SQLite's and PostgreSQL's bind limits.
    static let rowsPerStatement = 1000

    /// Inserts what is new; returns how many rows were really added (the rest were already stored). Every writer of
    /// `location_points` comes here (location files of every format, phones' live feeds, workout routes, a takeout read back). One statement
    /// for both engines, SQLKit's `LocationPointRow.insert`, except on a SQLite session whose handle is reachable: there
    /// `LocationPointSQLite` prepares one single-row INSERT per batch and steps it per point. That second path pays:
    /// `Benchmarks/locations.sh` (release build, BENCH_SIZE=full; docs/benchmarks.md) stores a million-point GPX track and
    /// finds its 1,388 stays in 3.0 s of CPU, 3.79x the plain-Python reference (sqlite3, the same unique key) on the same
    /// file; it came with 9d73f53, which with a faster GPX reader took that import from 22.9 s to 6.3 s on a loaded machine.
    static func insert(_ points: ArraySlice<LocationPoint>, userID: String, source: String, importID: String?,
                       on sql: any SQLDatabase) async throws -> Int {
        if let session = sql as? SQLiteSession, let handle = session.rawHandle {
            return try await LocationPointSQLite.insert(points, userID: userID, source: source, importID: importID, handle: handle)
        }
        var inserted = 0
        var start = points.startIndex
        while start < points.endIndex {
            let end = min(start + rowsPerStatement, points.endIndex)
            let rows = points[start..<end].map {
                LocationPointRow(userID: userID, recordedAt: $0.time, latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy,
                                 source: source, importID: importID)
            }
            // RETURNING tells what was really inserted.
            inserted += try await LocationPointRow.insert(rows, into: sql).ignoringConflicts(with: LocationPointRow.identity.map(\.stringValue))
                .returning("recorded_at").all().count
            start = end
        }
        return inserted
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
        var query = sql.select().columns("recorded_at", "latitude", "longitude").from(LocationPointRow.table)
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
        return try await query.orderBy("recorded_at").orderBy("latitude").orderBy("longitude").limit(limit)
            .all(decoding: LocationPointRow.Position.self).map(\.point)
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

    /// Takes back what one import stored (every point at one second: kept out of the history).
    static func deleteImport(_ importID: String, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.delete(from: "location_points").where("user_id", .equal, userID).where("import_id", .equal, importID).run()
    }

    /// Stores a stay unless one of this person's stays arrives at the same second; true when it was stored. The portable
    /// writer of `location_stays`; SQLite's import runs the same insert prepared once (`LocationPointSQLite.offer`), which
    /// pays: a query per stay for the visits nearby and this insert committed alone, each through the pool, were 1.5 s of a
    /// million-point GPX import's 4.9 s of CPU (1,388 stays; perf, release build; see `LocationService.offerEach`).
    static func insertStay(_ stay: DetectedStay, userID: String, now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await LocationStayRow.insert([LocationStayRow(stay, userID: userID, now: now)], into: sql)
            .ignoringConflicts(with: ["user_id", "arrival"]).returning("id").all().count == 1
    }

    /// Stays of this person overlapping [from, to].
    static func overlappingStays(userID: String, from: Int64, to: Int64, on sql: any SQLDatabase) async throws -> [DetectedStay] {
        try await LocationStayRow.select(sql)
            .where("user_id", .equal, userID).where("arrival", .lessThanOrEqual, to).where("departure", .greaterThanOrEqual, from)
            .all(decoding: LocationStayRow.self).map(\.stay)
    }

    static func stays(userID: String, status: StayStatus?, limit: Int, on sql: any SQLDatabase) async throws -> [DetectedStay] {
        var query = LocationStayRow.select(sql).where("user_id", .equal, userID)
        if let status { query = query.where("status", .equal, status.rawValue) }
        return try await query.orderBy("arrival", .descending).limit(limit).all(decoding: LocationStayRow.self).map(\.stay)
    }

    static func stay(id: String, userID: String, on sql: any SQLDatabase) async throws -> DetectedStay? {
        try await LocationStayRow.select(sql).where("id", .equal, id).where("user_id", .equal, userID).first(decoding: LocationStayRow.self)?.stay
    }

    /// Moves an open stay to `status`; false when it was no longer open (someone decided first).
    static func decide(id: String, userID: String, status: StayStatus, visitID: String?, now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.update(LocationStayRow.table).set("status", to: status.rawValue).set("visit_id", to: visitID)
            .set("decided_at", to: Int64(saturating: now.timeIntervalSince1970))
            .where("id", .equal, id).where("user_id", .equal, userID).where("status", .equal, StayStatus.open.rawValue)
            .returning("id").all().count == 1
    }

    static func latestDeparture(userID: String, on sql: any SQLDatabase) async throws -> Int64? {
        try await sql.raw("SELECT MAX(departure) AS d FROM location_stays WHERE user_id = \(bind: userID)").first()
            .flatMap { try $0.decode(column: "d", as: Int64?.self) }
    }

    // MARK: settings

    static func settingsRow(userID: String, on sql: any SQLDatabase) async throws -> LocationSettingsRow? {
        try await LocationSettingsRow.select(sql).where("user_id", .equal, userID).first(decoding: LocationSettingsRow.self)
    }

    static func settings(userID: String, on sql: any SQLDatabase) async throws -> StaySettings {
        try await settingsRow(userID: userID, on: sql)?.settings ?? .standard
    }

    /// The one writer of `location_settings`: stores the row, or when the person has one, sets `updating` of it (the
    /// settings page sets the distance and duration, the live feed its window's start, neither the other's).
    static func writeSettings(_ row: LocationSettingsRow, updating: [LocationSettingsRow.CodingKeys], on sql: any SQLDatabase) async throws {
        try await LocationSettingsRow.insert([row], into: sql)
            .onConflict(with: ["user_id"]) { update in updating.reduce(update) { $0.set(excludedValueOf: $1.stringValue) } }.run()
    }

    static func setSettings(_ settings: StaySettings, userID: String, on sql: any SQLDatabase) async throws {
        try await writeSettings(LocationSettingsRow(userID: userID, distanceM: settings.distanceMeters, durationMin: Int64(settings.durationMinutes)),
                                updating: [.distanceM, .durationMin], on: sql)
    }

    static func liveSince(userID: String, on sql: any SQLDatabase) async throws -> Int64? {
        try await settingsRow(userID: userID, on: sql)?.liveSince
    }

    /// Keeps the person's settings (the defaults when they never set any) and records the live window's start.
    static func setLiveSince(_ time: Int64, settings: StaySettings, userID: String, on sql: any SQLDatabase) async throws {
        try await writeSettings(LocationSettingsRow(userID: userID, distanceM: settings.distanceMeters, durationMin: Int64(settings.durationMinutes),
                                                    liveSince: time),
                                updating: [.liveSince], on: sql)
    }

    // MARK: visits, for merging and naming

    /// The box `visitsNear` looks in (also `LocationPointSQLite.offer`'s).
    static func nearBox(latitude: Double, longitude: Double, meters: Double) -> (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        let dLat = meters / 111_000
        let dLon = meters / max(1000, 111_000 * cos(latitude * .pi / 180))
        return (latitude - dLat, latitude + dLat, longitude - dLon, longitude + dLon)
    }

    /// Live visits within a box around a point (and, if given, a time range): a cheap first cut before the distance.
    static func visitsNear(userID: String, latitude: Double, longitude: Double, meters: Double, from: Int64? = nil, to: Int64? = nil,
                           on sql: any SQLDatabase) async throws -> [StayOffer.Place] {
        let box = nearBox(latitude: latitude, longitude: longitude, meters: meters)
        var query = sql.select().columns(VisitRow.Marker.columns).from(VisitRow.table)
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .where("latitude", .greaterThanOrEqual, box.minLat).where("latitude", .lessThanOrEqual, box.maxLat)
            .where("longitude", .greaterThanOrEqual, box.minLon).where("longitude", .lessThanOrEqual, box.maxLon)
        if let from { query = query.where("visited_at", .greaterThanOrEqual, from) }
        if let to { query = query.where("visited_at", .lessThanOrEqual, to) }
        return try await query.orderBy("visited_at", .descending).limit(200).all(decoding: VisitRow.Marker.self).map(\.place)
    }
}
