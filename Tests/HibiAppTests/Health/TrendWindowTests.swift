import Foundation
import Testing
@testable import HibiApp

/// Trends over any window: the bucket size follows the window's length, partial buckets are not diluted, nothing
/// is drawn where there are no records.
struct TrendWindowTests {
    func day(_ text: String) throws -> Int { Int(try #require(DayKey(text)).daysSince1970) }

    @Test func theBucketFollowsTheLength() {
        #expect(TrendWindow(firstDay: 100, lastDay: 100).bucket == .day)
        #expect(TrendWindow(firstDay: 100, lastDay: 161).bucket == .day)   // 62 days
        #expect(TrendWindow(firstDay: 100, lastDay: 162).bucket == .week)  // 63 days
        #expect(TrendWindow(firstDay: 100, lastDay: 830).bucket == .week)  // 731 days
        #expect(TrendWindow(firstDay: 100, lastDay: 831).bucket == .month) // 732 days
    }

    @Test func aWindowStaysInsideTheKeptDaysAndItsBucketsAreBounded() {
        let window = TrendWindow(firstDay: Int.min, lastDay: Int.max)
        #expect(window.first.description == "1970-01-01")
        #expect(window.last.description == "9999-12-31")
        #expect(window.bucketCount == (9999 - 1970 + 1) * 12)
        let reversed = TrendWindow(firstDay: 500, lastDay: 10)
        #expect(reversed.firstDay == 500 && reversed.lastDay == 500)
    }

    @Test func monthsAreCalendarMonthsClippedToTheWindow() throws {
        let window = TrendWindow(firstDay: try day("2016-04-10"), lastDay: try day("2018-09-20"))
        #expect(window.bucket == .month)
        #expect(window.bucketCount == 30) // Apr 2016 … Sep 2018
        let firstMonth: ClosedRange<Int> = try day("2016-04-10")...day("2016-04-30")
        let february: ClosedRange<Int> = try day("2017-02-01")...day("2017-02-28")
        let lastMonth: ClosedRange<Int> = try day("2018-09-01")...day("2018-09-20")
        #expect(window.bucketDays(0) == firstMonth)
        #expect(window.bucketDays(10) == february)
        #expect(window.bucketDays(29) == lastMonth)
    }

    /// 1,000 steps every day from 2016-04-10 to 2018-09-20: every monthly point, the partial first and last months
    /// included, is a daily average of 1,000, and there are exactly 30 of them.
    @Test func aConstantDailySeriesReadsTheSameInEveryMonth() throws {
        let first = try day("2016-04-10"), last = try day("2018-09-20")
        let samples = (first...last).map { TrendAnalyzer.Sample(instant: Int64($0) * 86400 + 43200, value: 1000) }
        let analysis = TrendAnalyzer.analyze(samples: samples, type: .steps, window: TrendWindow(firstDay: first, lastDay: last), timeZone: .gmt)
        #expect(analysis.trendPoints.count == 30)
        #expect(analysis.trendPoints.allSatisfy { $0.value == 1000 && $0.movingAverage == 1000 })
        #expect(DayKey(analysis.trendPoints[0].date, timeZone: .gmt).description == "2016-04-10")
        #expect(DayKey(analysis.trendPoints[1].date, timeZone: .gmt).description == "2016-05-01")
        #expect(analysis.insights.first?.title.en == "Steps is steady")
    }

    /// Sums in a 365-day window go by weeks counted from its first day; averages stay averages; empty weeks are absent.
    @Test func weeksSumOrAverageAndLeaveGapsEmpty() throws {
        let first = try day("2017-01-01")
        let window = TrendWindow(firstDay: first, lastDay: try day("2017-12-31"))
        #expect(window.bucket == .week)
        let steps = [TrendAnalyzer.Sample(instant: Int64(first) * 86400, value: 7000),
                     TrendAnalyzer.Sample(instant: Int64(first + 3) * 86400, value: 7000),
                     TrendAnalyzer.Sample(instant: Int64(first + 364) * 86400, value: 700)]
        let summed = TrendAnalyzer.analyze(samples: steps, type: .steps, window: window, timeZone: .gmt)
        #expect(summed.trendPoints.map(\.value) == [2000, 700]) // 14,000 over 7 days; the last week is one day long
        let heart = [TrendAnalyzer.Sample(instant: Int64(first + 10) * 86400, value: 60),
                     TrendAnalyzer.Sample(instant: Int64(first + 11) * 86400, value: 80)]
        let averaged = TrendAnalyzer.analyze(samples: heart, type: .heartRate, window: window, timeZone: .gmt)
        #expect(averaged.trendPoints.map(\.value) == [70])
        #expect(averaged.insights.last?.description.en == "1 of 53 weeks has data; trends may be unreliable.")
    }
}
