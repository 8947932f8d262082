import Foundation

/// Streaks: consecutive local calendar days with at least one record.
public enum StreakCalculator {
    /// Local day numbers (days since 1970-01-01 in `timeZone`) of the given instants.
    public static func localDays(_ instants: [Int64], timeZone: TimeZone) -> Set<Int> {
        var days = Set<Int>()
        for instant in instants {
            let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
            days.insert(Int(floorDiv(instant + offset, 86400)))
        }
        return days
    }

    public static func longestStreak(days: Set<Int>) -> Int {
        var best = 0
        for day in days where !days.contains(day - 1) {
            var length = 1
            while days.contains(day + length) { length += 1 }
            best = max(best, length)
        }
        return best
    }

    /// The streak that ends today or yesterday (a day not yet recorded does not break it).
    public static func currentStreak(days: Set<Int>, today: Int) -> Int {
        var day = days.contains(today) ? today : today - 1
        var length = 0
        while days.contains(day) { length += 1; day -= 1 }
        return length
    }

    public static func today(now: Date, timeZone: TimeZone) -> Int {
        let instant = Int64(saturating: now.timeIntervalSince1970.rounded(.down))
        return Int(floorDiv(instant + Int64(timeZone.secondsFromGMT(for: now)), 86400))
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}

public enum BadgeRules {
    /// The seed's three badges first, then Hibi's own.
    public static let all: [BadgeDefinition] = [
        BadgeDefinition(key: "first-step", name: Text(en: "First step", ja: "はじめの一歩"),
                        description: Text(en: "Recorded your first entry", ja: "初回記録を達成"), type: .milestone,
                        requirement: .init(type: .totalRecords, value: 1, duration: nil), icon: .star, tier: .bronze),
        BadgeDefinition(key: "streak-7", name: Text(en: "Persistence pays", ja: "継続は力なり"),
                        description: Text(en: "Recorded 7 days in a row", ja: "7日連続記録を達成"), type: .streak,
                        requirement: .init(type: .consecutiveDays, value: 7, duration: 7), icon: .flame, tier: .silver),
        BadgeDefinition(key: "streak-30", name: Text(en: "Health master", ja: "健康マスター"),
                        description: Text(en: "Recorded 30 days in a row", ja: "30日連続記録を達成"), type: .streak,
                        requirement: .init(type: .consecutiveDays, value: 30, duration: 30), icon: .crown, tier: .gold),
        BadgeDefinition(key: "records-100", name: Text(en: "A hundred entries", ja: "記録百選"),
                        description: Text(en: "Kept 100 records", ja: "記録が100件に到達"), type: .milestone,
                        requirement: .init(type: .totalRecords, value: 100, duration: nil), icon: .hundred, tier: .silver),
        BadgeDefinition(key: "steps-100k", name: Text(en: "100,000 steps", ja: "十万歩"),
                        description: Text(en: "Walked 100,000 steps in total", ja: "歩数の合計が10万歩に到達"), type: .milestone,
                        requirement: .init(type: .stepsTotal, value: 100_000, duration: nil), icon: .footprints, tier: .bronze),
        BadgeDefinition(key: "steps-1m", name: Text(en: "A million steps", ja: "百万歩の旅"),
                        description: Text(en: "Walked 1,000,000 steps in total", ja: "歩数の合計が100万歩に到達"), type: .milestone,
                        requirement: .init(type: .stepsTotal, value: 1_000_000, duration: nil), icon: .footprints, tier: .platinum),
        BadgeDefinition(key: "goal-1", name: Text(en: "Goal reached", ja: "目標達成"),
                        description: Text(en: "Achieved a goal", ja: "目標を1つ達成"), type: .achievement,
                        requirement: .init(type: .goalAchievement, value: 1, duration: nil), icon: .target, tier: .gold),
        BadgeDefinition(key: "weight-loss-3", name: Text(en: "3 kg lighter", ja: "マイナス3kg"),
                        description: Text(en: "Lost 3 kg since your first weigh-in", ja: "最初の記録から体重が3kg減少"), type: .achievement,
                        requirement: .init(type: .weightLoss, value: 3, duration: nil), icon: .feather, tier: .gold),
        BadgeDefinition(key: "streak-100", name: Text(en: "Hundred days", ja: "百日継続"),
                        description: Text(en: "Recorded 100 days in a row", ja: "100日連続記録を達成"), type: .special,
                        requirement: .init(type: .consecutiveDays, value: 100, duration: 100), icon: .medal, tier: .platinum),
    ]

