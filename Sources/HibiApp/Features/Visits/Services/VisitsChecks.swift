import SQLKit

extension CheckSchema {
    /// `StayStatus` as of this migration, spelled out (compared with the enum by CheckSchemaTests).
    static let stayStatuses = ["open", "confirmed", "dismissed", "merged"]

    /// Visits' rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: VisitRules (coordinates, accuracy 0 to 1,000,000 m, a name), StayStatus, StaySettings' ranges,
    /// the readers' coordinate checks.
    static let visitsRules: [Rule] = [
        Rule(table: "visits", name: "visits_on_globe", check: onGlobe, repair: onGlobeRepair),
        Rule(table: "visits", name: "visits_accuracy", check: #""accuracy" IS NULL OR "accuracy" >= 0"#, repair: #""accuracy" = NULL"#),
        Rule(table: "visits", name: "visits_name_not_empty", check: #""name" <> ''"#, repair: #""name" = '?'"#),
        Rule(table: "location_points", name: "location_points_on_globe", check: onGlobe, repair: nil),
        Rule(table: "location_points", name: "location_points_accuracy", check: #""accuracy" IS NULL OR "accuracy" >= 0"#, repair: #""accuracy" = NULL"#),
        Rule(table: "location_stays", name: "location_stays_on_globe", check: onGlobe, repair: onGlobeRepair),
        Rule(table: "location_stays", name: "location_stays_status", check: among("status", stayStatuses),
             repair: #""status" = 'open'"#),
        Rule(table: "location_stays", name: "location_stays_span", check: #""departure" >= "arrival" AND "point_count" >= 0"#,
             repair: #""departure" = CASE WHEN "departure" < "arrival" THEN "arrival" ELSE "departure" END, "point_count" = CASE WHEN "point_count" < 0 THEN 0 ELSE "point_count" END"#),
        Rule(table: "location_settings", name: "location_settings_ranges",
             check: #""distance_m" BETWEEN 10 AND 5000 AND "duration_min" BETWEEN 1 AND 1440"#,
             repair: clamp("distance_m", "10", "5000") + ", " + clamp("duration_min", "1", "1440")),
    ]
}
