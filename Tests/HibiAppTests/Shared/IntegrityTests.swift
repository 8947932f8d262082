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
}
