import Foundation
import Testing
@testable import HibiApp

/// The journal's faster reads (per-day sums in the database, the database picking search candidates) must answer
/// exactly what the slower ones did, on both engines.
struct JournalOffsetSpanTests {
    func instant(_ text: String, _ zone: TimeZone) throws -> Int64 {
        let strategy = Date.ISO8601FormatStyle(timeZone: zone).year().month().day().time(includingFractionalSeconds: false)
        return Int64(try Date(text, strategy: strategy).timeIntervalSince1970)
    }

    @Test func aZoneWithoutChangesIsOneSpanAndEachChangeStartsAnother() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let year: (Int64, Int64) = (1_767_225_600, 1_767_225_600 + 365 * 86400)  // 2026
        let tokyoShifts: [Int64] = LocalDays.offsetSpans(tokyo, from: year.0, to: year.1).map(\.shift)
        #expect(tokyoShifts == [32400])
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        let kolkataShifts: [Int64] = LocalDays.offsetSpans(kolkata, from: year.0, to: year.1).map(\.shift)
        #expect(kolkataShifts == [19800], "half an hour is exact too")
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let spans = LocalDays.offsetSpans(newYork, from: year.0, to: year.1)
        let shifts: [Int64] = spans.map(\.shift)
        #expect(shifts == [-18000, -14400, -18000])
        // 2026-03-08 02:00 EST and 2026-11-01 02:00 EDT, both 06:00/07:00 UTC.
        let spring = try instant("2026-03-08T07:00:00", .gmt), autumn = try instant("2026-11-01T06:00:00", .gmt)
        let starts: [Int64] = spans.map(\.from)
        #expect(starts == [year.0, spring, autumn])
        let ends: [Int64] = spans.map(\.to)
        #expect(ends == [spring, autumn, year.1], "the spans tile the range")
        let adelaide = try #require(TimeZone(identifier: "Australia/Adelaide"))
        let adelaideShifts: Set<Int64> = Set(LocalDays.offsetSpans(adelaide, from: year.0, to: year.1).map(\.shift))
        #expect(adelaideShifts == [34200, 37800])
        #expect(LocalDays.offsetSpans(tokyo, from: 10, to: 10).isEmpty)
    }
}

struct JournalPlaceSpotTests {
    /// New places key on coordinates to three decimals; the C formatter must give Foundation's digits exactly,
    /// halfway cases and signs included, or a place would turn new again.
    @Test func placeSpotsAreFoundationsDigits() {
        var values: [Double] = [0, -0.0, 0.0005, -0.0005, 35.0005, 35.0015, 139.9995, 1e-9, -1e-9, 89.99999, -180, 180, 35.6812, 139.7671]
        var x = 0.123456789
        for _ in 0..<5000 {
            x = (x * 9301 + 49297).truncatingRemainder(dividingBy: 233280)
            values.append(x / 233280 * 360 - 180)
            values.append(((x / 233280 * 180 - 90) * 1000).rounded() / 1000 + 0.0005)
        }
        for (a, b) in zip(values, values.reversed()) {
            #expect(VisitMark.spot(a, b) == String(format: "%.3f,%.3f", a, b), "\(a), \(b)")
        }
    }
}

@Suite(.serialized) struct JournalFastReadTests {
    func instant(_ text: String, _ zone: TimeZone) throws -> Int64 {
        let strategy = Date.ISO8601FormatStyle(timeZone: zone).year().month().day().time(includingFractionalSeconds: false)
        return Int64(try Date(text, strategy: strategy).timeIntervalSince1970)
    }

