import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Parts of `diary_entries` read as its row type's column sets (issue 30, item 3) on the test's engine: an entry without a
/// confirmed mood (NULL) has none in both mood readers, the search records open each sealed text, and owners are by id.
@Suite(.serialized) struct DiaryRowsTests {
    @Test func moodsSearchRecordsAndOwnersReadBackFromTheRows() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let service = core.features.diary.service
            let day = Date(timeIntervalSince1970: 1_714_550_400)
            let happy = try await service.create(userID: aiko.id, draft: .init(date: day, text: "Ramen with Ken", tags: [], confirmedMood: .happiness),
                                                 now: Date())
            let plain = try await service.create(userID: aiko.id, draft: .init(date: day.addingTimeInterval(3600), text: "A quiet evening", tags: [],
                                                                               confirmedMood: nil), now: Date())
            let kens = try await service.create(userID: ken.id, draft: .init(date: day, text: "Ken's day", tags: [], confirmedMood: .sadness), now: Date())

            let expected = [MoodPoint(date: day, mood: .happiness), MoodPoint(date: day.addingTimeInterval(3600), mood: nil)]
            let points = try await service.moodPoints(userID: aiko.id, from: nil, to: nil)
            #expect(points.sorted { $0.date < $1.date } == expected)
            let overYears = try await service.moodPointsOverYears(userID: aiko.id, from: day.addingTimeInterval(-86400), to: day.addingTimeInterval(86400))
            #expect(overYears.sorted { $0.date < $1.date } == expected)

            let records = try await service.store.searchRecords(userID: aiko.id).sorted { $0.date < $1.date }
            #expect(records.map(\.id) == [happy.id, plain.id])
            #expect(records.map(\.date) == [day, day.addingTimeInterval(3600)])
            #expect(records.map(\.text) == [DiarySearch.normalize("Ramen with Ken"), DiarySearch.normalize("A quiet evening")])
            #expect(records.allSatisfy { $0.updatedAt > 0 })

            #expect(try await service.store.owners(ids: [happy.id, kens.id, "missing"]) == [happy.id: aiko.id, kens.id: ken.id])
        }
    }
}
