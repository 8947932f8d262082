import Foundation
import SQLKit

// The rows of the tables Shared owns (`TableRow`): settings and the migrations' record. The instance secrets'
// and the job leases' rows sit beside their stores (InstanceSecrets.swift, JobLeases.swift).

/// A row of `settings`: one instance-wide value by its key.
struct SettingRow: TableRow {
    static let table = "settings"
    var key: String
    var value: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case key, value
    }

    /// The value stored under `key`, or nil when there is none.
    static func value(_ key: String, on sql: any SQLDatabase) async throws -> String? {
        try await select(sql).where("key", .equal, key).first(decoding: SettingRow.self)?.value
    }

    /// The table's one write: stores `value` under `key`, replacing what is there, or with `keepExisting`
    /// only when the key has none yet (insert-if-absent: of two instances writing at once, the first row stays).
    static func write(_ key: String, _ value: String, on sql: any SQLDatabase, keepExisting: Bool = false) async throws {
        let insert = try insert([SettingRow(key: key, value: value)], into: sql)
        try await (keepExisting ? insert.ignoringConflicts(with: ["key"]) : insert.onConflict(with: ["key"]) { $0.set(excludedValueOf: "value") }).run()
    }
}

/// A row of `hibi_schema`: a migration step that ran.
struct SchemaVersionRow: TableRow {
    static let table = "hibi_schema"
    var version: Int64
    var name: String
    var appliedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, name, appliedAt = "applied_at"
    }
}
