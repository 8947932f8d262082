import Foundation
import Testing
@testable import HibiApp

/// Migration 17 on a database that already has goals: rows kept, the deadline may then be empty.
@Suite(.serialized) struct GoalMigrationTests {
    @Test func existingGoalsSurviveAndTheDeadlineBecomesOptional() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        var failure: (any Error)?
        do {
            let before = Schema.all.filter { $0.version != 17 }
            _ = try await Migrator(database: database, migrations: before, logger: TestApp.quietLogger).migrate()
            try await database.sql.raw("""
                INSERT INTO users (id, username, display_name, password_hash, is_admin, disabled, time_zone, created_at, password_changed_at) \
                VALUES ('u1', 'aiko', 'Aiko', 'x', \(bind: false), \(bind: false), 'UTC', 0, 0)
                """).run()
            let goals = HealthGoalStore(database: database)
            let old = Goal(id: "g1", type: .steps, targetValue: 10_000, deadline: Date(timeIntervalSince1970: 2_000_000_000),
                           createdAt: Date(timeIntervalSince1970: 1_700_000_000), startValue: nil, achievedAt: nil)
            try await goals.insert(old, userID: "u1")
            #expect(try await Migrator(database: database, logger: TestApp.quietLogger).migrate() == [17])
            #expect(try await goals.find(id: "g1", userID: "u1") == old)
            let open = Goal(id: "g2", type: .weight, targetValue: 60, deadline: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                            startValue: 64, achievedAt: nil)
            try await goals.insert(open, userID: "u1")
            #expect(try await goals.find(id: "g2", userID: "u1")?.deadline == nil)
            #expect(try await goals.list(userID: "u1").count == 2)
        } catch {
            failure = error
        }
        await database.shutdown()
        if let failure { throw failure }
    }
}