    public static func definition(_ key: String) -> BadgeDefinition? { all.first { $0.key == key } }

    public static func isMet(_ requirement: BadgeRequirement, facts: BadgeFacts) -> Bool {
        switch requirement.type {
        case .consecutiveDays: Double(facts.longestStreakDays) >= requirement.value
        case .totalRecords: Double(facts.totalRecords) >= requirement.value
        case .goalAchievement: Double(facts.goalsAchieved) >= requirement.value
        case .weightLoss: facts.weightLossKg >= requirement.value
        case .stepsTotal: facts.stepsTotal >= requirement.value
        }
    }

    /// Badges to award now: met and not earned before.
    public static func newlyEarned(facts: BadgeFacts, alreadyEarned: Set<String>) -> [BadgeDefinition] {
        all.filter { !alreadyEarned.contains($0.key) && isMet($0.requirement, facts: facts) }
    }

    /// Earned badges that stand for goals no longer there: the goal badges whose requirement the goals
    /// that remain do not meet. Records' badges (streaks, totals) stay earned: they stand for days that happened.
    public static func withdrawn(facts: BadgeFacts, earned: Set<String>) -> [BadgeDefinition] {
        all.filter { earned.contains($0.key) && $0.requirement.type == .goalAchievement && !isMet($0.requirement, facts: facts) }
    }

    /// How far along a locked badge is, 0...1, for the badge page.
    public static func progress(_ requirement: BadgeRequirement, facts: BadgeFacts) -> Double {
        let current: Double = switch requirement.type {
        case .consecutiveDays: Double(facts.longestStreakDays)
        case .totalRecords: Double(facts.totalRecords)
        case .goalAchievement: Double(facts.goalsAchieved)
        case .weightLoss: facts.weightLossKg
        case .stepsTotal: facts.stepsTotal
        }
        return requirement.value <= 0 ? 1 : min(1, max(0, current / requirement.value))
    }
}

public enum GoalRules {
    /// Cumulative goals (steps, energy, distance) count everything recorded between setting the goal and
    /// its deadline (or, without a deadline, today's total); level goals (weight, body fat) compare the latest value with the target, in the
    /// direction from where the user started.
    public static func progress(goal: Goal, total: Double, latest: Double?, now: Date) -> GoalProgress {
        let fraction: Double
        let reached: Bool
        let current: Double?
        if goal.type.isCumulative {
            current = total
            fraction = goal.targetValue <= 0 ? 1 : min(1, total / goal.targetValue)
            reached = total >= goal.targetValue
        } else {
            current = latest
            guard let latest else {
                return GoalProgress(currentValue: nil, fraction: 0, status: goal.achievedAt != nil ? .achieved : (isPast(goal.deadline, now) ? .missed : .active))
            }
            let start = goal.startValue ?? latest
            let decreasing = goal.targetValue < start || (goal.targetValue == start && goal.type.higherIsBetter == false)
            reached = decreasing ? latest <= goal.targetValue : latest >= goal.targetValue
            let span = abs(start - goal.targetValue)
            fraction = reached ? 1 : (span == 0 ? 0 : min(1, max(0, (decreasing ? start - latest : latest - start) / span)))
        }
        // A daily goal is achieved on the days it is reached (its first time is stamped for the badge).
        let stamped = goal.achievedAt != nil && !isDaily(goal)
        let status: GoalStatus = stamped || reached ? .achieved : (isPast(goal.deadline, now) ? .missed : .active)
        return GoalProgress(currentValue: current, fraction: fraction, status: status)
    }

    /// A cumulative goal without a deadline counts one day at a time.
    public static func isDaily(_ goal: Goal) -> Bool { goal.deadline == nil && goal.type.isCumulative }

    static func isPast(_ deadline: Date?, _ now: Date) -> Bool { deadline.map { now > $0 } ?? false }
}

public enum TrendAnalyzer {
    public struct Sample: Sendable, Equatable {
        public let instant: Int64
        public let value: Double
        public init(instant: Int64, value: Double) {
            self.instant = instant
            self.value = value
        }
    }

    /// The window a range covers, ending at `now`, as local day numbers.
    public static func window(_ range: TrendRange, now: Date, timeZone: TimeZone) -> (firstDay: Int, lastDay: Int) {
        let today = StreakCalculator.today(now: now, timeZone: timeZone)
        let length = switch range {
        case .week: 7
        case .month: 30
        case .year: 364
        }
        return (today - length + 1, today)
    }

