import Foundation

/// Sleep as nights: the stage samples Apple Health keeps (in bed, awake, core, deep, REM, and the older
/// "asleep" without a stage), from the export and from Health Auto Export, grouped into nights.
///
/// Sources overlap: a watch and a phone both record the same night, and the app re-sends a night it sent
/// before. So time is never added up sample by sample: a stage's time is the length of the union of its
/// samples, and time asleep is the union of every asleep stage's samples. Totals without times (Health
/// Auto Export's "summarize data", a manual entry) count only for a night that has no stage samples, and
/// the largest total of each stage is taken, never their sum (a re-captured night sends a larger one).
///
/// A night is assigned to the local date it ends on: Tuesday night's sleep, woken from on Wednesday,
/// is Wednesday's. Samples less than `gap` apart belong to one night (a nap hours later is its own).
public enum SleepNights {
    public enum Stage: String, CaseIterable, Sendable, Codable {
        case inBed, awake, rem, core, deep, asleep

        /// Stages that count as asleep (in bed and awake do not).
        public var isAsleep: Bool { self == .rem || self == .core || self == .deep || self == .asleep }

        /// The stage of a sleep record's category ("AsleepCore", "InBed", …; empty for a manual entry).
        public static func of(category: String) -> Stage? {
            switch category {
            case "InBed": .inBed
            case "Awake": .awake
            case "AsleepREM": .rem
            case "AsleepCore": .core
            case "AsleepDeep": .deep
            case "Asleep", "AsleepUnspecified", "": .asleep
            default: nil
            }
        }
    }

    public struct Sample: Sendable, Equatable {
        public var start: Int64
        public var end: Int64
        public var stage: Stage
        /// The hours a total says; for a stage sample, its span.
        public var hours: Double
        /// A total without its own times (its span is the night's, not the stage's).
        public var isTotal: Bool

        public init(start: Int64, end: Int64, stage: Stage, hours: Double, isTotal: Bool) {
            self.start = start
            self.end = max(start, end)
            self.stage = stage
            self.hours = hours
            self.isTotal = isTotal
        }
    }

    public struct Night: Sendable, Equatable {
        /// The local day it ends on (days since 1970-01-01).
        public var day: Int
        public var start: Int64
        public var end: Int64
        public var asleepHours: Double
        public var inBedHours: Double
        /// Hours per stage (union over sources), for the stages recorded.
        public var stageHours: [Stage: Double]
        /// The stage samples, merged per stage (no overlaps inside a stage), for drawing.
        public var intervals: [Stage: [ClosedRange<Int64>]]
        /// True when the night's numbers come from totals only (nothing to draw against time).
        public var fromTotals: Bool
        /// How many records the night was made of.
        public var samples: Int
    }

    /// Overlapping or touching ranges merged, sorted.
    public static func union(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var merged: [ClosedRange<Int64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    static func hours(_ ranges: [ClosedRange<Int64>]) -> Double {
        Double(ranges.reduce(Int64(0)) { $0 &+ ($1.upperBound - $1.lowerBound) }) / 3600
    }

    public static func nights(_ samples: [Sample], timeZone: TimeZone, gap: Int64 = 3 * 3600) -> [Night] {
        var clusters: [[Sample]] = []
        var clusterEnd = Int64.min
        for sample in samples.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if clusters.isEmpty || sample.start > clusterEnd.addingReportingOverflow(gap).partialValue {
                clusters.append([sample])
                clusterEnd = sample.end
            } else {
                clusters[clusters.count - 1].append(sample)
                clusterEnd = max(clusterEnd, sample.end)
            }
        }
        return clusters.compactMap { night($0, timeZone: timeZone) }
    }

    static func night(_ samples: [Sample], timeZone: TimeZone) -> Night? {
        guard let start = samples.map(\.start).min(), let end = samples.map(\.end).max() else { return nil }
        var intervals: [Stage: [ClosedRange<Int64>]] = [:]
        var totals: [Stage: Double] = [:]
        for sample in samples {
            if sample.isTotal {
                guard sample.hours.isFinite, sample.hours > 0 else { continue }
                totals[sample.stage] = max(totals[sample.stage] ?? 0, sample.hours)
            } else if sample.end > sample.start {
                intervals[sample.stage, default: []].append(sample.start...sample.end)
            }
        }
        for stage in intervals.keys { intervals[stage] = union(intervals[stage] ?? []) }
        var stageHours: [Stage: Double] = [:]
        for (stage, ranges) in intervals { stageHours[stage] = hours(ranges) }
        let asleepRanges = union(intervals.filter { $0.key.isAsleep }.flatMap(\.value))
        let fromTotals = asleepRanges.isEmpty && intervals[.inBed] == nil
        var asleep = hours(asleepRanges)
        if asleepRanges.isEmpty {
            // No stage samples asleep: the totals say it (each stage's largest, summed over the stages).
            for (stage, value) in totals where stage.isAsleep {
                stageHours[stage] = value
                asleep += value
            }
        }
        if stageHours[.awake] == nil, let awake = totals[.awake] { stageHours[.awake] = awake }
        var inBed = stageHours[.inBed] ?? 0
        if intervals[.inBed] == nil, let total = totals[.inBed] {
            inBed = total
            stageHours[.inBed] = total
        }
        guard asleep > 0 || inBed > 0 else { return nil }
        return Night(day: TrendAnalyzer.localDay(end, timeZone: timeZone), start: start, end: end, asleepHours: asleep, inBedHours: inBed,
                     stageHours: stageHours, intervals: intervals, fromTotals: fromTotals, samples: samples.count)
    }

    /// The trend's samples: one per night, at its end, valued at the hours asleep (a night without any
    /// asleep time, only in bed, is left out rather than counted as zero hours of sleep).
    public static func trendSamples(_ nights: [Night]) -> [TrendAnalyzer.Sample] {
        nights.filter { $0.asleepHours > 0 }.map { TrendAnalyzer.Sample(instant: $0.end, value: $0.asleepHours) }
    }

    /// Hours asleep in the nights (naps included: each is a night of its own) that end within `window`:
    /// what a sleep goal counts. Stages and sources that overlap count once, as in every night.
    public static func asleepHours(_ nights: [Night], endingIn window: ClosedRange<Int64>) -> Double {
        nights.filter { window.contains($0.end) }.reduce(0) { $0 + $1.asleepHours }
    }

    /// "7.2 h asleep a night on average over 14 nights", for the insights; nil without a night asleep.
    public static func averageInsight(_ nights: [Night]) -> HealthInsight? {
        let asleep = nights.map(\.asleepHours).filter { $0 > 0 }
        guard !asleep.isEmpty else { return nil }
        let mean = asleep.reduce(0, +) / Double(asleep.count)
        let shortest = asleep.min() ?? mean, longest = asleep.max() ?? mean
        let n = asleep.count
        return HealthInsight(
            title: Text(en: "\(HealthFormat.number(mean)) h asleep a night", ja: "1 晩あたり平均 \(HealthFormat.number(mean)) 時間の睡眠"),
            description: Text(en: "Average over \(n) \(n == 1 ? "night" : "nights") (shortest \(HealthFormat.number(shortest)) h, longest \(HealthFormat.number(longest)) h); each night counted once, on the date it ended.",
                              ja: "\(n) 晩の平均です(最短 \(HealthFormat.number(shortest)) 時間、最長 \(HealthFormat.number(longest)) 時間)。各晩は目覚めた日の分として 1 回だけ数えています。"),
            type: .neutral, confidence: nil)
    }
}
