import Foundation
import Testing
@testable import HibiApp

/// The statistics behind insights, on data where the answer is known.
struct CorrelationTests {
    /// A fixed sequence (a linear congruential generator), so "random" data are the same on every run.
    struct Numbers {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    @Test func ranksShareTheAverageOfTiedPlaces() {
        #expect(Correlation.ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4])
        #expect(Correlation.ranks([3, 1, 2]) == [3, 1, 2])
        #expect(Correlation.ranks([5, 5, 5]) == [2, 2, 2])
    }

    @Test func spearmanWithTiesMatchesTheHandWorkedValue() throws {
        // Ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): r = 4.5 / sqrt(4.5 × 5) = sqrt(0.9).
        let result = try #require(Correlation.spearman([1, 2, 2, 3], [1, 2, 3, 4]))
        #expect(abs(result.rho - 0.9.squareRoot()) < 1e-12)
        #expect(try #require(Correlation.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 100])).rho == 1, "ranks ignore how far apart")
        #expect(Correlation.spearman([1, 1, 1, 1], [1, 2, 3, 4]) == nil, "a constant side has no ranking")
        #expect(Correlation.spearman([1, 2, 3], [1, 2, 3]) == nil, "three pairs give no interval")
    }

    @Test func theIntervalUsesFisherZWithBonettWrightsError() {
        // rho = 0.5, n = 28: z = 0.5493, se = sqrt(1.125 / 25) = 0.2121, z ± 1.96 se = (0.1335, 0.9651), tanh of those (0.1327, 0.7463).
        let (lower, upper) = Correlation.interval(rho: 0.5, n: 28)
        #expect(abs(lower - tanh(0.549306 - 1.96 * 0.212132)) < 1e-5 && abs(upper - tanh(0.549306 + 1.96 * 0.212132)) < 1e-5)
        #expect(abs(lower - 0.1327) < 1e-3 && abs(upper - 0.7463) < 1e-3)
        let (perfectLow, perfectHigh) = Correlation.interval(rho: 1, n: 40)
        #expect(perfectLow.isFinite && perfectHigh <= 1 && perfectLow > 0.9)
    }

    func days(count: Int, _ make: (Int, inout Numbers) -> (steps: Double, rating: DayRating?)) -> [DayKey: DaySummary] {
        var numbers = Numbers(state: 42)
        var result: [DayKey: DaySummary] = [:]
        var key = DayKey("2025-01-01") ?? DayKey(Date(timeIntervalSince1970: 0), timeZone: .gmt)
        for i in 0..<count {
            let (steps, rating) = make(i, &numbers)
            var day = DaySummary(key: key)
            day.steps = steps
            day.healthRecords = 1
            day.rating = rating
            day.ratingChosen = rating != nil
            result[key] = day
            key = key.adding(days: 1, in: .gmt)
        }
        return result
    }

    @Test func moreStepsHappierDaysIsFoundAndPhrasedWithItsSize() throws {
        let data = days(count: 120) { _, numbers in
            let steps = 2000 + numbers.next() * 12000
            let noisy = steps / 3000 + numbers.next() * 1.5
            return (steps, DayRating(rawValue: min(5, max(1, Int(noisy)))))
        }
        let found = Insights.find(data)
        let steps = try #require(found.first { $0.measure == .steps && $0.lag == .sameDay })
        #expect(steps.result.rho > 0.5 && steps.result.excludesZero && steps.result.n == 120)
        #expect(steps.ratingAbove > steps.ratingBelow)
        let sentence = InsightStrings.sentence(.en, steps)
        #expect(sentence.hasPrefix("On days you walked more than ") && sentence.contains("happier") && sentence.hasSuffix("(n = 120)."))
        #expect(InsightStrings.sentence(.ja, steps).contains("歩より多く歩いた日は"))
        #expect(!found.contains { $0.measure == .visits }, "no visits recorded: nothing said about them")
    }

    @Test func moreStepsSadderDaysIsFoundAsNegative() throws {
        let data = days(count: 90) { _, numbers in
            let steps = numbers.next() * 15000
            return (steps, DayRating(rawValue: min(5, max(1, 5 - Int(steps / 3500)))))
        }
        let steps = try #require(Insights.find(data).first { $0.measure == .steps && $0.lag == .sameDay })
        #expect(steps.result.rho < -0.5 && steps.result.upper < 0)
        #expect(InsightStrings.sentence(.en, steps).contains("lower on average"))
    }

    @Test func independentDataShowNothing() {
        let data = days(count: 400) { _, numbers in
            (numbers.next() * 15000, DayRating(rawValue: 1 + Int(numbers.next() * 5)))
        }
        let steps = data.values.compactMap(\.steps)
        #expect(steps.count == 400)
        #expect(Insights.find(data).isEmpty)
    }

    @Test func tooFewDaysShowNothingEvenWhenPerfect() {
        let data = days(count: 29) { i, _ in (Double(i) * 500, DayRating(rawValue: 1 + i / 6)) }
        #expect(Correlation.spearman(data.values.compactMap(\.steps), data.values.compactMap { $0.rating.map { Double($0.rawValue) } })?.excludesZero == true)
        #expect(Insights.find(data).isEmpty, "29 days is below the minimum of \(Insights.minimumDays)")
    }

    @Test func theNextDayPairsADayWithTheRatingOfTheDayAfter() throws {
        // Today's steps predict tomorrow's rating only: the same-day ratings are shuffled.
        var numbers = Numbers(state: 11)
        let steps = (0..<100).map { _ in numbers.next() * 15000 }
        let data = days(count: 100) { i, numbers in
            let tomorrowOf = i > 0 ? steps[i - 1] : 0
            _ = numbers.next()
            return (steps[i], DayRating(rawValue: min(5, 1 + Int(tomorrowOf / 3001))))
        }
        let found = Insights.find(data)
        #expect(found.contains { $0.measure == .steps && $0.lag == .nextDay && $0.result.rho > 0.9 })
        #expect(!found.contains { $0.measure == .steps && $0.lag == .sameDay })
        #expect(try #require(found.first { $0.lag == .nextDay }).threshold.truncatingRemainder(dividingBy: 1000) == 0, "steps split at a round thousand")
    }
}
