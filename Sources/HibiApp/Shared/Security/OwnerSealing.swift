import Foundation
import Logging
import SQLKit

/// What one feature sealed under contexts that named only the row, for `OwnerSealing` to re-seal once to the
/// owner (`Feature.ownerSealedValues`). Files go first, then every feature's columns in one transaction.
public struct OwnerSealedValues: Sendable {
    /// A sealed column of a table whose rows have `id` and `user_id`.
    public struct Column: Sendable {
        let table: String
        let column: String
        let context: @Sendable (_ userID: String, _ id: String) -> String
        let legacy: @Sendable (_ id: String) -> String

        public init(table: String, column: String, context: @escaping @Sendable (_ userID: String, _ id: String) -> String,
                    legacy: @escaping @Sendable (_ id: String) -> String) {
            self.table = table
            self.column = column
            self.context = context
            self.legacy = legacy
        }
    }

    public var columns: [Column]
    /// Tables of short-lived rows (minutes), simply emptied: ones sealed the old way end.
    public var emptiedTables: [String]
    /// Re-seals the feature's files in place (each written to a new name and renamed); returns how many changed.
    public var files: (@Sendable (SealedBoxService) throws -> Int)?

    public init(columns: [Column] = [], emptiedTables: [String] = [], files: (@Sendable (SealedBoxService) throws -> Int)? = nil) {
        self.columns = columns
        self.emptiedTables = emptiedTables
        self.files = files
    }
}

/// Sealed values are bound to their owner: each context names the person as well as the row, so a row
/// or file moved to another person in the database or on disk, without the key, does not open for them.
/// Values sealed before that (contexts naming only the row) are re-sealed once, at start-up, by this
/// step: files first (each written to a new name and renamed, so a crash leaves the old or the new),
/// then the rows in one transaction that also records that the step is done. Running it twice, or on
/// two instances at once, changes nothing: a value that already opens under its owner is left alone.
struct OwnerSealing {
    let database: Database
    let box: SealedBoxService
    /// Every feature's, in the features' order.
    let values: [OwnerSealedValues]
    let logger: Logger

    static let settingKey = "sealing"
    static let ownerBound = "owner-bound"

    func upgradeIfNeeded() async throws {
        let state = try await SettingRow.value(Self.settingKey, on: database.sql)
        guard state != Self.ownerBound else { return }
        let files = try values.compactMap(\.files).reduce(0) { $0 + (try $1(box)) }
        let rows = try await database.transaction { sql in
            var rows = 0
            for column in values.flatMap(\.columns) {
                rows += try await reseal(sql, table: column.table, column: column.column, new: column.context, legacy: column.legacy)
            }
            for table in values.flatMap(\.emptiedTables) { try await sql.delete(from: table).run() }
            try await SettingRow.write(Self.settingKey, Self.ownerBound, on: sql)
            return rows
        }
        if files + rows > 0 {
            logger.notice("re-sealed stored values to their owners", metadata: ["rows": "\(rows)", "files": "\(files)"])
        }
    }

    /// Re-seals one sealed column of a table whose rows have `id` and `user_id`; returns how many changed.
    /// A value that opens under neither context is left as it is (it will not open, as before) and counted in the log.
    private func reseal(_ sql: any SQLDatabase, table: String, column: String,
                        new: (_ userID: String, _ id: String) -> String, legacy: (_ id: String) -> String) async throws -> Int {
        var changed = 0
        let rows = try await sql.select().column("id").column("user_id").column(SQLColumn(column), as: SealedValueRow.CodingKeys.sealed.rawValue)
            .from(table).all(decoding: SealedValueRow.self)
        for row in rows {
            let (id, owner, sealed) = (row.id, row.userID, row.sealed)
            if (try? box.open(sealed, context: new(owner, id))) != nil { continue }
            guard let plain = try? box.open(sealed, context: legacy(id)) else {
                logger.error("a sealed value opens under no context", metadata: ["table": "\(table)"])
                continue
            }
            try await sql.update(table).set(column, to: SQLBind(try box.seal(plain, context: new(owner, id)))).where("id", .equal, id).run()
            changed += 1
        }
        return changed
    }
}

/// One sealed value of an owner-sealed table (`OwnerSealedValues.Column`): the row's id and owner, and the sealed
/// column, whatever its name, read as `sealed`.
struct SealedValueRow: Decodable, Sendable {
    var id: String
    var userID: String
    var sealed: Data

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", sealed
    }
}
