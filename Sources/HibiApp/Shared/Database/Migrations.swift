import Foundation
import Logging
import SQLKit

/// One step of the schema. Steps are append-only: a released step never changes, a new one is added.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let apply: @Sendable (any SQLDatabase, DatabaseEngine) async throws -> Void
    /// SQLite only: the step rebuilds a table other tables point at, so it runs with foreign keys off and
    /// checks them before its commit (step 1 and 10 of SQLite's procedure for changing a table; dropping a
    /// parent with them on deletes its children's rows). The pragma cannot change inside a transaction, so
    /// whoever runs the step sets it first (`Database.transaction(foreignKeysOff:)`).
    public let foreignKeysOff: Bool

    public init(version: Int, name: String, foreignKeysOff: Bool = false,
                apply: @escaping @Sendable (any SQLDatabase, DatabaseEngine) async throws -> Void) {
        self.version = version
        self.name = name
        self.foreignKeysOff = foreignKeysOff
        self.apply = apply
    }
}

public struct Migrator: Sendable {
    let database: Database
    let migrations: [Migration]
    let logger: Logger

    public init(database: Database, migrations: [Migration] = Schema.all, logger: Logger) {
        self.database = database
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    public func currentVersion() async throws -> Int {
        try await ensureTable()
        let row = try await database.sql.raw("SELECT MAX(version) AS v FROM hibi_schema").first()
        return (try? row?.decode(column: "v", as: Int?.self)) ?? 0
    }

    /// Applies every step not yet recorded, in version order, each in its own transaction, and returns
    /// the versions applied. Gaps are filled too: features developed side by side may land out of order.
    @discardableResult
    public func migrate(now: Date = Date()) async throws -> [Int] {
        let current = try await currentVersion()
        if current > latestVersion {
            throw DatabaseError.schemaNewerThanBinary(database: current, binary: latestVersion)
        }
        let done = Set(try await SchemaVersionRow.select(database.sql).all(decoding: SchemaVersionRow.self).map { Int(clamping: $0.version) })
        var applied: [Int] = []
        for migration in migrations where !done.contains(migration.version) {
            let engine = database.engine
            let didApply = try await database.transaction(foreignKeysOff: migration.foreignKeysOff) { sql -> Bool in
                // Several instances may start at once on one database: the step runs under a lock and is
                // skipped when another instance recorded it meanwhile (SQLite's BEGIN IMMEDIATE already
                // serialises writers).
                try await Self.lock(sql, engine: engine)
                let recorded = try await sql.select().column("version").from("hibi_schema")
                    .where("version", .equal, SQLBind(migration.version)).first()
                guard recorded == nil else { return false }
                try await Self.apply(migration, sql: sql, engine: engine, now: Int64(saturating: now.timeIntervalSince1970))
                return true
            }
            guard didApply else { continue }
            logger.info("applied migration", metadata: ["version": "\(migration.version)", "migration": "\(migration.name)"])
            applied.append(migration.version)
        }
        return applied
    }

    /// A transaction-scoped advisory lock on PostgreSQL, freed by COMMIT or ROLLBACK whatever happens.
    static func lock(_ sql: any SQLDatabase, engine: DatabaseEngine) async throws {
        if engine == .postgres { try await sql.raw("SELECT pg_advisory_xact_lock(\(literal: Self.lockKey))").run() }
    }

    /// Any fixed number: "hibi" in ASCII.
    static let lockKey = 0x6869_6269

    private func ensureTable() async throws {
        let engine = database.engine
        // Under the lock too: two concurrent CREATE TABLE IF NOT EXISTS can both try to create it on PostgreSQL.
        try await database.transaction { sql in
            try await Self.lock(sql, engine: engine)
            try await Self.createTable(sql)
        }
    }

    /// The bookkeeping table, on any connection: the database being migrated, a restore's target, a backup's
    /// tables file.
    static func createTable(_ sql: any SQLDatabase) async throws {
        try await sql.create(table: "hibi_schema")
            .ifNotExists()
            .column("version", type: .bigint, .primaryKey(autoIncrement: false))
            .column("name", type: .text, .notNull)
            .column("applied_at", type: .bigint, .notNull)
            .run()
    }

    /// Runs one step and records it, inside the caller's transaction.
    static func apply(_ migration: Migration, sql: any SQLDatabase, engine: DatabaseEngine, now: Int64) async throws {
        try await migration.apply(sql, engine)
        try await SchemaVersionRow.insert([SchemaVersionRow(version: Int64(migration.version), name: migration.name, appliedAt: now)], into: sql).run()
    }
}
