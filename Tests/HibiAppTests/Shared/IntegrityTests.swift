import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// The database refuses what the app would refuse, on both engines (this suite runs on PostgreSQL too).
struct IntegrityTests {
    @Test func theDatabaseRefusesOrphanTagsOutOfRangeLocksAndRatingsAndKeepsTheRest() async throws {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger, for: .command)
        let sql = core.database.sql
        do {
            let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            let entry = try await core.features.diary.service.create(userID: user.id, draft: .init(date: Date(), text: "t", tags: ["walk"], confirmedMood: nil, photo: nil), now: Date())
            // A tag naming nobody: refused by the new foreign key.
            await #expect(throws: (any Error).self) {
                try await sql.raw("INSERT INTO diary_tags (entry_id, user_id, tag, tag_key) VALUES (\(bind: entry.id), 'nobody', 'x', 'x')").run()
            }
            // Lock minutes and ratings outside what the forms allow.
            await #expect(throws: (any Error).self) {
                try await sql.raw("INSERT INTO diary_settings (user_id, lock_minutes) VALUES (\(bind: user.id), 0)").run()
            }
            try await core.features.diary.lock.setLockMinutes(userID: user.id, minutes: 30)
            try await core.features.diary.lock.setLockMinutes(userID: user.id, minutes: 45)
            #expect(try await core.features.diary.lock.lockMinutes(userID: user.id) == 45, "the upsert replaces the row")
            await #expect(throws: (any Error).self) {
                try await sql.raw("UPDATE diary_settings SET lock_minutes = 5000 WHERE user_id = \(bind: user.id)").run()
            }
            #expect(try await core.features.diary.lock.lockMinutes(userID: user.id) == 45)
            // The rebuilt tag table still works and still follows its person.
            let tags = try await sql.raw("SELECT COUNT(*) AS n FROM diary_tags WHERE user_id = \(bind: user.id)").first()?.decode(column: "n", as: Int.self)
            #expect(tags == 1)
            try await sql.raw("DELETE FROM users WHERE id = \(bind: user.id)").run()
            let left = try await sql.raw("SELECT COUNT(*) AS n FROM diary_tags").first()?.decode(column: "n", as: Int.self)
            #expect(left == 0, "tags go with their person")
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    /// Migration 19 ran on every database before its rules moved beside Diary's and Videos' schemas: the step still
    /// runs the statements it shipped with, in the same order, and adds the same constraints (a step that ran is
    /// never changed; a change would leave new databases unlike old ones).
    @Test func migrationNineteenIsTheStepThatShipped() {
        #expect(IntegritySchema.migration.version == 19 && IntegritySchema.migration.name == "integrity-constraints")
        #expect(IntegritySchema.parts.flatMap(\.repairs) == [
            #"DELETE FROM "diary_tags" WHERE "user_id" NOT IN (SELECT "id" FROM "users")"#,
            #"UPDATE "diary_settings" SET "lock_minutes" = 10 WHERE "lock_minutes" < 1 OR "lock_minutes" > 1440"#,
            #"UPDATE "video_user_data" SET "rating" = NULL WHERE "rating" < 1 OR "rating" > 5"#,
            #"UPDATE "video_user_data" SET "position_ms" = 0 WHERE "position_ms" < 0"#,
            #"UPDATE "video_user_data" SET "play_count" = 0 WHERE "play_count" < 0"#,
        ])
        #expect(IntegritySchema.rules.map { [$0.table, $0.name, $0.definition] } == [
            ["diary_tags", "diary_tags_user_fk", #"FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE"#],
            ["diary_settings", "diary_settings_lock_minutes", #"CHECK ("lock_minutes" BETWEEN 1 AND 1440)"#],
            ["video_user_data", "video_user_data_rating", #"CHECK ("rating" IS NULL OR "rating" BETWEEN 1 AND 5)"#],
            ["video_user_data", "video_user_data_counts", #"CHECK ("position_ms" >= 0 AND "play_count" >= 0)"#],
        ])
    }
}
