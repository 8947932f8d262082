import SQLKit

enum HealthSchema {
    /// The identity index starts with (user_id, type, start_at), so it already serves every query by
    /// type and time; the separate index only cost a fourth B-tree write per imported record.
    static let dropRedundantIndex = Migration(version: 8, name: "health-drop-redundant-index") { sql, _ in
        try await sql.drop(index: "health_records_user_type_start").ifExists().run()
    }

    /// How many runs an import job started: a job that stopped the process twice is not resumed a third time.
    static let importAttempts = Migration(version: 9, name: "health-import-attempts") { sql, _ in
        try await sql.alter(table: "health_import_jobs").column("attempts", type: .bigint, .notNull, .default(SQLLiteral.numeric("0"))).run()
    }

    /// HRV became a type Hibi knows by name: records an export stored under Apple's identifier (already in
    /// ms, the canonical unit) take the name, so trends read them and a re-import finds them already there.
    static let heartRateVariability = Migration(version: 28, name: "health-heart-rate-variability") { sql, _ in
        try await sql.raw("""
            UPDATE health_records SET type = 'heartRateVariability'
            WHERE type = 'HKQuantityTypeIdentifierHeartRateVariabilitySDNN' AND unit = 'ms'
            """).run()
    }

    static let migration = Migration(version: 2, name: "health") { sql, _ in
        try await sql.create(table: "health_records")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("type", type: .text, .notNull)
            .column("value", type: .double, .notNull)
            .column("category", type: .text, .notNull)
            .column("unit", type: .text, .notNull)
            .column("start_at", type: .bigint, .notNull)
            .column("end_at", type: .bigint, .notNull)
            .column("source", type: .text, .notNull)
            .column("device", type: .text, .notNull)
            .column("details", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .run()
        // The duplicate rule: same type, time span, value and originating device is the same measurement.
        try await sql.create(index: "health_records_identity").unique().on("health_records")
            .column("user_id").column("type").column("start_at").column("end_at").column("value").column("category").column("device")
            .run()
        try await sql.create(index: "health_records_user_type_start").on("health_records")
            .column("user_id").column("type").column("start_at").run()
        try await sql.create(index: "health_records_user_start").on("health_records")
            .column("user_id").column("start_at").run()

        try await sql.create(table: "health_profiles")
            .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
            .column("name_sealed", type: .blob)
            .column("birth_date", type: .text)
            .column("height_cm", type: .double)
            .column("target_weight_kg", type: .double)
            .column("weight_unit", type: .text, .notNull)
            .column("distance_unit", type: .text, .notNull)
            .column("energy_unit", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()

        try await sql.create(table: "health_goals")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("type", type: .text, .notNull)
            .column("target_value", type: .double, .notNull)
            .column("deadline", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("start_value", type: .double)
            .column("achieved_at", type: .bigint)
            .run()
        try await sql.create(index: "health_goals_user").on("health_goals").column("user_id").run()

        try await sql.create(table: "health_badges")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("badge_key", type: .text, .notNull)
            .column("earned_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "health_badges_user_key").unique().on("health_badges").column("user_id").column("badge_key").run()

        try await sql.create(table: "health_import_jobs")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("kind", type: .text, .notNull)
            .column("state", type: .text, .notNull)
            .column("file_name", type: .text, .notNull)
            .column("fingerprint", type: .text, .notNull)
            .column("total_bytes", type: .bigint, .notNull)
            .column("bytes_done", type: .bigint, .notNull)
            .column("checkpoint", type: .bigint, .notNull)
            .column("inserted", type: .bigint, .notNull)
            .column("duplicates", type: .bigint, .notNull)
            .column("error_en", type: .text)
            .column("error_ja", type: .text)
            .column("upload_path", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("finished_at", type: .bigint)
            .run()
        try await sql.create(index: "health_import_jobs_user").on("health_import_jobs").column("user_id").run()

        try await sql.create(table: "health_reminders")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("minute_of_day", type: .bigint, .notNull)
            .column("weekdays", type: .text, .notNull)
            .column("message", type: .text, .notNull)
            .column("webhook_url", type: .text)
            .column("last_sent_slot", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "health_reminders_user").on("health_reminders").column("user_id").run()
    }
}
