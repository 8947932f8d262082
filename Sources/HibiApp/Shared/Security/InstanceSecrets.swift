import Foundation
import SQLKit

/// Secrets other than the data key (the visits signing key, and any like it later) live in the database,
/// sealed under the data key, so several instances on one database share them and a backup carries them.
enum InstanceSecretsSchema {
    static let migration = Migration(version: 13, name: "instance-secrets") { sql, _ in
        try await sql.create(table: "instance_secrets")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("sealed", type: .blob, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
    }
}

public struct InstanceSecretStore: Sendable {
    let database: Database
    let box: SealedBoxService

    public init(database: Database, box: SealedBoxService) {
        self.database = database
        self.box = box
    }

    /// The context binds a sealed secret to its name: a row copied under another name does not open.
    static func context(_ name: String) -> String { "instance-secret:\(name)" }

    /// The secret called `name`, or nil when none was made yet. A row the data key cannot open is
    /// `EncryptionError.wrongKey`, never a reason to make a new one.
    public func read(_ name: String) async throws -> Data? {
        try await Self.read(name, on: database.sql, box: box)
    }

    /// The secret called `name` in the database `sql` (another database than the store's: a backup being
    /// restored), opened with `box`.
    static func read(_ name: String, on sql: any SQLDatabase, box: SealedBoxService) async throws -> Data? {
        try await InstanceSecretRow.select(sql).where("name", .equal, name).first(decoding: InstanceSecretRow.self)
            .map { try box.open($0.sealed, context: Self.context(name)) }
    }

    /// Reads the secret, or stores `candidate()` if there is none and returns what the database then
    /// holds. Insert-if-absent on the primary key, then read back: when two instances start at the same
    /// moment each offers its own candidate, one row wins and both use it.
    public func readOrCreate(_ name: String, now: Date = Date(), candidate: () throws -> Data) async throws -> Data {
        if let existing = try await read(name) { return existing }
        let sealed = try box.seal(try candidate(), context: Self.context(name))
        try await InstanceSecretRow.insert([InstanceSecretRow(name: name, sealed: sealed, createdAt: UnixTime(now).seconds)], into: database.sql)
            .ignoringConflicts(with: ["name"]).run()
        guard let stored = try await read(name) else { throw EncryptionError.corrupted }
        return stored
    }
}

/// A row of `instance_secrets`: the secret sealed under the data key, bound to its name.
struct InstanceSecretRow: TableRow {
    static let table = "instance_secrets"
    var name: String
    var sealed: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, sealed, createdAt = "created_at"
    }
}
