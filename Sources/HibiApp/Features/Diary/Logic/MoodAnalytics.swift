import Foundation

/// Seed 000's MoodStatistics.
public struct MoodStatistics: Sendable, Equatable, Codable {
    public let moodDistribution: [String: Int]
    public let totalEntries: Int
    public let mostFrequentMood: Mood?
    /// Entries divided by calendar days from the first to the last entry, both included, in the user's time zone.
    public let averageEntriesPerDay: Double
    public let dateRange: DateRange?

    public struct DateRange: Sendable, Equatable, Codable {
        public let start: Date
        public let end: Date
    }

    public func count(_ mood: Mood) -> Int { moodDistribution[mood.rawValue] ?? 0 }
}

public enum AnalyticsPeriod: String, Sendable, CaseIterable, Codable {
    case week, month, year
}

public struct DayMood: Sendable, Equatable, Codable {
    /// Local calendar day, "YYYY-MM-DD".
    public let day: String
    public let mood: Mood
    public let entries: Int
}

/// Pure mood statistics. Days are calendar days in the user's time zone, never UTC days.
/// What statistics need, summed up: the database computes it with one GROUP BY instead of sending every row.
public struct MoodTally: Sendable, Equatable {
    public var counts: [Mood: Int] = [:]
    public var total = 0
    public var first: Date?
    public var last: Date?

    public init(counts: [Mood: Int] = [:], total: Int = 0, first: Date? = nil, last: Date? = nil) {
        self.counts = counts
        self.total = total
        self.first = first
        self.last = last
    }

    public init(_ points: [MoodPoint]) {
        for point in points {
            if let mood = point.mood { counts[mood, default: 0] += 1 }
            total += 1
            first = min(first ?? point.date, point.date)
            last = max(last ?? point.date, point.date)
        }
    }
}

public enum MoodAnalytics {
    public static func statistics(_ points: [MoodPoint], timeZone: TimeZone) -> MoodStatistics {
        statistics(MoodTally(points), timeZone: timeZone)
    }

    public static func statistics(_ tally: MoodTally, timeZone: TimeZone) -> MoodStatistics {
        guard let first = tally.first, let last = tally.last, tally.total > 0 else {
            return MoodStatistics(moodDistribution: [:], totalEntries: 0, mostFrequentMood: nil, averageEntriesPerDay: 0, dateRange: nil)
        }
        let days = calendarDays(from: first, to: last, timeZone: timeZone)
        return MoodStatistics(
            moodDistribution: Dictionary(uniqueKeysWithValues: tally.counts.map { ($0.key.rawValue, $0.value) }),
            totalEntries: tally.total,
            mostFrequentMood: mostFrequent(tally.counts),
            averageEntriesPerDay: Double(tally.total) / Double(days),
            dateRange: .init(start: first, end: last)
        )
    }

    /// Days touched from `start` to `end` inclusive: 23:00 and 01:00 the next day are two days.
    public static func calendarDays(from start: Date, to end: Date, timeZone: TimeZone) -> Int {
        let calendar = gregorian(timeZone)
        let a = calendar.startOfDay(for: start), b = calendar.startOfDay(for: end)
        return (calendar.dateComponents([.day], from: a, to: b).day ?? 0) + 1
    }

    /// Highest count wins; a tie goes to the mood first in `Mood.allCases` so the answer never flickers.
    static func mostFrequent(_ distribution: [Mood: Int]) -> Mood? {
        distribution.max { a, b in a.value == b.value ? a.key > b.key : a.value < b.value }?.key
    }

    /// Where a trend period starts: this week (from the locale's first weekday, Monday here), this month, or one year back.
    public static func periodStart(_ period: AnalyticsPeriod, now: Date, timeZone: TimeZone) -> Date {
        var calendar = gregorian(timeZone)
        calendar.firstWeekday = 2
        switch period {
        case .week:
            return calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? calendar.startOfDay(for: now)
        case .month:
            return calendar.dateInterval(of: .month, for: now)?.start ?? calendar.startOfDay(for: now)
        case .year:
            return calendar.startOfDay(for: calendar.date(byAdding: .year, value: -1, to: now) ?? now)
        }
    }

    /// One mood per day. A day with several entries is summarised by its most frequent confirmed mood;
    /// when moods tie, the one of the latest entry among them wins (the seed let the last entry overwrite,
    /// which lets one late entry outvote a whole day). Days without a confirmed mood are left out.
    public static func trend(_ points: [MoodPoint], period: AnalyticsPeriod, now: Date, timeZone: TimeZone) -> [DayMood] {
        let start = periodStart(period, now: now, timeZone: timeZone)
        return daily(points.filter { $0.date >= start && $0.date <= now }, timeZone: timeZone)
    }

