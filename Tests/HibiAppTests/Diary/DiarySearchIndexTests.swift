import Foundation
import Testing
@testable import HibiApp

/// The in-memory search index is refreshed in place rather than rebuilt; these check that what a user
/// finds always matches what the diary holds, whoever changed it.
@Suite(.serialized) struct DiarySearchIndexTests {
    struct Fixture {
        let store: DiaryStore
        let service: DiaryService
        let userID: String
        let otherID: String
    }

    /// Runs `body` on a fresh database and always closes its pool (its deinit asserts it was closed).
    func withFixture(_ body: (Fixture) async throws -> Void) async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let aiko = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let ken = try await core.accounts.createUser(username: "ken", displayName: "Ken", password: Browser.password, isAdmin: false,
                                                     language: nil, now: Date())
        let store = DiaryStore(database: core.database, box: core.box)
        let service = DiaryService(store: store, photos: PhotoStore(dataDirectory: config.dataDirectory, box: core.box),
                                   search: DiarySearchIndex(), moods: nil, logger: TestApp.quietLogger)
        do {
            try await body(Fixture(store: store, service: service, userID: aiko.id, otherID: ken.id))
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    func found(_ f: Fixture, _ query: String, user: String? = nil) async throws -> [String] {
        try await f.service.list(userID: user ?? f.userID, query: query, filter: .init(), paging: PageRequest(page: 1, perPage: 50)).entries.map(\.text)
    }

    func entry(_ f: Fixture, _ text: String, day: Int, updated: Date, user: String? = nil) -> DiaryEntry {
        let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(day) * 86_400)
        return DiaryEntry(id: UUID().uuidString.lowercased(), userID: user ?? f.userID, date: date, text: text, tags: [],
                          moodScores: nil, confirmedMood: nil, hasPhoto: false, createdAt: updated, updatedAt: updated)
    }

    @Test func editsDeletesAndOutsideWritesShowInTheNextSearch() async throws {
        try await withFixture { f in
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let walk = try await f.service.create(userID: f.userID, draft: .init(date: now.addingTimeInterval(-3600), text: "Walk by the river",
                                                                             tags: [], confirmedMood: nil, photo: nil), now: now)
        _ = try await f.service.create(userID: f.userID, draft: .init(date: now.addingTimeInterval(-7200), text: "River cruise, ＲＡＩＮ",
                                                                      tags: [], confirmedMood: nil, photo: nil), now: now)
        #expect(try await found(f, "river") == ["Walk by the river", "River cruise, ＲＡＩＮ"])
        #expect(try await found(f, "rain") == ["River cruise, ＲＡＩＮ"])

        // Two edits of one entry within the same second: the second must win.
        _ = try await f.service.update(userID: f.userID, id: walk.id, change: .init(text: "Walk in the park"), now: now)
        _ = try await f.service.update(userID: f.userID, id: walk.id, change: .init(text: "Walk in the garden"), now: now)
        #expect(try await found(f, "park").isEmpty)
        #expect(try await found(f, "garden") == ["Walk in the garden"])
        #expect(try await found(f, "river") == ["River cruise, ＲＡＩＮ"])

        try await f.service.delete(userID: f.userID, id: walk.id)
        #expect(try await found(f, "walk").isEmpty)

        // Written around the service, as `hibi import diary` does from another process: one entry
        // edited long ago (older than anything the index holds) and one just now.
        try await f.store.insert([entry(f, "Old letter about the garden", day: 1, updated: Date(timeIntervalSince1970: 1_600_000_000)),
                                  entry(f, "New garden plan", day: 2, updated: now.addingTimeInterval(60))])
        #expect(try await found(f, "garden") == ["New garden plan", "Old letter about the garden"])

        // Removed around the service.
        let all = try await f.store.list(userID: f.userID, filter: .init(), limit: 50, offset: 0).entries
        let old = try #require(all.first { $0.text.hasPrefix("Old letter") })
        #expect(try await f.store.delete(id: old.id, userID: f.userID))
        #expect(try await found(f, "garden") == ["New garden plan"])
        }
    }

    @Test func eachUserSearchesOnlyTheirOwnDiary() async throws {
        try await withFixture { f in
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await f.store.insert([entry(f, "Aiko's secret plan", day: 1, updated: now),
                                  entry(f, "Ken's secret plan", day: 2, updated: now, user: f.otherID)])
        #expect(try await found(f, "secret") == ["Aiko's secret plan"])
        #expect(try await found(f, "secret", user: f.otherID) == ["Ken's secret plan"])
        }
    }
}
