import Foundation
import SQLKit

/// A workout as stored: what the journal, the map and the workouts API read.
public struct HealthWorkout: Sendable, Equatable, Codable {
    public var id: String
    public var activity: String
    public var start: Date
    public var end: Date
    public var durationMinutes: Double
    public var distanceKm: Double?
    public var energyKcal: Double?
    public var device: String
    public var details: String?

    /// Metres climbed, as the import that made the workout recorded it (Strava's export, Health Auto Export).
    public var elevationGainM: Double? { detail("elevationAscentM") }
    /// Average and highest heart rate over the workout, in beats per minute.
    public var heartRateAverage: Double? { detail("heartRateAvg") }
    public var heartRateMax: Double? { detail("heartRateMax") }

    private func detail(_ key: String) -> Double? {
        guard let details, let object = try? JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any] else { return nil }
        let value = (object[key] as? String).flatMap(Double.init) ?? (object[key] as? NSNumber)?.doubleValue
        return value.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }
}

/// Workouts and their route points, always scoped to one user.
public struct HealthWorkoutStore: Sendable {
    let database: Database

    /// Inserts the workouts that are new (their ids are derived from what they are, so a re-import
    /// conflicts on the key); returns how many were added.
    static func insert(_ workouts: [AppleHealthWorkout], userID: String, now: Date, on sql: any SQLDatabase) async throws -> Int {
        guard !workouts.isEmpty else { return 0 }
        var added = 0
        for start in stride(from: 0, to: workouts.count, by: 500) {
            let builder = sql.insert(into: "health_workouts")
                .columns("id", "user_id", "activity", "start_at", "end_at", "duration_min", "distance_km", "energy_kcal", "device", "details", "created_at")
            for w in workouts[start..<min(start + 500, workouts.count)] {
                builder.values(SQLBind(w.id(userID: userID)), SQLBind(userID), SQLBind(w.activity), SQLBind(w.record.start), SQLBind(w.record.end),
                               SQLBind(w.durationMinutes), SQLBind(w.distanceKm), SQLBind(w.energyKcal), SQLBind(w.record.device),
                               SQLBind(w.record.details), SQLBind(Int64(saturating: now.timeIntervalSince1970)))
            }
            added += try await builder.ignoringConflicts(with: ["id"]).returning("id").all().count
        }
        return added
    }

    /// Inserts route points of one workout, skipping those already stored; returns how many were added.
    static func insertPoints(_ points: some Collection<WorkoutRoutePoint>, workoutID: String, userID: String, on sql: any SQLDatabase) async throws -> Int {
        var added = 0
        var chunk: [WorkoutRoutePoint] = []
        chunk.reserveCapacity(500)
        func flush() async throws {
            guard !chunk.isEmpty else { return }
            let builder = sql.insert(into: "health_workout_route_points").columns("user_id", "workout_id", "t", "lat", "lon", "ele")
            for p in chunk { builder.values(SQLBind(userID), SQLBind(workoutID), SQLBind(p.t), SQLBind(p.lat), SQLBind(p.lon), SQLBind(p.ele)) }
            added += try await builder.ignoringConflicts(with: ["workout_id", "t", "lat", "lon"]).returning("t").all().count
            chunk.removeAll(keepingCapacity: true)
        }
        for point in points {
            chunk.append(point)
            if chunk.count == 500 { try await flush() }
        }
        try await flush()
        return added
    }

    /// Whether the workout exists for this user (route files only attach to a workout of their owner).
    public func exists(id: String, userID: String) async throws -> Bool {
        try await database.sql.select().column("id").from("health_workouts").where("id", .equal, id).where("user_id", .equal, userID).first() != nil
    }

    /// Workouts that started in [from, to), oldest first, at most `limit`.
    public func list(userID: String, from: Int64, to: Int64, limit: Int = 500) async throws -> [HealthWorkout] {
        try await database.sql.select().column("*").from("health_workouts").where("user_id", .equal, userID)
            .where("start_at", .greaterThanOrEqual, from).where("start_at", .lessThan, to)
            .orderBy("start_at").orderBy("id").limit(limit).all().map(Self.decode)
    }

    /// Workouts with a stored route that started in [from, to), newest first, at most `limit`.
    public func listWithRoutes(userID: String, from: Int64, to: Int64, limit: Int) async throws -> [HealthWorkout] {
        try await database.sql.raw("""
            SELECT * FROM health_workouts w WHERE w.user_id = \(bind: userID) AND w.start_at >= \(bind: from) AND w.start_at < \(bind: to)
            AND EXISTS (SELECT 1 FROM health_workout_route_points p WHERE p.workout_id = w.id)
            ORDER BY w.start_at DESC, w.id DESC LIMIT \(bind: limit)
            """).all().map(Self.decode)
    }

    /// All of a person's workouts a page at a time, oldest first, after the (start, id) given.
    public func page(userID: String, after: (start: Int64, id: String)?, limit: Int) async throws -> [HealthWorkout] {
        var query = database.sql.select().column("*").from("health_workouts").where("user_id", .equal, userID)
        if let after {
            query = query.where { group in
                group.where("start_at", .greaterThan, after.start)
                    .orWhere { g in g.where("start_at", .equal, after.start).where("id", .greaterThan, after.id) }
            }
        }
        return try await query.orderBy("start_at").orderBy("id").limit(limit).all().map(Self.decode)
    }

    public func find(id: String, userID: String) async throws -> HealthWorkout? {
        try await database.sql.select().column("*").from("health_workouts").where("id", .equal, id).where("user_id", .equal, userID)
            .first().map(Self.decode)
    }

    /// The route of one workout in time order (empty when it has none or is not the user's). Scoped to the
    /// user through the workout's row: a condition on the points' own `user_id` made SQLite choose the
    /// (user_id, t) index and walk every route point the person has, for each workout (100 routes of
    /// 3,600 points took 17 s of CPU for the map; through the workout, the identity index finds them).
    public func route(workoutID: String, userID: String, limit: Int = 200_000) async throws -> [WorkoutRoutePoint] {
        try await database.sql.raw("""
            SELECT p.t AS t, p.lat AS lat, p.lon AS lon, p.ele AS ele FROM health_workout_route_points p
            JOIN health_workouts w ON w.id = p.workout_id
            WHERE p.workout_id = \(bind: workoutID) AND w.user_id = \(bind: userID) ORDER BY p.t LIMIT \(bind: limit)
            """).all(decoding: HealthWorkoutRoutePointRow.self).map(\.point)
    }

    static func decode(_ row: any SQLRow) throws -> HealthWorkout {
        try row.decode(model: HealthWorkoutRow.self).workout
    }
}