    public static func daily(_ points: [MoodPoint], timeZone: TimeZone) -> [DayMood] {
        var byDay: [String: [MoodPoint]] = [:]
        for point in points { byDay[dayKey(point.date, timeZone: timeZone), default: []].append(point) }
        return byDay.sorted { $0.key < $1.key }.compactMap { day, entries in
            let confirmed = entries.compactMap { point in point.mood.map { (mood: $0, date: point.date) } }.sorted { $0.date < $1.date }
            var counts: [Mood: Int] = [:]
            var latest: [Mood: Date] = [:]
            for point in confirmed {
                counts[point.mood, default: 0] += 1
                latest[point.mood] = point.date
            }
            // The most frequent mood; a tie goes to the one confirmed last.
            let best = counts.max { a, b in
                a.value == b.value ? (latest[a.key] ?? .distantPast) < (latest[b.key] ?? .distantPast) : a.value < b.value
            }
            return best.map { DayMood(day: day, mood: $0.key, entries: entries.count) }
        }
    }

    /// Gregorian leap years, by arithmetic: no Calendar lookup that could come back empty.
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func dayKey(_ date: Date, timeZone: TimeZone) -> String {
        let c = gregorian(timeZone).dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// The month grid: weeks of seven optional day numbers starting Monday, with each day's mood.
    public struct MonthGrid: Sendable, Equatable {
        public let year: Int
        public let month: Int
        public let weeks: [[Int?]]
        public let moods: [Int: DayMood]
    }

    public static func monthGrid(year: Int, month: Int, days: [DayMood], timeZone: TimeZone) -> MonthGrid {
        let calendar = gregorian(timeZone)
        guard (1...12).contains(month), let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)) else {
            return MonthGrid(year: year, month: month, weeks: [], moods: [:])
        }
        let count = daysIn(year: year, month: month)
        let weekday = calendar.component(.weekday, from: first)
        let leading = (weekday + 5) % 7
        var cells: [Int?] = Array(repeating: nil, count: leading) + (1...count).map { Optional($0) }
        while cells.count % 7 != 0 { cells.append(nil) }
        let prefix = String(format: "%04d-%02d-", year, month)
        var moods: [Int: DayMood] = [:]
        for day in days where day.day.hasPrefix(prefix) {
            if let number = Int(day.day.suffix(2)) { moods[number] = day }
        }
        return MonthGrid(year: year, month: month, weeks: stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<$0 + 7]) }, moods: moods)
    }

    /// "On this day": same month and day in earlier years; 29 February shows on 28 February in other years.
    public static func isOnThisDay(_ date: Date, today: Date, timeZone: TimeZone) -> Bool {
        let calendar = gregorian(timeZone)
        let a = calendar.dateComponents([.year, .month, .day], from: date)
        let b = calendar.dateComponents([.year, .month, .day], from: today)
        guard let earlier = a.year, let year = b.year, earlier < year else { return false }
        if a.month == b.month, a.day == b.day { return true }
        let todayIsLeap = isLeap(year)
        return a.month == 2 && a.day == 29 && b.month == 2 && b.day == 28 && !todayIsLeap
    }

    /// The instants, in earlier years back to `since`, that fall on today's month and day in the user's time zone;
    /// in years without 29 February, a 28 February today also takes the leap day of leap years (as `isOnThisDay`).
    public static func onThisDayWindows(today: Date, since: Date, timeZone: TimeZone) -> [ClosedRange<Date>] {
        let calendar = gregorian(timeZone)
        let now = calendar.dateComponents([.year, .month, .day], from: today)
        let firstYear = calendar.component(.year, from: since)
        guard let year = now.year, let month = now.month, let day = now.day, firstYear < year else { return [] }
        var windows: [ClosedRange<Date>] = []
        for earlier in stride(from: year - 1, through: firstYear, by: -1) {
            var days = [day]
            let todayIsLeap = isLeap(year)
            if month == 2, day == 28, !todayIsLeap { days.append(29) }
            for d in days {
                let components = DateComponents(year: earlier, month: month, day: d)
                guard components.isValidDate(in: calendar), let start = calendar.date(from: components),
                      let end = calendar.date(byAdding: DateComponents(day: 1, second: -1), to: start) else { continue }
                windows.append(start...end)
            }
        }
        return windows
    }

    static func gregorian(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
