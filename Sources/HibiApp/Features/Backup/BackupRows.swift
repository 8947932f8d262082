import Foundation
import SQLKit

// Backup's own table's row (`backup_runs`), and the catalog rows Backup reads several columns of (issue 30, item 3):
// each engine's description of its own tables, decoded by SQLKit like the feature tables' rows. A list of names (one
// column) is still read column by column, and so are the cells a backup copies (`BackupPostgresCopy.values(of:table:)`):
// their table and type are only known from the catalog at run time, so no row type can name them.

/// A row of `backup_runs`.
struct BackupRunRow: TableRow {
    static let table = "backup_runs"
    var id: String
    var startedAt: Int64
    var finishedAt: Int64?
    var fileName: String
    var bytes: Int64?
    var verified: Bool
    var error: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, startedAt = "started_at", finishedAt = "finished_at", fileName = "file_name", bytes, verified, error
    }
}

extension BackupRunRow {
    var run: BackupRun {
        BackupRun(id: id, startedAt: UnixTime(seconds: startedAt).date, finishedAt: finishedAt.map { UnixTime(seconds: $0).date },
                  fileName: fileName, bytes: bytes, verified: verified, error: error)
    }
}

/// A row of SQLite's `pragma_table_info(table)`: one column of a table, its declared type, NOT NULL (1 or 0) and place in
/// the primary key (0 when not in it). Selected with `selection`: `notnull` is a keyword and is renamed `nn`.
struct SQLiteColumnInfoRow: Decodable, Sendable {
    static let selection = "name, type, \"notnull\" AS nn, pk"
    var name: String
    var type: String
    var notNull: Int
    var pk: Int

    enum CodingKeys: String, CodingKey {
        case name, type, notNull = "nn", pk
    }
}

/// A row of SQLite's `pragma_index_list(table)`: an index of a table, unique or not (1 or 0), made by whom (`c` CREATE INDEX,
/// `u` UNIQUE, `pk` PRIMARY KEY) and partial or not. Selected with `selection`: `unique` is a keyword and is renamed `u`.
struct SQLiteIndexListRow: Decodable, Sendable {
    static let selection = "name, \"unique\" AS u, origin, partial"
    var name: String
    var unique: Int
    var origin: String
    var partial: Int

    enum CodingKeys: String, CodingKey {
        case name, unique = "u", origin, partial
    }
}

/// A row of SQLite's `PRAGMA foreign_key_list(table)`: a foreign key's column, the table and column it points to (NULL
/// when it names the parent's primary key) and its actions.
struct SQLiteForeignKeyRow: Decodable, Sendable {
    var from: String
    var table: String
    var to: String?
    var onDelete: String
    var onUpdate: String

    enum CodingKeys: String, CodingKey {
        case from, table, to, onDelete = "on_delete", onUpdate = "on_update"
    }
}

/// A row of SQLite's `PRAGMA foreign_key_check`: a row whose parent is missing, named by its table and the parent's.
struct SQLiteForeignKeyCheckRow: Decodable, Sendable {
    var table: String?
    var parent: String?
}

/// A row of `sqlite_master`: a table, index, trigger or view, and the SQL that made it (NULL for SQLite's own indexes).
struct SQLiteMasterRow: Decodable, Sendable {
    var type: String
    var name: String
    var sql: String?
}

/// A row of PostgreSQL's `information_schema.columns`, the three columns the catalog reads (cast to text, renamed).
struct PostgresColumnRow: Decodable, Sendable {
    var name: String
    var type: String
    /// "YES" or "NO".
    var nullable: String
}

/// A constraint of a table from PostgreSQL's `pg_constraint`, with the table it belongs to and its definition as
/// `pg_get_constraintdef` writes it (what `ALTER TABLE … ADD CONSTRAINT` takes back).
struct PostgresConstraintRow: Decodable, Sendable {
    var tableName: String
    var name: String
    var definition: String

    enum CodingKeys: String, CodingKey {
        case tableName = "table_name", name, definition
    }
}

/// An index by name and the statement that makes it (`sqlite_master.sql` or PostgreSQL's `pg_indexes.indexdef`).
struct IndexDefinitionRow: Decodable, Sendable {
    var name: String
    var definition: String
}
