import Foundation
import Testing
@testable import HibiApp

@Suite struct MoodAnalyticsTests {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    let newYork = TimeZone(identifier: "America/New_York")!

    func at(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func emptyDiaryHasEmptyStatistics() {
        let stats = MoodAnalytics.statistics([], timeZone: tokyo)
        #expect(stats.totalEntries == 0)
        #expect(stats.mostFrequentMood == nil)
        #expect(stats.averageEntriesPerDay == 0)
        #expect(stats.dateRange == nil)
        #expect(MoodAnalytics.trend([], period: .week, now: at("2026-11-20T12:00:00Z"), timeZone: tokyo).isEmpty)
    }

    @Test func oneEntryIsOnePerDay() {
        let stats = MoodAnalytics.statistics([MoodPoint(date: at("2026-11-20T03:00:00Z"), mood: .happiness)], timeZone: tokyo)
        #expect(stats.totalEntries == 1)
        #expect(stats.mostFrequentMood == .happiness)
        #expect(stats.averageEntriesPerDay == 1)
    }

    @Test func daysAreCountedInTheUsersTimeZone() {
        // 14:30 and 15:30 UTC are 23:30 on the 20th and 00:30 on the 21st in Tokyo: two calendar days there, one in UTC.
        let points = [MoodPoint(date: at("2026-11-20T14:30:00Z"), mood: .sadness), MoodPoint(date: at("2026-11-20T15:30:00Z"), mood: .sadness)]
        #expect(MoodAnalytics.statistics(points, timeZone: tokyo).averageEntriesPerDay == 1)
        #expect(MoodAnalytics.statistics(points, timeZone: .gmt).averageEntriesPerDay == 2)
        #expect(MoodAnalytics.daily(points, timeZone: tokyo).map(\.day) == ["2026-11-20", "2026-11-21"])
        #expect(MoodAnalytics.daily(points, timeZone: newYork).map(\.day) == ["2026-11-20"])
    }

    @Test func unconfirmedEntriesCountButHaveNoMood() {
        let stats = MoodAnalytics.statistics([MoodPoint(date: at("2026-11-20T03:00:00Z"), mood: nil),
                                              MoodPoint(date: at("2026-11-22T03:00:00Z"), mood: .anger)], timeZone: tokyo)
        #expect(stats.totalEntries == 2)
        #expect(stats.count(.anger) == 1)
        #expect(stats.moodDistribution.values.reduce(0, +) == 1)
        #expect(stats.averageEntriesPerDay == 2.0 / 3.0)
    }

    @Test func aDayIsSummarisedByItsMostFrequentMoodThenTheLatest() {
        let day = [
            MoodPoint(date: at("2026-11-20T00:00:00Z"), mood: .sadness),
            MoodPoint(date: at("2026-11-20T01:00:00Z"), mood: .sadness),
            MoodPoint(date: at("2026-11-20T09:00:00Z"), mood: .happiness),
        ]
        #expect(MoodAnalytics.daily(day, timeZone: tokyo).first?.mood == .sadness)
        #expect(MoodAnalytics.daily(day, timeZone: tokyo).first?.entries == 3)
        let tie = [MoodPoint(date: at("2026-11-20T00:00:00Z"), mood: .anger), MoodPoint(date: at("2026-11-20T05:00:00Z"), mood: .surprise)]
        #expect(MoodAnalytics.daily(tie, timeZone: tokyo).first?.mood == .surprise)
    }

    @Test func mostFrequentTieIsStable() {
        let points = [MoodPoint(date: at("2026-11-20T00:00:00Z"), mood: .neutral), MoodPoint(date: at("2026-11-21T00:00:00Z"), mood: .happiness)]
        #expect(MoodAnalytics.statistics(points, timeZone: tokyo).mostFrequentMood == .happiness)
    }

    @Test func trendPeriodsStartWhereUsersExpect() {
        let now = at("2026-11-20T03:00:00Z") // Friday noon in Tokyo
        #expect(MoodAnalytics.dayKey(MoodAnalytics.periodStart(.week, now: now, timeZone: tokyo), timeZone: tokyo) == "2026-11-16")
        #expect(MoodAnalytics.dayKey(MoodAnalytics.periodStart(.month, now: now, timeZone: tokyo), timeZone: tokyo) == "2026-11-01")
        #expect(MoodAnalytics.dayKey(MoodAnalytics.periodStart(.year, now: now, timeZone: tokyo), timeZone: tokyo) == "2025-11-20")
        let points = [MoodPoint(date: at("2026-11-10T03:00:00Z"), mood: .fear), MoodPoint(date: at("2026-11-18T03:00:00Z"), mood: .disgust)]
        #expect(MoodAnalytics.trend(points, period: .week, now: now, timeZone: tokyo).map(\.mood) == [.disgust])
        #expect(MoodAnalytics.trend(points, period: .month, now: now, timeZone: tokyo).map(\.mood) == [.fear, .disgust])
    }

    @Test func monthGridStartsOnMonday() {
        // 1 November 2026 is a Sunday: six blanks before it.
        let grid = MoodAnalytics.monthGrid(year: 2026, month: 11, days: [DayMood(day: "2026-11-03", mood: .happiness, entries: 1)], timeZone: tokyo)
        #expect(grid.weeks.first == [nil, nil, nil, nil, nil, nil, 1])
        #expect(grid.weeks.flatMap { $0 }.compactMap { $0 }.count == 30)
        #expect(grid.moods[3]?.mood == .happiness)
    }

    @Test func onThisDayWindowsCoverTheSameLocalDateInEarlierYears() {
        let windows = MoodAnalytics.onThisDayWindows(today: at("2027-02-28T03:00:00Z"), since: at("2024-01-05T00:00:00Z"), timeZone: tokyo)
        func covered(_ date: Date) -> Bool { windows.contains { $0.contains(date) } }
        #expect(covered(at("2026-02-27T15:30:00Z")))  // 00:30 on 28 February in Tokyo
        #expect(!covered(at("2026-02-27T14:30:00Z"))) // 23:30 on 27 February in Tokyo
        #expect(covered(at("2024-02-29T03:00:00Z")))  // the leap day shows on 28 February of other years
        #expect(!covered(at("2027-02-28T03:00:00Z")))  // today itself is not "on this day"
        #expect(windows.count == 4)
        #expect(MoodAnalytics.onThisDayWindows(today: at("2027-02-28T03:00:00Z"), since: at("2027-01-01T00:00:00Z"), timeZone: tokyo).isEmpty)
    }

    @Test func tallyGivesTheSameStatisticsAsThePoints() {
        let points = [MoodPoint(date: at("2026-11-20T00:00:00Z"), mood: .sadness), MoodPoint(date: at("2026-11-22T00:00:00Z"), mood: nil),
                      MoodPoint(date: at("2026-11-21T00:00:00Z"), mood: .sadness)]
        let tally = MoodTally(counts: [.sadness: 2], total: 3, first: at("2026-11-20T00:00:00Z"), last: at("2026-11-22T00:00:00Z"))
        #expect(MoodTally(points) == tally)
        #expect(MoodAnalytics.statistics(tally, timeZone: tokyo) == MoodAnalytics.statistics(points, timeZone: tokyo))
    }

    @Test func onThisDayMatchesEarlierYearsAndLeapDays() {
        let today = at("2027-02-28T03:00:00Z")
        #expect(MoodAnalytics.isOnThisDay(at("2026-02-28T03:00:00Z"), today: today, timeZone: tokyo))
        #expect(MoodAnalytics.isOnThisDay(at("2024-02-29T03:00:00Z"), today: today, timeZone: tokyo))
        #expect(!MoodAnalytics.isOnThisDay(at("2027-02-28T01:00:00Z"), today: today, timeZone: tokyo))
        #expect(!MoodAnalytics.isOnThisDay(at("2026-03-01T03:00:00Z"), today: today, timeZone: tokyo))
    }
}

@Suite struct DiaryRulesTests {
    @Test func tagsAreTrimmedDeduplicatedAndLimited() throws {
        #expect(try DiaryRules.parseTagList("cafe, Cafe, #walk、 散歩") == ["cafe", "walk", "散歩"])
        #expect(throws: DiaryError.tooManyTags(limit: 10)) { try DiaryRules.parseTagList((1...11).map { "t\($0)" }.joined(separator: ",")) }
        #expect(throws: DiaryError.tagInvalid) { try DiaryRules.normalizeTags([String(repeating: "x", count: 33)]) }
    }

