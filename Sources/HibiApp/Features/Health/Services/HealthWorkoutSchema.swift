import SQLKit

extension HealthSchema {
    /// Migration 22: what an Apple Health import did (the job's `ImportReport` as JSON), workouts with
    /// their statistics, and the points of their routes.
    static let workoutsAndReports = Migration(version: 22, name: "health-workouts-routes-reports") { sql, _ in
        try await sql.alter(table: "health_import_jobs").column("report", type: .text).run()
        try await sql.create(table: "health_workouts")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("activity", type: .text, .notNull)
            .column("start_at", type: .bigint, .notNull)
            .column("end_at", type: .bigint, .notNull)
            .column("duration_min", type: .double, .notNull)
            .column("distance_km", type: .double)
            .column("energy_kcal", type: .double)
            .column("device", type: .text, .notNull)
            .column("details", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "health_workouts_user_start").on("health_workouts").column("user_id").column("start_at").run()
        try await sql.create(table: "health_workout_route_points")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("workout_id", type: .text, .notNull, .references("health_workouts", "id", onDelete: .cascade))
            .column("t", type: .bigint, .notNull)
            .column("lat", type: .double, .notNull)
            .column("lon", type: .double, .notNull)
            .column("ele", type: .double)
            .run()
        // The same instant at the same place is the same point: a re-import counts it as a duplicate.
        try await sql.create(index: "health_workout_route_points_identity").unique().on("health_workout_route_points")
            .column("workout_id").column("t").column("lat").column("lon").run()
        try await sql.create(index: "health_workout_route_points_user").on("health_workout_route_points").column("user_id").column("t").run()
    }
}
