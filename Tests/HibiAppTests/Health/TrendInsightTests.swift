import Foundation
import Testing
@testable import HibiApp

/// Insights on known series: the change is read over the days the records cover, never stretched to the range.
struct TrendInsightTests {
    let zone = TimeZone(identifier: "Asia/Tokyo")!
    let firstDay: Int64 = 1_704_067_200 // 2024-01-01 00:00 UTC, 09:00 in Tokyo

    /// One weigh-in a day for `days + 1` days, falling linearly from `from` to `to` (values as typed, in `unit`).
    func series(from: Double, to: Double, days: Int, every step: Int = 1, unit: String) throws -> [TrendAnalyzer.Sample] {
        try stride(from: 0, through: days, by: step).map { day in
            let typed = from + (to - from) * Double(day) / Double(days)
            return TrendAnalyzer.Sample(instant: firstDay + Int64(day) * 86400,
                                        value: try HealthUnits.normalize(typed, unit: unit, type: .weight))
        }
    }

    func now(afterDays days: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(firstDay + Int64(days) * 86400 + 3600)) }

    @Test(arguments: ["kg", "lb"])
    func aFivePercentLossOverTenWeeksReadsAsFivePercentOverTenWeeks(unit: String) throws {
        let from = unit == "kg" ? 140.0 : 308.6
        let samples = try series(from: from, to: from * 0.95, days: 70, unit: unit)
        for range in [TrendRange.year] {
            let analysis = TrendAnalyzer.analyze(samples: samples, type: .weight, range: range, now: now(afterDays: 70), timeZone: zone)
            let trend = try #require(analysis.insights.first)
            #expect(trend.title.en == "Weight is falling")
            #expect(trend.description.en == "About 5% down over 10 weeks of records, by a fitted trend line.")
            #expect(trend.description.ja == "記録のある10週間で約5%減少しています(回帰直線による)。")
            #expect(!trend.description.en.contains("year"))
            #expect((trend.confidence ?? 0) > 0.6) // eleven weekly points on one line
        }
    }

    @Test func theIssuesSeries143To135PoundsIsAboutSixPercentNotThirtyFour() throws {
        let samples = try series(from: 143, to: 135, days: 70, unit: "lb")
        let analysis = TrendAnalyzer.analyze(samples: samples, type: .weight, range: .year, now: now(afterDays: 70), timeZone: zone)
        let trend = try #require(analysis.insights.first)
        #expect(trend.description.en == "About 6% down over 10 weeks of records, by a fitted trend line.")
    }

    @Test func aMonthViewReadsOnlyTheMonthsRecords() throws {
        // 140 → 133 kg over 70 days: in the last 30 days (days 41...70) the line falls 2.9 kg from 135.9, about 2%.
        let samples = try series(from: 140, to: 133, days: 70, unit: "kg")
        let analysis = TrendAnalyzer.analyze(samples: samples, type: .weight, range: .month, now: now(afterDays: 70), timeZone: zone)
        let trend = try #require(analysis.insights.first)
        #expect(trend.description.en == "About 2% down over 4 weeks of records, by a fitted trend line.")
    }

    @Test func fewRecordsCarryNoConfidence() throws {
        // A weigh-in a week for four weeks in a month view: 5 of 30 days.
        let samples = try series(from: 70, to: 68, days: 28, every: 7, unit: "kg")
        let analysis = TrendAnalyzer.analyze(samples: samples, type: .weight, range: .month, now: now(afterDays: 28), timeZone: zone)
        let few = try #require(analysis.insights.first { $0.title.en == "Few records" })
        #expect(few.confidence == nil)
        #expect(few.description.en == "5 of 30 days have data; trends may be unreliable.")
        let trend = try #require(analysis.insights.first)
        #expect(trend.description.en.contains("over 4 weeks"))
    }

    @Test func aSteadySeriesMakesNoClaimAndNoConfidence() throws {
        let samples = try series(from: 70, to: 70, days: 20, unit: "kg")
        let analysis = TrendAnalyzer.analyze(samples: samples, type: .weight, range: .month, now: now(afterDays: 20), timeZone: zone)
        let steady = try #require(analysis.insights.first)
        #expect(steady.title.en == "Weight is steady")
        #expect(steady.description.en == "No clear rise or fall over 3 weeks.")
        #expect(steady.confidence == nil)
    }

    @Test func spansAreWordedWithPlurals() {
        #expect(TrendAnalyzer.spanText(days: 1).en == "1 day")
        #expect(TrendAnalyzer.spanText(days: 6).en == "6 days")
        #expect(TrendAnalyzer.spanText(days: 70).en == "10 weeks")
        #expect(TrendAnalyzer.spanText(days: 30).ja == "4週間")
        #expect(TrendAnalyzer.spanText(days: 364).en == "12 months")
    }
}

struct WholeStepsTests {
    @Test func fractionalStepsAreRefusedNotTruncatedAndDecimalWeightsAreKept() throws {
        let now = Date(timeIntervalSince1970: 1_717_200_000)
        let error = #expect(throws: HealthError.self) {
            try HealthRules.validate(type: "steps", value: 12.5, unit: nil, start: now, end: nil, now: now)
        }
        #expect(error?.message(.en) == "value: steps are counted in whole numbers; 12.5 is not one.")
        #expect(error?.message(.ja).contains("整数") == true)
        #expect(try HealthRules.validate(type: "steps", value: 12, unit: nil, start: now, end: nil, now: now).value == 12)
        #expect(try HealthRules.validate(type: "weight", value: 64.25, unit: "kg", start: now, end: nil, now: now).value == 64.25)
    }
}