    @Test func textRules() throws {
        #expect(throws: DiaryError.textEmpty) { try DiaryRules.validateText("  ", hasPhoto: false) }
        #expect(try DiaryRules.validateText("  ", hasPhoto: true) == "")
        #expect(throws: DiaryError.textTooLong(limit: DiaryRules.maxTextLength)) {
            try DiaryRules.validateText(String(repeating: "あ", count: DiaryRules.maxTextLength + 1), hasPhoto: false)
        }
    }

    @Test func localDatesAreReadInTheUsersZone() throws {
        let date = try DiaryRules.parseLocalDateTime(date: "2026-11-20", time: "08:30", timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(date == (try Date("2026-11-19T23:30:00Z", strategy: .iso8601)))
        #expect(throws: DiaryError.invalidDate) { try DiaryRules.parseLocalDateTime(date: "2026-02-30", time: nil, timeZone: .gmt) }
        #expect(throws: DiaryError.invalidDate) { try DiaryRules.parseLocalDateTime(date: "yesterday", time: nil, timeZone: .gmt) }
        #expect(throws: DiaryError.dateInFuture) { try DiaryRules.validateDate(Date().addingTimeInterval(86400), now: Date()) }
    }

    @Test func imagesAreRecognisedByTheirStructureNotTheirFirstBytes() {
        #expect(DiaryRules.isSupportedImage(TestImages.jpeg))
        #expect(DiaryRules.isSupportedImage(TestImages.png))
        #expect(DiaryRules.isSupportedImage(TestImages.webp))
        #expect(!DiaryRules.isSupportedImage(TestImages.gif), "the diary keeps JPEG, PNG and WebP")
        #expect(!DiaryRules.isSupportedImage(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])))
        #expect(!DiaryRules.isSupportedImage(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(!DiaryRules.isSupportedImage(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)))
        #expect(!DiaryRules.isSupportedImage(Data("GIF89a".utf8)))
        #expect(!DiaryRules.isSupportedImage(Data("%PDF-1.4".utf8)))
    }

    @Test func searchIgnoresCaseAndWidth() {
        let text = DiarySearch.normalize("Went to ＨＩＢＩ café with Ken")
        #expect(DiarySearch.matches(normalizedText: text, query: DiarySearch.terms("hibi cafe")))
        #expect(DiarySearch.matches(normalizedText: text, query: DiarySearch.terms("KEN　went")))
        #expect(!DiarySearch.matches(normalizedText: text, query: DiarySearch.terms("hibi tea")))
        let japanese = DiarySearch.normalize("今日はカフェで読書。ｶﾌｪラテが美味しかった")
        #expect(DiarySearch.matches(normalizedText: japanese, query: DiarySearch.terms("カフェ　読書")))
        #expect(DiarySearch.matches(normalizedText: japanese, query: DiarySearch.terms("美味しかった")))
        #expect(!DiarySearch.matches(normalizedText: japanese, query: DiarySearch.terms("散歩")))
        #expect(!DiarySearch.matches(normalizedText: "ab", query: ["abc"]))
        // Plain ASCII takes a shortcut; it must fold exactly as Foundation does.
        let ascii = "Dear Diary, 42 THINGS @home [Zz]"
        #expect(DiarySearch.normalize(ascii) == ascii.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil))
    }
}
