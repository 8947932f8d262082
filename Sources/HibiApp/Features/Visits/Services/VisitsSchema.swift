import SQLKit

enum VisitsSchema {
    /// The head the webhook last acknowledged, kept to catch records cut off the end of the log.
    static let acknowledgedHead = Migration(version: 11, name: "visits-acknowledged-head") { sql, _ in
        try await sql.alter(table: "visit_chain_heads").column("webhook_seq", type: .bigint).run()
        try await sql.alter(table: "visit_chain_heads").column("webhook_hash", type: .text).run()
    }

    /// Visits, their encrypted photos, and each user's signed chain of changes.
    static let migration = Migration(version: 3, name: "visits") { sql, _ in
        try await sql.create(table: "visits")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("visited_at", type: .bigint, .notNull)
            .column("latitude", type: .double, .notNull)
            .column("longitude", type: .double, .notNull)
            .column("accuracy", type: .double)
            .column("altitude", type: .double)
            .column("simulated", type: .boolean, .notNull)
            .column("name", type: .text, .notNull)
            .column("address", type: .text)
            .column("labels", type: .text, .notNull)
            .column("group_name", type: .text)
            .column("companions", type: .text, .notNull)
            .column("notes", type: .text, .notNull)
            .column("photos", type: .text, .notNull)
            .column("revision", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            // Set on deletion; the row stays as a tombstone so the chain and the table keep agreeing.
            .column("deleted_at", type: .bigint)
            .run()
        try await sql.create(index: "visits_user_time").on("visits").column("user_id").column("visited_at").run()
        try await sql.create(table: "visit_photos")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("visit_id", type: .text, .notNull, .references("visits", "id", onDelete: .cascade))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("content_type", type: .text, .notNull)
            .column("data", type: .blob, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "visit_photos_visit").on("visit_photos").column("visit_id").run()
        // No foreign key to visits: the chain must outlive anything done to the table it vouches for.
        try await sql.create(table: "visit_chain")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("seq", type: .bigint, .notNull)
            .column("visit_id", type: .text, .notNull)
            .column("action", type: .text, .notNull)
            .column("body", type: .text, .notNull)
            .column("hash", type: .text, .notNull)
            .column("signature", type: .text, .notNull)
            .run()
        try await sql.create(index: "visit_chain_user_seq").on("visit_chain").column("user_id").column("seq").unique().run()
        try await sql.create(table: "visit_chain_heads")
            .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
            .column("seq", type: .bigint, .notNull)
            .column("hash", type: .text, .notNull)
            .column("webhook_url", type: .text)
            .column("webhook_status", type: .text)
            .column("webhook_at", type: .bigint)
            .run()
    }
}

