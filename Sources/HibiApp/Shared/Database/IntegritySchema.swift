import SQLKit

/// Migration 19: rules the database keeps by itself, so a bug or a hand edit cannot store what the app would
/// refuse. Each feature declares its part beside its own schema (Diary's and Videos' `*Checks.swift`: a diary tag
/// belongs to an existing person, a diary lock lasts 1 to 1440 minutes, a video rating is 1 to 5 stars, a playback
/// position or play count is never negative); the step runs every part's repairs, then adds every part's
/// constraints. PostgreSQL adds constraints in place; SQLite cannot, so each table is rebuilt from its own CREATE
/// statement with the constraints appended, its rows copied and its indexes made again.
enum IntegritySchema {
    struct Rule {
        let table: String
        let name: String
        let definition: String
    }

    /// One feature's share of the step: statements that make rows the rules would refuse fit (run first, in
    /// order), and the rules.
    struct Part {
        let repairs: [String]
        let rules: [Rule]
    }

    /// The parts in the order the step has always run them (a step that ran is never changed).
    static var parts: [Part] { [diaryPart, videosPart] }

    static var rules: [Rule] { parts.flatMap(\.rules) }

    static let migration = Migration(version: 19, name: "integrity-constraints") { sql, engine in
        // Rows the rules would refuse can only come from outside the app; each part makes them fit, never
        // dropping any, except rows nobody can see (a tag whose person no longer exists).
        for repair in parts.flatMap(\.repairs) {
            try await sql.raw("\(unsafeRaw: repair)").run()
        }
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
