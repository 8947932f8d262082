import SQLKit

enum LocationSchema {
    /// Raw location history per person (tracks, Takeout, phones), the stays found in it, and each
    /// person's stay settings. A point is the same point when person, second and position agree, so a
    /// file imported twice counts its points as duplicates.
    static let migration = Migration(version: 23, name: "location-history") { sql, _ in
        try await sql.create(table: "location_points")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("recorded_at", type: .bigint, .notNull)
            .column("latitude", type: .double, .notNull)
            .column("longitude", type: .double, .notNull)
            .column("accuracy", type: .double)
            .column("source", type: .text, .notNull)
            .column("import_id", type: .text)
            // The identity is the key: it orders a person's points by time for detection and for backups.
            .primaryKey("user_id", "recorded_at", "latitude", "longitude")
            .run()
        try await sql.create(table: "location_stays")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("arrival", type: .bigint, .notNull)
            .column("departure", type: .bigint, .notNull)
            .column("latitude", type: .double, .notNull)
            .column("longitude", type: .double, .notNull)
            .column("point_count", type: .bigint, .notNull)
            .column("name", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            // No foreign key: a confirmed stay keeps saying which visit it became even if that visit is deleted.
            .column("visit_id", type: .text)
            .column("source", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("decided_at", type: .bigint)
            .run()
        try await sql.create(index: "location_stays_user_arrival").on("location_stays").column("user_id").column("arrival").unique().run()
        try await sql.create(table: "location_settings")
            .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
            .column("distance_m", type: .double, .notNull)
            .column("duration_min", type: .bigint, .notNull)
            // Where the live feed's undecided window starts: the next batch re-reads points from here only.
            .column("live_since", type: .bigint)
            .run()
    }
}
