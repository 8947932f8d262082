import Foundation

/// A review's period: an ISO week (`2026-W47`, Monday to Sunday) or a calendar month (`2026-11`).
public struct ReviewPeriod: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case week, month }
    public let kind: Kind
    public let first: DayKey
    public let last: DayKey
    /// `2026-W47` or `2026-11`.
    public let slug: String

    static var iso: Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = .gmt
        return calendar
    }

    public static func week(containing day: DayKey) -> ReviewPeriod {
        let calendar = iso
        let noon = day.interval(in: .gmt).start.addingTimeInterval(12 * 3600)
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear, .weekday], from: noon)
        let back = ((parts.weekday ?? 2) + 5) % 7  // days since Monday
        let first = day.adding(days: -back, in: .gmt)
        return ReviewPeriod(kind: .week, first: first, last: first.adding(days: 6, in: .gmt),
                            slug: String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? day.year, parts.weekOfYear ?? 1))
    }

    public static func month(containing day: DayKey) -> ReviewPeriod {
        let frame = MonthCalendar.frame(year: day.year, month: day.month)
        return ReviewPeriod(kind: .month, first: frame.first, last: frame.last, slug: String(format: "%04d-%02d", day.year, day.month))
    }

    /// Parses `2026-W47` (weeks 1–53 that exist in that ISO year) or `2026-11`; nil for anything else.
    public init?(kind: Kind, slug: String) {
        switch kind {
        case .week:
            let parts = slug.split(separator: "-", omittingEmptySubsequences: false)
            guard slug.utf8.count == 8, parts.count == 2, parts[0].count == 4, parts[1].count == 3, parts[1].first == "W",
                  let year = Int(parts[0]), let week = Int(parts[1].dropFirst()), (1971...9998).contains(year), (1...53).contains(week) else { return nil }
            let calendar = Self.iso
            guard let date = calendar.date(from: DateComponents(weekday: 2, weekOfYear: week, yearForWeekOfYear: year)) else { return nil }
            let period = Self.week(containing: DayKey(date, timeZone: .gmt))
            guard period.slug == slug else { return nil }
            self = period
        case .month:
            guard slug.utf8.count == 7, let day = DayKey(slug + "-01"), day.year >= 1971 else { return nil }
            self = Self.month(containing: day)
        }
    }

    init(kind: Kind, first: DayKey, last: DayKey, slug: String) {
        self.kind = kind
        self.first = first
        self.last = last
        self.slug = slug
    }

    /// The period just before, for "changes since last week".
    public var previous: ReviewPeriod {
        kind == .week ? Self.week(containing: first.adding(days: -1, in: .gmt)) : Self.month(containing: first.adding(days: -1, in: .gmt))
    }

    public var next: ReviewPeriod {
        kind == .week ? Self.week(containing: last.adding(days: 1, in: .gmt)) : Self.month(containing: last.adding(days: 1, in: .gmt))
    }
}

/// A period's figures across domains, added up from its days.
public struct ReviewTotals: Sendable, Equatable, Codable {
    public var daysRecorded = 0
    public var diaryEntries = 0
    public var ratedDays = 0
    /// Mean day rating (1–5) over the rated days.
    public var averageRating: Double?
    public var moods: [String: Int] = [:]
    public var steps = 0.0
    /// Mean sleep over the nights with sleep recorded.
    public var averageSleepHours: Double?
    public var workouts = 0
    public var workoutMinutes = 0.0
    public var visits = 0
    public var newPlaces = 0
    public var videos = 0
    public var videoHours = 0.0

    public init() {}

    public static func of(_ days: some Collection<DaySummary>) -> ReviewTotals {
        var totals = ReviewTotals()
        var ratings: [Int] = []
        var sleep: [Double] = []
        for day in days {
            if !day.domains.isEmpty { totals.daysRecorded += 1 }
            totals.diaryEntries += day.diaryEntries
            for mood in day.moods { totals.moods[mood.rawValue, default: 0] += 1 }
            if let rating = day.rating { ratings.append(rating.rawValue) }
            totals.steps += day.steps ?? 0
            if let hours = day.sleepHours { sleep.append(hours) }
            totals.workouts += day.workouts
            totals.workoutMinutes += day.workoutMinutes
            totals.visits += day.visits
            totals.newPlaces += day.newPlaces
            totals.videos += day.videos
            totals.videoHours += day.videoHours
        }
        totals.ratedDays = ratings.count
        totals.averageRating = ratings.isEmpty ? nil : Double(ratings.reduce(0, +)) / Double(ratings.count)
        totals.averageSleepHours = sleep.isEmpty ? nil : sleep.reduce(0, +) / Double(sleep.count)
        return totals
    }

    /// The period's places, on the most days first (ties by name), at most `limit`.
    public static func places(_ days: some Collection<DaySummary>, limit: Int = 10) -> [(name: String, days: Int)] {
        var counts: [String: Int] = [:]
        for day in days { for place in day.places { counts[place, default: 0] += 1 } }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(limit).map { ($0.key, $0.value) }
    }

    /// Percent change from `before` to `now`; nil when there was nothing before (a change from zero has no size).
    public static func change(_ now: Double, from before: Double) -> Double? {
        guard before != 0, now.isFinite, before.isFinite else { return nil }
        return (now - before) / before * 100
    }
}
