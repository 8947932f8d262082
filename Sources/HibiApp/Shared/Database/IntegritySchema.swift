import SQLKit

/// Rules the database keeps by itself, so a bug or a hand edit cannot store what the app would refuse:
/// a diary tag belongs to an existing person (a foreign key it lacked), a diary lock lasts 1 to 1440
/// minutes, a video rating is 1 to 5 stars, and a playback position or play count is never negative.
/// PostgreSQL adds constraints in place; SQLite cannot, so each table is rebuilt from its own CREATE
/// statement with the constraints appended, its rows copied and its indexes made again.
enum IntegritySchema {
    struct Rule {
        let table: String
        let name: String
        let definition: String
    }

    static let rules = [
        Rule(table: "diary_tags", name: "diary_tags_user_fk",
             definition: #"FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE"#),
        Rule(table: "diary_settings", name: "diary_settings_lock_minutes", definition: #"CHECK ("lock_minutes" BETWEEN 1 AND 1440)"#),
        Rule(table: "video_user_data", name: "video_user_data_rating", definition: #"CHECK ("rating" IS NULL OR "rating" BETWEEN 1 AND 5)"#),
        Rule(table: "video_user_data", name: "video_user_data_counts", definition: #"CHECK ("position_ms" >= 0 AND "play_count" >= 0)"#),
    ]

    static let migration = Migration(version: 19, name: "integrity-constraints") { sql, engine in
        // Rows the rules would refuse can only come from outside the app; they are made to fit, never
        // dropped, except tags whose person no longer exists (nobody can see them).
        try await sql.raw(#"DELETE FROM "diary_tags" WHERE "user_id" NOT IN (SELECT "id" FROM "users")"#).run()
        try await sql.raw(#"UPDATE "diary_settings" SET "lock_minutes" = 10 WHERE "lock_minutes" < 1 OR "lock_minutes" > 1440"#).run()
        try await sql.raw(#"UPDATE "video_user_data" SET "rating" = NULL WHERE "rating" < 1 OR "rating" > 5"#).run()
        try await sql.raw(#"UPDATE "video_user_data" SET "position_ms" = 0 WHERE "position_ms" < 0"#).run()
        try await sql.raw(#"UPDATE "video_user_data" SET "play_count" = 0 WHERE "play_count" < 0"#).run()
        switch engine {
        case .postgres:
            for rule in rules {
                try await sql.raw("ALTER TABLE \(ident: rule.table) ADD CONSTRAINT \(ident: rule.name) \(unsafeRaw: rule.definition)").run()
            }
        case .sqlite:
            for table in Set(rules.map(\.table)).sorted() {
                try await rebuildSQLite(sql, table: table,
                                        constraints: rules.filter { $0.table == table }.map { "CONSTRAINT \"\($0.name)\" \($0.definition)" })
            }
        }
    }

    /// SQLite's documented way to change a table's constraints: a new table from the old definition plus
    /// the constraints, the rows copied, the old one dropped, the new one renamed, the indexes recreated.
    static func rebuildSQLite(_ sql: any SQLDatabase, table: String, constraints: [String]) async throws {
        guard let create = try await sql.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = \(bind: table)").first()?
                  .decode(column: "sql", as: String.self),
              let close = create.lastIndex(of: ")"),
              let nameRange = create.range(of: "\"\(table)\"") ?? create.range(of: table) else {
            throw MigrationError.unexpectedSchema("table \(table) has no readable definition")
        }
        let indexes = try await sql.raw("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = \(bind: table) AND sql IS NOT NULL")
            .all().map { try $0.decode(column: "sql", as: String.self) }
        // Dropping a table others point at with foreign keys on deletes their rows: such a rebuild must run
        // with them off (`Migration.foreignKeysOff`), and stops here rather than lose anything.
        let keysOn = try await sql.raw("PRAGMA foreign_keys").first()?.decode(column: "foreign_keys", as: Int.self) == 1
        if keysOn, try await sql.raw("""
            SELECT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND f."table" = \(bind: table) LIMIT 1
            """).first() != nil {
            throw MigrationError.unexpectedSchema("table \(table) is rebuilt with foreign keys on while other tables point at it")
        }
        let temporary = "\(table)__rebuilt"
        var definition = create
        definition.replaceSubrange(close..<definition.endIndex, with: ", " + constraints.joined(separator: ", ") + ")")
        definition.replaceSubrange(nameRange, with: "\"\(temporary)\"")
        try await sql.raw("\(unsafeRaw: definition)").run()
        try await sql.raw("INSERT INTO \(ident: temporary) SELECT * FROM \(ident: table)").run()
        try await sql.raw("DROP TABLE \(ident: table)").run()
        try await sql.raw("ALTER TABLE \(ident: temporary) RENAME TO \(ident: table)").run()
        for index in indexes { try await sql.raw("\(unsafeRaw: index)").run() }
    }
}

enum MigrationError: Error, CustomStringConvertible {
    case unexpectedSchema(String)

    var description: String {
        switch self {
        case let .unexpectedSchema(detail): "The database schema is not what this version of Hibi expects: \(detail)."
        }
    }
}
