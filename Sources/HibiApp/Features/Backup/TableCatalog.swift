import Foundation
import SQLKit

/// The tables a database has, read from the engine's own catalog, so a backup carries every table
/// (including ones other features add later) without a list to keep in step.
struct TableCatalog {
    struct Column: Equatable {
        let name: String
        let type: BackupColumnType
        let nullable: Bool
    }

    struct Table {
        let name: String
        let columns: [Column]
        let primaryKey: [String]
        /// Tables this one points to with foreign keys (itself excluded).
        let parents: Set<String>
    }

    /// Migration bookkeeping travels in the manifest; sessions and job leases (state of the running
    /// instances, not data) are never carried over.
    static let skippedTables: Set<String> = ["hibi_schema"]
    static let emptiedTables: Set<String> = ["sessions", "job_leases"]

    static func read(_ sql: any SQLDatabase, engine: DatabaseEngine) async throws -> [Table] {
        switch engine {
        case .sqlite: try await readSQLite(sql)
        case .postgres: try await readPostgres(sql)
        }
    }

    private static func readSQLite(_ sql: any SQLDatabase) async throws -> [Table] {
        let names = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .all().map { try $0.decode(column: "name", as: String.self) }
        var tables: [Table] = []
        for name in names {
            let info = try await sql.raw("SELECT \(unsafeRaw: SQLiteColumnInfoRow.selection) FROM pragma_table_info(\(bind: name)) ORDER BY cid")
                .all(decoding: SQLiteColumnInfoRow.self)
            var columns: [Column] = []
            var keyed: [(Int, String)] = []
            for row in info {
                columns.append(Column(name: row.name, type: sqliteType(row.type), nullable: row.notNull == 0))
                if row.pk > 0 { keyed.append((row.pk, row.name)) }
            }
            let parents = try await sql.raw("SELECT \"table\" AS parent FROM pragma_foreign_key_list(\(bind: name))").all()
                .map { try $0.decode(column: "parent", as: String.self) }
            tables.append(Table(name: name, columns: columns, primaryKey: keyed.sorted { $0.0 < $1.0 }.map(\.1),
                                parents: Set(parents).subtracting([name])))
        }
        return tables
    }

    /// SQLite's affinity rules, narrowed to the declared types Hibi's migrations use.
    static func sqliteType(_ declared: String) -> BackupColumnType {
        let type = declared.uppercased()
        if type.contains("BOOL") { return .boolean }
        if type.contains("INT") { return .integer }
        if type.contains("BLOB") || type.contains("BYTEA") || type.isEmpty { return .blob }
        if type.contains("REAL") || type.contains("DOUB") || type.contains("FLOA") { return .real }
        return .text
    }

    private static func readPostgres(_ sql: any SQLDatabase) async throws -> [Table] {
        let names = try await sql.raw("""
            SELECT table_name::text AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name
            """).all().map { try $0.decode(column: "name", as: String.self) }
        var tables: [Table] = []
        for name in names {
            let columns = try await sql.raw("""
                SELECT column_name::text AS name, data_type::text AS type, is_nullable::text AS nullable FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(bind: name) ORDER BY ordinal_position
                """).all(decoding: PostgresColumnRow.self).map { Column(name: $0.name, type: postgresType($0.type), nullable: $0.nullable == "YES") }
            let key = try await sql.raw("""
                SELECT k.column_name::text AS name FROM information_schema.table_constraints c
                JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema
                WHERE c.table_schema = current_schema() AND c.table_name = \(bind: name) AND c.constraint_type = 'PRIMARY KEY'
                ORDER BY k.ordinal_position
                """).all().map { try $0.decode(column: "name", as: String.self) }
            let parents = try await sql.raw("""
                SELECT DISTINCT u.table_name::text AS parent FROM information_schema.table_constraints c
                JOIN information_schema.constraint_column_usage u ON u.constraint_name = c.constraint_name AND u.table_schema = c.table_schema
                WHERE c.table_schema = current_schema() AND c.table_name = \(bind: name) AND c.constraint_type = 'FOREIGN KEY'
                """).all().map { try $0.decode(column: "parent", as: String.self) }
            tables.append(Table(name: name, columns: columns, primaryKey: key, parents: Set(parents).subtracting([name])))
        }
        return tables
    }

    static func postgresType(_ type: String) -> BackupColumnType {
        switch type {
        case "boolean": .boolean
        case "bigint", "integer", "smallint": .integer
        case "double precision", "real", "numeric": .real
        case "bytea": .blob
        default: .text
        }
    }

    /// Parents before children, so rows can be inserted with foreign keys checked as they go.
    static func insertionOrder(_ tables: [Table]) -> [Table] {
        var placed = Set<String>()
        var ordered: [Table] = []
        var remaining = tables.sorted { $0.name < $1.name }
        let known = Set(tables.map(\.name))
        while !remaining.isEmpty {
            let ready = remaining.filter { $0.parents.intersection(known).isSubset(of: placed) }
            // A cycle cannot be ordered; the rest go in name order and the engine's checks decide.
            let batch = ready.isEmpty ? remaining : ready
            for table in batch { placed.insert(table.name); ordered.append(table) }
            let names = Set(batch.map(\.name))
            remaining.removeAll { names.contains($0.name) }
        }
        return ordered
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
