import Foundation

/// Spearman's rank correlation with a 95% confidence interval: honest enough to show a person, pure enough to test.
public enum Correlation {
    public struct Result: Sendable, Equatable {
        /// Spearman's rho, from -1 to 1.
        public let rho: Double
        public let n: Int
        /// The 95% interval for rho.
        public let lower: Double
        public let upper: Double

        /// The interval leaves out zero: the data say there is a relation (in this sample, not why).
        public var excludesZero: Bool { lower > 0 || upper < 0 }
    }

    /// Ranks from 1, ties sharing the average of the ranks they span (1, 2.5, 2.5, 4).
    public static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var result = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let average = Double(start + end) / 2 + 1
            for position in start...end { result[order[position]] = average }
            start = end + 1
        }
        return result
    }

    /// Pearson's r on the ranks, which handles ties correctly. Nil with fewer than 4 pairs (no interval) or when
    /// either side is constant (no ranking to correlate).
    public static func spearman(_ x: [Double], _ y: [Double]) -> Result? {
        let pairs = zip(x, y).filter { $0.0.isFinite && $0.1.isFinite }
        let n = pairs.count
        guard n >= 4 else { return nil }
        let rx = ranks(pairs.map(\.0)), ry = ranks(pairs.map(\.1))
        let mean = Double(n + 1) / 2
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in 0..<n {
            let dx = rx[i] - mean, dy = ry[i] - mean
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        }
        guard sxx > 0, syy > 0 else { return nil }
        let rho = max(-1, min(1, sxy / (sxx * syy).squareRoot()))
        let (lower, upper) = interval(rho: rho, n: n)
        return Result(rho: rho, n: n, lower: lower, upper: upper)
    }

    /// Fisher's z with the Bonett–Wright standard error for Spearman, sqrt((1 + rho²/2) / (n − 3)): wider than
    /// Pearson's 1/sqrt(n − 3), as ranks carry less information than values. 1.96 for 95%.
    public static func interval(rho: Double, n: Int) -> (Double, Double) {
        guard n > 3 else { return (-1, 1) }
        // atanh(±1) is infinite; a perfect sample still gets a finite, if narrow, interval.
        let clipped = max(-0.999999, min(0.999999, rho))
        let z = atanh(clipped)
        let se = ((1 + clipped * clipped / 2) / Double(n - 3)).squareRoot()
        return (tanh(z - 1.96 * se), tanh(z + 1.96 * se))
    }
}

/// What the day rating is compared with.
public enum InsightMeasure: String, Sendable, Codable, CaseIterable {
    case steps, sleep, workouts, visits, newPlaces, videoHours

    /// The value on a day, nil where the day does not say (no steps recorded is not zero steps).
    /// `since` is when the person started using that domain: before it, a zero means nothing.
    func value(_ day: DaySummary, since: [JournalDomain: DayKey]) -> Double? {
        func started(_ domain: JournalDomain) -> Bool { since[domain].map { day.key >= $0 } ?? false }
        switch self {
        case .steps: return day.steps
        case .sleep: return day.sleepHours
        case .workouts: return day.healthRecords > 0 ? (day.workoutMinutes > 0 ? day.workoutMinutes : Double(day.workouts)) : nil
        case .visits: return started(.visits) ? Double(day.visits) : nil
        case .newPlaces: return started(.visits) ? Double(day.newPlaces) : nil
        case .videoHours: return started(.videos) ? day.videoHours : nil
        }
    }
}

/// One insight the data support: a correlation whose interval leaves out zero, with enough days.
public struct Insight: Sendable, Equatable {
    public enum Lag: String, Sendable, Codable { case sameDay, nextDay }
    public let measure: InsightMeasure
    public let lag: Lag
    public let result: Correlation.Result
    /// The split used in the sentence: days above it against days at or below it.
    public let threshold: Double
    /// Mean rating on days above the threshold and at or below it.
    public let ratingAbove: Double
    public let ratingBelow: Double
}

public enum Insights {
    /// Fewer days than this and nothing is said, whatever the interval: a small sample's interval is itself unsure.
    public static let minimumDays = 30

    /// Every measure against the day rating, the same day and the day after; only what the data support.
    /// `days` are the days with anything; the rating is the person's own or the default from the moods.
    public static func find(_ days: [DayKey: DaySummary], zone: TimeZone = .gmt, minimum: Int = minimumDays) -> [Insight] {
        var since: [JournalDomain: DayKey] = [:]
        for day in days.values {
            for domain in day.domains where since[domain].map({ day.key < $0 }) ?? true { since[domain] = day.key }
        }
        var result: [Insight] = []
        for measure in InsightMeasure.allCases {
            for lag in [Insight.Lag.sameDay, .nextDay] {
                var xs: [Double] = [], ys: [Double] = []
                for day in days.values {
                    guard let x = measure.value(day, since: since) else { continue }
                    let ratedDay = lag == .sameDay ? day : days[day.key.adding(days: 1, in: .gmt)]
                    guard let rating = ratedDay?.rating else { continue }
                    xs.append(x)
                    ys.append(Double(rating.rawValue))
                }
                guard xs.count >= minimum, let correlation = Correlation.spearman(xs, ys), correlation.excludesZero else { continue }
                let threshold = Self.threshold(xs, measure: measure)
                let above = zip(xs, ys).filter { $0.0 > threshold }.map(\.1)
                let below = zip(xs, ys).filter { $0.0 <= threshold }.map(\.1)
                guard !above.isEmpty, !below.isEmpty else { continue }
                result.append(Insight(measure: measure, lag: lag, result: correlation, threshold: threshold,
                                      ratingAbove: above.reduce(0, +) / Double(above.count), ratingBelow: below.reduce(0, +) / Double(below.count)))
            }
        }
        return result.sorted { abs($0.result.rho) > abs($1.result.rho) }
    }

    /// The median, rounded to a number a person would say (steps to the thousand, sleep to the half hour).
    static func threshold(_ values: [Double], measure: InsightMeasure) -> Double {
        let sorted = values.sorted()
        let median = sorted.isEmpty ? 0 : (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        switch measure {
        case .steps: return (median / 1000).rounded() * 1000
        case .sleep, .videoHours: return (median * 2).rounded() / 2
        case .workouts, .visits, .newPlaces: return median.rounded(.down)
        }
    }
}