    /// The local day an instant falls on (days since 1970-01-01 in `timeZone`).
    public static func localDay(_ instant: Int64, timeZone: TimeZone) -> Int {
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        return Int(StreakCalculator.floorDiv(instant &+ offset, 86400))
    }

    /// Points for a week, month or year back from today, summed or averaged by the type.
    public static func analyze(samples: [Sample], type: HealthDataType, range: TrendRange, now: Date, timeZone: TimeZone,
                               targetBelowCurrent: Bool? = nil) -> TrendAnalysis {
        let (firstDay, lastDay) = window(range, now: now, timeZone: timeZone)
        return analyze(samples: samples, type: type, window: TrendWindow(firstDay: firstDay, lastDay: lastDay), timeZone: timeZone,
                       targetBelowCurrent: targetBelowCurrent)
    }

    /// Points over any window, one per bucket with data (daily, weekly or monthly by the window's length), summed or
    /// averaged by the type, with a trailing moving average. Buckets without records are left out, never filled in.
    public static func analyze(samples: [Sample], type: HealthDataType, window: TrendWindow, timeZone: TimeZone,
                               targetBelowCurrent: Bool? = nil) -> TrendAnalysis {
        var sums: [Int: (Double, Int)] = [:]
        var observed: (first: Int, last: Int)?
        for sample in samples {
            let day = localDay(sample.instant, timeZone: timeZone)
            guard day >= window.firstDay, day <= window.lastDay else { continue }
            observed = (min(observed?.first ?? day, day), max(observed?.last ?? day, day))
            let bucket = window.bucketIndex(day)
            let current = sums[bucket] ?? (0, 0)
            sums[bucket] = (current.0 + sample.value, current.1 + 1)
        }
        var dayValues: [(day: Int, value: Double)] = []
        for (bucket, (sum, count)) in sums.sorted(by: { $0.key < $1.key }) {
            let days = window.bucketDays(bucket)
            var value = type.isCumulative ? sum : sum / Double(count)
            // A weekly or monthly bucket of a cumulative type is shown as a daily average over the bucket's days inside
            // the window (a partial week or month at either end is not diluted by days outside it), comparable with daily views.
            if type.isCumulative, window.bucket != .day { value = sum / Double(days.upperBound - days.lowerBound + 1) }
            dayValues.append((days.lowerBound, value))
        }
        let averages = movingAverage(dayValues.map(\.value), window: window.bucket.movingAverageWindow)
        let points = zip(dayValues, averages).map { pair in
            TrendPoint(date: Date(timeIntervalSince1970: TimeInterval(pair.0.day) * 86400), value: pair.0.value, movingAverage: pair.1)
        }
        let fit = linearFit(dayValues.map { (Double($0.day), $0.value) })
        let insights = insights(type: type, bucket: window.bucket, observedDays: observed, values: dayValues.map(\.value), fit: fit,
                                expectedPoints: window.bucketCount, targetBelowCurrent: targetBelowCurrent)
        return TrendAnalysis(trendPoints: points, insights: insights, slopePerDay: fit?.slope, rSquared: fit?.r2)
    }

    /// Trailing moving average; the first points average what is available so far.
    public static func movingAverage(_ values: [Double], window: Int) -> [Double] {
        guard window > 0 else { return values }
        var result: [Double] = []
        result.reserveCapacity(values.count)
        var sum = 0.0
        for (index, value) in values.enumerated() {
            sum += value
            if index >= window { sum -= values[index - window] }
            result.append(sum / Double(min(index + 1, window)))
        }
        return result
    }

    public struct Fit: Sendable, Equatable {
        public let slope: Double
        public let intercept: Double
        public let r2: Double
        public let count: Int
    }

