import Foundation
import Testing
@testable import HibiApp

/// What Journal does with what the features offer it: "on this day" gathers every feature's years (newest first, each
/// feature's lines in the offers' order, a feature's empty keys for a year only another recorded), and a day's figures
/// from several features add up.
@Suite struct JournalOffersTests {
    func key(_ text: String) throws -> DayKey { try #require(DayKey(text)) }

    @Test func onThisDayMergesEveryFeaturesYearsNewestFirst() throws {
        let y2020 = try key("2020-05-01"), y2022 = try key("2022-05-01"), y2023 = try key("2023-05-01")
        let diary = DayMemories(byDay: [y2020: .init(nodes: [.text("rain")], fields: ["diary": ["rain"]]),
                                        y2023: .init(nodes: [.text("sun")], fields: ["diary": ["sun"]])],
                                empty: ["diary": [String]()])
        let visits = DayMemories(byDay: [y2023: .init(nodes: [.text("Park")], fields: ["visits": ["Park"]]),
                                         y2022: .init(nodes: [.text("Cafe")], fields: ["visits": ["Cafe"]])],
                                 empty: ["visits": [String]()])
        let memories = JournalService.memories([diary, DayMemories(), visits], of: try key("2026-05-01"))
        #expect(memories.map(\.key) == [y2023, y2022, y2020])
        #expect(memories.map(\.yearsAgo) == [3, 4, 6])
        #expect(memories[0].nodes.map { $0.render() } == ["sun", "Park"], "the diary's lines before the visits', as the offers are listed")
        // A year only Visits recorded still answers an empty diary list (a client reads the same keys every year).
        let only = try JSONSerialization.jsonObject(with: JSONCoding.encoder.encode(JSONFields(memories[1].fields))) as? [String: [String]]
        #expect(only == ["diary": [], "visits": ["Cafe"]])
    }

    @Test func onThisDayShowsTwentyYearsAtMost() throws {
        var byDay: [DayKey: DayMemories.Year] = [:]
        for year in 1990..<2026 { byDay[try key("\(year)-05-01")] = .init(nodes: [], fields: [:]) }
        let memories = JournalService.memories([DayMemories(byDay: byDay)], of: try key("2026-05-01"))
        let newest = try key("2025-05-01"), oldest = try key("2006-05-01")
        #expect(memories.count == 20 && memories.first?.key == newest && memories.last?.key == oldest)
    }

    @Test func aDaysFiguresFromSeveralFeaturesAddUp() throws {
        let day = try key("2026-05-01")
        var diary = DaySummary(key: day)
        diary.diaryEntries = 2
        diary.moods = [.happiness]
        var health = DaySummary(key: day)
        health.steps = 4000
        health.healthRecords = 3
        var visits = DaySummary(key: day)
        visits.visits = 2
        visits.places = ["Park", "Cafe"]
        var more = DaySummary(key: day)
        more.steps = 1000
        more.places = ["Cafe", "Library"]
        let span = DaySpan(timeZone: .gmt, first: day, last: day)
        let outside = DaySummary(key: try key("2026-05-02"))
        let days = DaySummaries.combine([[day: diary], [day: health], [day: visits, outside.key: outside], [day: more]], chosen: [:], span: span)
        let sum = try #require(days[day])
        #expect(sum.diaryEntries == 2 && sum.steps == 5000 && sum.healthRecords == 3 && sum.visits == 2)
        #expect(sum.places == ["Park", "Cafe", "Library"], "each place once, in order")
        #expect(sum.rating == .good && !sum.ratingChosen, "the rating the moods suggest")
        #expect(sum.sleepHours == nil, "no feature said anything of sleep")
        #expect(days.count == 1, "a day outside the span is left out")
    }
}
