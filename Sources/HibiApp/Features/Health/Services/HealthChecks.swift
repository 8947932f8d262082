import SQLKit

extension CheckSchema {
    /// Health's rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: the profile form (HealthService: height 30 to 272 cm), ProfileUnits, ImportState, ReminderSchedule
    /// (a minute of the day), workout statistics that are never negative.
    static let healthRules: [Rule] = [
        Rule(table: "health_profiles", name: "health_profiles_units",
             check: among("weight_unit", ["kg", "lb"]) + " AND " + among("distance_unit", ["km", "mi"]) + " AND " + among("energy_unit", ["kcal", "kJ"]),
             repair: #""weight_unit" = CASE WHEN "weight_unit" IN ('kg', 'lb') THEN "weight_unit" ELSE 'kg' END, "distance_unit" = CASE WHEN "distance_unit" IN ('km', 'mi') THEN "distance_unit" ELSE 'km' END, "energy_unit" = CASE WHEN "energy_unit" IN ('kcal', 'kJ') THEN "energy_unit" ELSE 'kcal' END"#),
        Rule(table: "health_profiles", name: "health_profiles_height", check: #""height_cm" IS NULL OR "height_cm" > 0"#, repair: #""height_cm" = NULL"#),
        Rule(table: "health_profiles", name: "health_profiles_target_weight", check: #""target_weight_kg" IS NULL OR "target_weight_kg" > 0"#,
             repair: #""target_weight_kg" = NULL"#),
        Rule(table: "health_import_jobs", name: "health_import_jobs_state", check: among("state", ["queued", "running", "done", "failed"]),
             repair: #""state" = 'failed'"#),
        Rule(table: "health_import_jobs", name: "health_import_jobs_counts",
             check: #""total_bytes" >= 0 AND "bytes_done" >= 0 AND "inserted" >= 0 AND "duplicates" >= 0 AND "attempts" >= 0"#,
             repair: ["total_bytes", "bytes_done", "inserted", "duplicates", "attempts"]
                 .map { #""\#($0)" = CASE WHEN "\#($0)" < 0 THEN 0 ELSE "\#($0)" END"# }.joined(separator: ", ")),
        Rule(table: "health_reminders", name: "health_reminders_minute", check: #""minute_of_day" BETWEEN 0 AND 1439"#,
             repair: clamp("minute_of_day", "0", "1439")),
        Rule(table: "health_workouts", name: "health_workouts_statistics",
             check: #""duration_min" >= 0 AND ("distance_km" IS NULL OR "distance_km" >= 0) AND ("energy_kcal" IS NULL OR "energy_kcal" >= 0)"#,
             repair: #""duration_min" = CASE WHEN "duration_min" < 0 THEN 0 ELSE "duration_min" END, "distance_km" = CASE WHEN "distance_km" < 0 THEN NULL ELSE "distance_km" END, "energy_kcal" = CASE WHEN "energy_kcal" < 0 THEN NULL ELSE "energy_kcal" END"#),
        Rule(table: "health_workout_route_points", name: "health_workout_route_points_on_globe",
             check: #""lat" BETWEEN -90 AND 90 AND "lon" BETWEEN -180 AND 180"#, repair: nil),
    ]
}