    /// Least squares over (x, y); nil with fewer than 3 points or no spread in x.
    public static func linearFit(_ points: [(Double, Double)]) -> Fit? {
        let n = Double(points.count)
        guard points.count >= 3 else { return nil }
        let meanX = points.map { $0.0 }.reduce(0, +) / n
        let meanY = points.map { $0.1 }.reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for (x, y) in points {
            sxx += (x - meanX) * (x - meanX)
            sxy += (x - meanX) * (y - meanY)
            syy += (y - meanY) * (y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        let r2 = syy == 0 ? 1 : min(1, max(0, (sxy * sxy) / (sxx * syy)))
        return Fit(slope: slope, intercept: meanY - slope * meanX, r2: r2, count: points.count)
    }

    /// Confidence of a trend: how well a line explains the data (R²), discounted when it rests on few points.
    public static func confidence(r2: Double, count: Int) -> Double {
        guard count >= 3 else { return 0 }
        let support = Double(count - 2) / Double(count + 3)
        return (min(1, max(0, r2)) * support * 100).rounded() / 100
    }

    /// The observed period in words: "10 weeks", "1 day", "約3か月".
    public static func spanText(days: Int) -> Text {
        let days = max(1, days)
        if days < 14 { return Text(en: days == 1 ? "1 day" : "\(days) days", ja: "\(days)日間") }
        if days < 90 {
            let weeks = Int(saturating: (Double(days) / 7).rounded())
            return Text(en: "\(weeks) weeks", ja: "\(weeks)週間")
        }
        let months = Int(saturating: (Double(days) / 30.44).rounded())
        return Text(en: months == 1 ? "1 month" : "\(months) months", ja: "\(months)か月")
    }

    /// Insights describe what the data shows over the days it covers: the fitted line's change from the first
    /// observed point to the last, relative to where the line started. Nothing is extrapolated past the data
    /// (ten weeks of records never become "over this year"). Only the trend claim carries a confidence; a
    /// note that there is little data or no clear change is not a measurement and gets none.
    static func insights(type: HealthDataType, bucket: TrendWindow.Bucket, observedDays: (first: Int, last: Int)?, values: [Double], fit: Fit?, expectedPoints: Int,
                         targetBelowCurrent: Bool?) -> [HealthInsight] {
        var result: [HealthInsight] = []
        let name = type.title
        if let fit, let observedDays {
            let firstDay = Double(observedDays.first), lastDay = Double(observedDays.last)
            let startValue = fit.intercept + fit.slope * firstDay
            let change = fit.slope * (lastDay - firstDay)
            let relative = startValue == 0 ? 0 : change / abs(startValue)
            let confidence = confidence(r2: fit.r2, count: fit.count)
            let span = spanText(days: observedDays.last - observedDays.first)
            if abs(relative) < 0.01 || confidence < 0.05 {
                result.append(HealthInsight(
                    title: Text(en: "\(name.en) is steady", ja: "\(name.ja)は安定しています"),
                    description: Text(en: "No clear rise or fall over \(span.en).", ja: "\(span.ja)ではっきりした増減はありません。"),
                    type: .neutral, confidence: nil))
            } else {
                let rising = change > 0
                var better = type.higherIsBetter
                if type == .weight, let targetBelowCurrent { better = !targetBelowCurrent }
                let kind: InsightType = better.map { $0 == rising ? .positive : .warning } ?? .neutral
                let percent = max(1, Int(saturating: (abs(relative) * 100).rounded()))
                result.append(HealthInsight(
                    title: rising ? Text(en: "\(name.en) is rising", ja: "\(name.ja)が増えています")
                                  : Text(en: "\(name.en) is falling", ja: "\(name.ja)が減っています"),
                    description: Text(en: "About \(percent)% \(rising ? "up" : "down") over \(span.en) of records, by a fitted trend line.",
                                      ja: "記録のある\(span.ja)で約\(percent)%\(rising ? "増加" : "減少")しています(回帰直線による)。"),
                    type: kind, confidence: confidence))
            }
        }
        if expectedPoints > 0, values.count * 2 < expectedPoints {
            result.append(HealthInsight(
                title: Text(en: "Few records", ja: "記録が少なめです"),
                // "1 of 30 days have data" read wrong: the verb follows the count.
                description: Text(en: "\(values.count) of \(expectedPoints) \(bucket.plural.en) \(values.count == 1 ? "has" : "have") data; trends may be unreliable.",
                                  ja: "\(expectedPoints) \(bucket.plural.ja)のうち \(values.count) \(bucket.plural.ja)しか記録がないため、傾向は参考程度です。"),
                type: .warning, confidence: nil))
        }
        return result
    }
}

/// A span of local days, both ends included, and the size of the buckets its points are drawn in.
public struct TrendWindow: Sendable, Equatable {
    /// Days up to about two months (62 days) are drawn day by day, up to about two years (731 days) week by week,
    /// longer spans month by month: a chart keeps between a few and about a hundred points whatever its length.
    public enum Bucket: String, Sendable {
        case day, week, month

        var movingAverageWindow: Int {
            switch self {
            case .day: 7
            case .week: 4
            case .month: 3
            }
        }

        var plural: Text {
            switch self {
            case .day: Text(en: "days", ja: "日")
            case .week: Text(en: "weeks", ja: "週")
            case .month: Text(en: "months", ja: "か月")
            }
        }
    }

    /// Day numbers of 1970-01-01 and 9999-12-31, the days Hibi keeps. A window never leaves them, so its bucket count
    /// is bounded (at most 62 days, 105 weeks or about 96,000 months) and its day arithmetic cannot overflow.
    public static let keptDays = 0...2_932_896

    public let firstDay: Int
    public let lastDay: Int
    public let bucket: Bucket

    /// Both ends are clamped to the kept days; a reversed window becomes the single day `firstDay`.
    public init(firstDay: Int, lastDay: Int) {
        let first = min(max(firstDay, Self.keptDays.lowerBound), Self.keptDays.upperBound)
        let last = min(max(lastDay, first), Self.keptDays.upperBound)
        self.firstDay = first
        self.lastDay = last
        let length = last - first + 1
        bucket = length <= 62 ? .day : (length <= 731 ? .week : .month)
    }

    public var first: DayKey { DayKey(daysSince1970: Int64(firstDay)) }
    public var last: DayKey { DayKey(daysSince1970: Int64(lastDay)) }

    static func monthIndex(_ day: Int) -> Int {
        let key = DayKey(daysSince1970: Int64(day))
        return key.year * 12 + key.month - 1
    }

    /// Which bucket a day inside the window falls in, counting from 0. Weeks start on the window's first day;
    /// months are calendar months.
    public func bucketIndex(_ day: Int) -> Int {
        switch bucket {
        case .day: day - firstDay
        case .week: (day - firstDay) / 7
        case .month: Self.monthIndex(day) - Self.monthIndex(firstDay)
        }
    }

    /// The days of a bucket that lie inside the window.
    public func bucketDays(_ index: Int) -> ClosedRange<Int> {
        let start: Int, end: Int
        switch bucket {
        case .day:
            start = firstDay + index; end = start
        case .week:
            start = firstDay + index * 7; end = start + 6
        case .month:
            let month = Self.monthIndex(firstDay) + index
            let year = month / 12, monthOfYear = month % 12 + 1
            start = Int(DayKey(year: year, month: monthOfYear, day: 1).daysSince1970)
            let next = monthOfYear == 12 ? DayKey(year: year + 1, month: 1, day: 1) : DayKey(year: year, month: monthOfYear + 1, day: 1)
            end = Int(next.daysSince1970) - 1
        }
        return max(start, firstDay)...max(max(start, firstDay), min(end, lastDay))
    }

    /// How many buckets the window holds, with or without data.
    public var bucketCount: Int { bucketIndex(lastDay) + 1 }
}

public enum ReminderSchedule {
    /// The latest scheduled moment at or before `now` (Unix seconds), if it is within `grace` seconds.
    /// A restarted server still sends a reminder it missed by a little, never one from long ago.
    public static func dueSlot(minuteOfDay: Int, weekdays: Set<Int>, timeZone: TimeZone, now: Date, grace: TimeInterval) -> Int64? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        for dayBack in 0...1 {
            guard let day = calendar.date(byAdding: .day, value: -dayBack, to: now) else { continue }
            let weekday = calendar.component(.weekday, from: day)
            guard weekdays.isEmpty || weekdays.contains(weekday) else { continue }
            var components = calendar.dateComponents([.year, .month, .day], from: day)
            components.hour = minuteOfDay / 60
            components.minute = minuteOfDay % 60
            guard let slot = calendar.date(from: components), slot <= now else { continue }
            return now.timeIntervalSince(slot) <= grace ? Int64(saturating: slot.timeIntervalSince1970) : nil
        }
        return nil
    }

    /// The next moment the reminder fires after `now`, for display.
    public static func nextSlot(minuteOfDay: Int, weekdays: Set<Int>, timeZone: TimeZone, now: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        for dayAhead in 0...7 {
            guard let day = calendar.date(byAdding: .day, value: dayAhead, to: now) else { continue }
            guard weekdays.isEmpty || weekdays.contains(calendar.component(.weekday, from: day)) else { continue }
            var components = calendar.dateComponents([.year, .month, .day], from: day)
            components.hour = minuteOfDay / 60
            components.minute = minuteOfDay % 60
            if let slot = calendar.date(from: components), slot > now { return slot }
        }
        return nil
    }

    /// "07:30" → 450
    public static func parseTime(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        return h * 60 + m
    }

    public static func formatTime(_ minute: Int) -> String {
        String(format: "%02d:%02d", minute / 60, minute % 60)
    }
}
