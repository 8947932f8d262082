import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// On PostgreSQL a large table goes in without its primary key, unique constraints and foreign keys, which are
/// added back after its COPY (as pg_restore does). What they would have refused row by row must still be refused.
@Suite(.serialized) struct PostgresRestoreKeysTests {
    /// Enough health records that the table is restored the large-table way.
    static let records = RestoreService.rebuildIndexesFrom + 50

    /// The keys come back exactly as the migrations make them.
    @Test(.enabled(if: TestApp.postgresURL != nil)) func aLargeTableGetsBackEveryKeyTheMigrationsMake() async throws {
        let (source, backup) = try await BackupFixture.filledBackup("keys-source", healthRecords: Self.records)

        let target = try BackupFixture.directory("keys-target")
        try BackupFixture.copyKeys(from: source, to: target)
        let restored = try await BackupFixture.targetConfig(target)
        try await BackupFixture.restore(backup, into: restored)
        let fresh = try await BackupFixture.targetConfig(try BackupFixture.directory("keys-fresh"))
        let core = try await AppCore.open(fresh, logger: TestApp.quietLogger, for: .command)
        await core.database.shutdown()
        let expected = try await Self.keysAndIndexes(fresh)
        #expect(expected.contains { $0.hasPrefix("health_records health_records_pkey PRIMARY KEY") })
        #expect(expected.contains { $0.hasPrefix("health_records health_records_user_id_fkey FOREIGN KEY") })
        #expect(try await Self.keysAndIndexes(restored) == expected)
    }

    /// A tables file made to hold two health records with one id, or one pointing to a user who is not there, is
    /// refused whole, naming the table, and the target is left empty.
    @Test(.enabled(if: TestApp.postgresURL != nil)) func aDuplicateKeyOrAnOrphanInALargeTableIsRefusedWhole() async throws {
        let (source, good) = try await BackupFixture.filledBackup("keys-tampered", healthRecords: Self.records)
        try await BackupFixture.expectRefusedWhole(good, keysFrom: source, [
            .init(label: "duplicate id", table: "health_records") { file in
                // SQLite holds the key too: the table is remade without it, as an attacker would.
                try await file.raw("PRAGMA foreign_keys = OFF").run()
                try await file.raw("CREATE TABLE loose AS SELECT * FROM health_records").run()
                try await file.raw("DROP TABLE health_records").run()
                try await file.raw("ALTER TABLE loose RENAME TO health_records").run()
                try await file.raw("UPDATE health_records SET id = 'bulk-1' WHERE id = 'bulk-4000'").run()
            },
            .init(label: "orphan", table: "health_records") { file in
                try await file.raw("PRAGMA foreign_keys = OFF").run()
                try await file.raw("UPDATE health_records SET user_id = 'nobody' WHERE id = 'bulk-4000'").run()
            },
        ])
    }

    /// Every constraint and index of the public schema as "table name definition", sorted.
    static func keysAndIndexes(_ config: AppConfig) async throws -> [String] {
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        do {
            let rows = try await database.sql.raw("""
                SELECT t.relname::text || ' ' || c.conname::text || ' ' || pg_get_constraintdef(c.oid) AS line
                FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid WHERE t.relnamespace = current_schema()::regnamespace
                UNION ALL SELECT tablename::text || ' ' || indexname::text || ' ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
                ORDER BY 1
                """).all().map { try $0.decode(column: "line", as: String.self) }
            await database.shutdown()
            return rows
        } catch {
            await database.shutdown()
            throw error
        }
    }
}
