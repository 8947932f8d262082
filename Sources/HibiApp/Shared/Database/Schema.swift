import SQLKit

/// Every table Hibi has, as versioned steps. Conventions that keep one SQL text valid on both engines:
/// ids are text UUIDs (no autoincrement differences), times are Unix seconds in BIGINT,
/// encrypted values are BLOB/BYTEA, booleans use SQLKit's `.bool`.
public enum Schema {
    /// The platform's own steps: the people and their sessions and tokens, instance secrets, job leases, and the
    /// two steps that added constraints across every feature's tables. Each feature declares its own
    /// (`Feature.migrations`); the assembly merges them all into one sequence by version (`Schema.all`, App/).
    static var platform: [Migration] {
        [AccountsSchema.migration, AccountsSchema.rememberedDevices, AccountsSchema.tokenScopes, InstanceSecretsSchema.migration,
         JobLeaseSchema.heartbeat, IntegritySchema.migration, CheckSchema.migration]
    }
}

/// The first tables: settings, and the people with their sessions, API tokens and sign-in failures (Shared
/// reads `users` and `settings`, so they are created here rather than in a feature's folder).
enum AccountsSchema {
    static let migration = Migration(version: 1, name: "accounts") { sql, _ in
        try await sql.create(table: "settings")
            .column("key", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .text, .notNull)
            .run()
        try await sql.create(table: "users")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("username", type: .text, .notNull, .unique)
            .column("display_name", type: .text, .notNull)
            .column("password_hash", type: .text, .notNull)
            .column("is_admin", type: .boolean, .notNull)
            .column("disabled", type: .boolean, .notNull)
            .column("language", type: .text)
            .column("time_zone", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("password_changed_at", type: .bigint, .notNull)
            .run()
        try await sql.create(table: "sessions")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("csrf_token", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("last_seen_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("unlocked_at", type: .bigint)
            .run()
        try await sql.create(index: "sessions_user").on("sessions").column("user_id").run()
        try await sql.create(table: "api_tokens")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("name", type: .text, .notNull)
            .column("token_hash", type: .text, .notNull, .unique)
            .column("prefix", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("last_used_at", type: .bigint)
            .run()
        try await sql.create(index: "api_tokens_user").on("api_tokens").column("user_id").run()
        try await sql.create(table: "login_failures")
            .column("subject", type: .text, .primaryKey(autoIncrement: false))
            .column("failures", type: .bigint, .notNull)
            .column("last_failure_at", type: .bigint, .notNull)
            .column("locked_until", type: .bigint)
            .run()
    }

    /// Browsers a user asked to remember at sign-in; only the token's SHA-256 is stored, like sessions.
    static let rememberedDevices = Migration(version: 7, name: "remembered-devices") { sql, _ in
        try await sql.create(table: "remembered_devices")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("token_hash", type: .text, .notNull, .unique)
            .column("label", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("last_used_at", type: .bigint)
            .column("expires_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "remembered_devices_user").on("remembered_devices").column("user_id").run()
    }

    /// Token scopes. Tokens made before keep read and write but not the diary, which they could read
    /// even while the diary was locked: a new token with the diary scope needs the password or an unlocked diary.
    static let tokenScopes = Migration(version: 10, name: "token-scopes") { sql, _ in
        try await sql.alter(table: "api_tokens").column("scopes", type: .text, .notNull, .default(SQLLiteral.string("read,write"))).run()
    }
}

extension SQLDataType {
    /// SQLKit has no boolean type; both engines accept BOOLEAN (SQLite stores 0/1 under it).
    static var boolean: SQLDataType { .custom(SQLRaw("BOOLEAN")) }

    /// 8-byte floats on both engines (SQLKit's `.real` is single precision on PostgreSQL): coordinates, measurements.
    static var double: SQLDataType { .custom(SQLRaw("DOUBLE PRECISION")) }
}
