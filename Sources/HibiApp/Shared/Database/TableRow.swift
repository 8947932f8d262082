import SQLKit

/// One table's row as a value (issue 30, item 3): a Codable struct named for its table whose coding keys are
/// the table's columns, spelled as the table spells them (explicit `CodingKeys`, so a renamed property cannot
/// silently read another column). Read with SQLKit's row decoder (`first(decoding:)`, `all(decoding:)`,
/// `decode(model:)`), which asks the driver for each column by key, so both engines decode it alike: SQLite's
/// integer booleans and PostgreSQL's real ones both become `Bool`, BLOB and BYTEA become `Data`, a NULL an
/// optional's nil. Times stay the stored `Int64` seconds (`UnixTime`): turned into dates where the row becomes a
/// model, never by a decoder that might read them as something else.
protocol TableRow: Codable, Sendable {
    associatedtype CodingKeys: CodingKey & CaseIterable
    static var table: String { get }
}

extension TableRow {
    /// Every column, in the order of `CodingKeys`: what a SELECT of the whole row names.
    static var columns: [SQLIdentifier] { CodingKeys.allCases.map { SQLIdentifier($0.stringValue) } }

    /// The columns prefixed with a table alias, for a join that reads this row beside another table's columns.
    static func qualifiedColumns(_ alias: String) -> String {
        CodingKeys.allCases.map { "\(alias).\($0.stringValue)" }.joined(separator: ", ")
    }

    /// The columns of alias `alias`, each renamed with `prefix` ("t.id AS token_id"), for a join whose tables
    /// share column names; read back with `decode(model:prefix:)`.
    static func aliasedColumns(_ alias: String, prefix: String) -> String {
        CodingKeys.allCases.map { "\(alias).\($0.stringValue) AS \(prefix)\($0.stringValue)" }.joined(separator: ", ")
    }

    /// A SELECT of the whole row from its table.
    static func select(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().columns(columns).from(table)
    }

    /// An INSERT of the whole row: every column, a nil as NULL.
    static func insert(_ rows: [Self], into sql: any SQLDatabase) throws -> SQLInsertBuilder {
        try sql.insert(into: table).models(rows, with: SQLQueryEncoder(nilEncodingStrategy: .asNil))
    }
}