    func key(_ text: String) throws -> DayKey { try #require(DayKey(text)) }

    /// Steps summed a day at a time in the database land on the same local days as the grouped totals: across New York's
    /// change to summer time (a 23-hour day), at 23:30 and 00:30 either side of midnight, and in Kolkata's +5:30.
    @Test func perDaySumsInTheDatabaseKeepTheLocalDayAcrossChangesAndHalfHourZones() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let newYork = try #require(TimeZone(identifier: "America/New_York"))
            let records = core.features.health.service.records
            func steps(_ at: Int64, _ value: Double) -> HealthRecordDraft {
                HealthRecordDraft(type: "steps", value: value, unit: "count", start: at, end: at + 60)
            }
            let mine = [steps(try instant("2026-03-07T23:30:00", newYork), 100), steps(try instant("2026-03-08T00:30:00", newYork), 10),
                        steps(try instant("2026-03-08T03:30:00", newYork), 20), steps(try instant("2026-03-08T23:30:00", newYork), 40),
                        steps(try instant("2026-03-09T00:10:00", newYork), 1000)]
            _ = try await records.insert(mine, userID: aiko.id, source: .appleHealth, now: Date())
            // Ken's steps at the same moments are never counted for Aiko.
            _ = try await records.insert(mine.map { var draft = $0; draft.value *= 7; return draft }, userID: ken.id, source: .appleHealth, now: Date())
            _ = try await records.insert([HealthRecordDraft(type: "heartRate", value: 60, unit: "count/min", start: mine[0].start, end: mine[0].start)],
                                         userID: ken.id, source: .appleHealth, now: Date())
            var user = aiko
            user.timeZone = "America/New_York"
            let journal = core.features.journal.service
            let expected: [String: Double] = ["2026-03-07": 100, "2026-03-08": 70, "2026-03-09": 1000]
            // The calendar's grouped totals, and the insights' steps summed per day in the database.
            for purpose in [DayRange.Purpose.days, .insights] {
                let days = try await journal.summaries(user: user, first: try key("2026-03-06"), last: try key("2026-03-10"), diaryOpen: false,
                                                       purpose: purpose)
                var steps: [String: Double] = [:]
                for (day, summary) in days { if let value = summary.steps { steps[day.description] = value } }
                #expect(steps == expected, "for \(purpose)")
            }
            // Half an hour: 23:45 and 00:15 in Kolkata are two days.
            user.timeZone = "Asia/Kolkata"
            let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
            _ = try await records.insert([steps(try instant("2026-05-01T23:45:00", kolkata), 5), steps(try instant("2026-05-02T00:15:00", kolkata), 6)],
                                         userID: aiko.id, source: .appleHealth, now: Date())
            let may = try await journal.summaries(user: user, first: try key("2026-05-01"), last: try key("2026-05-02"), diaryOpen: false,
                                                  purpose: .insights)
            let first = may[try key("2026-05-01")]?.steps, second = may[try key("2026-05-02")]?.steps
            #expect(first == 5 && second == 6)
            // The calendar names the person's types for the covering index: Aiko's only, never Ken's.
            let aikoTypes = try await core.features.health.service.recordTypes(userID: aiko.id)
            let kenTypes = try await core.features.health.service.recordTypes(userID: ken.id)
            #expect(aikoTypes == ["steps"] && kenTypes == ["heartRate", "steps"])
            let calendar = try await journal.summaries(user: user, first: try key("2026-05-01"), last: try key("2026-05-01"), diaryOpen: false)
            let mayFirst = calendar[try key("2026-05-01")]
            #expect(mayFirst?.healthRecords == 1 && mayFirst?.steps == 5)
        }
    }

    /// The database picks visit candidates with LIKE; wildcards in the query are literal, and text it cannot fold
    /// (full-width, accents, escaped JSON) is still found by the search's own rule.
    @Test func visitSearchTakesWildcardsLiterallyAndStillFoldsWhatTheDatabaseCannot() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let visits = core.features.visits.service
            let base = Date(timeIntervalSince1970: 1_780_000_000)
            func visit(_ minutes: Double, _ name: String, notes: String = "", labels: [String] = [], user: User? = nil) async throws -> Visit {
                try await visits.create(userID: (user ?? aiko).id, fields: VisitFields(visitedAt: base.addingTimeInterval(minutes * 60), latitude: 35,
                                                                                    longitude: 139, name: name, labels: labels, notes: notes), now: Date())
            }
            let juice = try await visit(1, "Juice bar", notes: "100% orange")
            let latte = try await visit(2, "cafe_latte")
            let wide = try await visit(3, "Ｃａｆé Kyoto")
            let quoted = try await visit(4, "Hall", labels: [#"say "hi""#])
            let plain = try await visit(5, "Plain cafe stand")
            _ = try await visit(6, "Ken's 100% cafe", user: ken)
            let journal = core.features.journal.service
            func found(_ query: String) async throws -> [String] {
                try await journal.search(user: aiko, query: query, diaryOpen: false, language: .en).filter { $0.domain == .visits }.map(\.id)
            }
            let percent = try await found("%"), underscore = try await found("_"), hundred = try await found("100%")
            #expect(percent == [juice.id], "a percent sign finds only a literal one")
            #expect(underscore == [latte.id], "an underscore finds only a literal one")
            #expect(hundred == [juice.id])
            let cafe = try await found("CAFE"), hi = try await found(#""hi""#), both = try await found("kyoto cafe"), none = try await found("zzqx")
            #expect(cafe == [plain.id, wide.id, latte.id], "width and accents fold; newest first")
            #expect(hi == [quoted.id], "a quote escaped in the labels' JSON")
            #expect(both == [wide.id], "every word")
            #expect(none.isEmpty)
            // One candidate at a time: the keyset goes on past the batches until the limit, newest first.
            let words = ["cafe"]
            let paged = try await visits.search(userID: aiko.id, words: words, limit: 2, batch: 1) { visit in
                SearchGrouping.matches("cafe", [visit.fields.name])
            }
            let names: [String] = paged.map(\.fields.name)
            #expect(names == ["Plain cafe stand", "Ｃａｆé Kyoto"])
        }
    }
}
