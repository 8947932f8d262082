import Foundation

/// Days in a few numbers, over a range: the month calendar, the timeline, reviews and insights. Every feature adds its
/// figures through `OverviewOffer`; the diary gives only dates and confirmed moods (no text is opened), and only when
/// the caller may read the diary.
extension JournalService {
    public func summaries(user: User, first: DayKey, last: DayKey, diaryOpen: Bool, purpose: DayRange.Purpose = .days) async throws -> [DayKey: DaySummary] {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        guard first <= last else { return [:] }
        let range = DayRange(user: user, span: DaySpan(timeZone: zone, first: first, last: last), diaryOpen: diaryOpen, purpose: purpose)
        // The features are read side by side (the database has several connections), each bounded by the range.
        async let figures = Self.askInOrder(overviews) { try await $0.dayFigures(range) }
        async let chosen = ratings.ratings(userID: user.id, from: first, to: last)
        return DaySummaries.combine(try await figures, chosen: try await chosen, span: range.span)
    }

    /// The month around `key`, every day of it (empty days too), for the calendar.
    public func month(user: User, containing key: DayKey, diaryOpen: Bool) async throws -> MonthCalendar {
        let grid = MonthCalendar.frame(year: key.year, month: key.month)
        let days = try await summaries(user: user, first: grid.first, last: grid.last, diaryOpen: diaryOpen)
        return MonthCalendar(year: key.year, month: key.month, first: grid.first, last: grid.last, leadingBlanks: grid.leadingBlanks, days: days)
    }

    /// The oldest moment anything was recorded, so the timeline stops looking further back.
    func earliest(user: User, diaryOpen: Bool) async throws -> Date? {
        // A chosen rating alone does not make a day show on the timeline: it needs something recorded.
        try await Self.askInOrder(overviews) { try await $0.firstRecorded(user: user, diaryOpen: diaryOpen) }.compactMap { $0 }.min()
    }

    /// One page of the timeline: the newest `limit` days before `before` that hold something and pass the filter.
    /// It reads a window back from the cursor, doubling it until the page is full or the window passes the oldest
    /// data, so a page costs the days it shows plus their gaps, never an OFFSET over everything newer.
    public func timeline(user: User, before: DayKey, limit: Int, filter: TimelineFilter, diaryOpen: Bool) async throws -> TimelinePaging.Page {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        guard let oldest = try await earliest(user: user, diaryOpen: diaryOpen) else { return .init(days: [], next: nil) }
        let oldestDay = DayKey(oldest, timeZone: zone)
        let last = before.adding(days: -1, in: zone)
        if last < oldestDay { return .init(days: [], next: nil) }
        var span = max(14, limit * 2)
        while true {
            var windowStart = before.adding(days: -span, in: zone)
            let exhausted = windowStart <= oldestDay
            if exhausted { windowStart = oldestDay }
            let days = try await summaries(user: user, first: windowStart, last: last, diaryOpen: diaryOpen)
            var tagged: Set<DayKey>?
            if let tag = filter.tag {
                let range = DayRange(user: user, span: DaySpan(timeZone: zone, first: windowStart, last: last), diaryOpen: diaryOpen, purpose: .days)
                tagged = try await Self.askInOrder(overviews) { try await $0.daysTagged(tag, range: range) }
                    .reduce(into: Set<DayKey>()) { $0.formUnion($1 ?? []) }
            }
            let (page, complete) = TimelinePaging.page(days, before: before, windowStart: windowStart, limit: limit, filter: filter,
                                                       tagged: tagged, exhausted: exhausted)
            if complete { return page }
            // One request reads at most two years back (a filter matching nothing over a history going back
            // to 1970 took over ten seconds); it answers what it found and a cursor to carry on from.
            if span >= Self.timelineMaxSpanDays { return .init(days: page.days, next: windowStart) }
            span = min(span * 2, Self.timelineMaxSpanDays)
        }
    }

    /// Days one timeline request may read back from its cursor.
    static let timelineMaxSpanDays = 730
}

/// A month laid out for a calendar: blanks before the first (weeks start on Monday), then every day.
public struct MonthCalendar: Sendable {
    public let year: Int
    public let month: Int
    public let first: DayKey
    public let last: DayKey
    public let leadingBlanks: Int
    public let days: [DayKey: DaySummary]

    public static func frame(year: Int, month: Int) -> (first: DayKey, last: DayKey, leadingBlanks: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let start = calendar.date(from: DateComponents(year: year, month: month, day: 1)) ?? Date(timeIntervalSince1970: 0)
        let count = calendar.range(of: .day, in: .month, for: start)?.count ?? 28
        let weekday = calendar.component(.weekday, from: start)  // 1 = Sunday
        let first = DayKey(start, timeZone: .gmt)
        let last = DayKey(start.addingTimeInterval(TimeInterval((count - 1) * 86400)), timeZone: .gmt)
        return (first, last, (weekday + 5) % 7)
    }

    public var allDays: [DayKey] {
        var result: [DayKey] = []
        var day = first
        while day <= last, result.count < 31 {
            result.append(day)
            day = day.adding(days: 1, in: .gmt)
        }
        return result
    }
}

extension JournalService {
    /// The day rating against the other domains over everything recorded. The moods count only when the diary is
    /// readable by the caller; otherwise only the ratings the person chose.
    public func insights(user: User, diaryOpen: Bool, now: Date) async throws -> [Insight] {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        guard let oldest = try await earliest(user: user, diaryOpen: diaryOpen) else { return [] }
        let today = DayKey(now, timeZone: zone)
        let first = DayKey(oldest, timeZone: zone)
        guard first <= today else { return [] }
        let days = try await summaries(user: user, first: first, last: today, diaryOpen: diaryOpen, purpose: .insights)
        return Insights.find(days)
    }
}

extension JournalService {
    public struct Review: Sendable {
        public let period: ReviewPeriod
        public let totals: ReviewTotals
        public let previous: ReviewTotals
        public let places: [(name: String, days: Int)]
        public let badges: [Achievement]
        public let days: [DaySummary]
    }

    /// A week or a month across domains, with the period before for the changes. New places are first visits ever.
    public func review(user: User, period: ReviewPeriod, diaryOpen: Bool) async throws -> Review {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let before = period.previous
        let all = try await summaries(user: user, first: before.first, last: period.last, diaryOpen: diaryOpen, purpose: .review)
        let current = all.values.filter { $0.key >= period.first }.sorted { $0.key < $1.key }
        let earlier = all.values.filter { $0.key <= before.last }
        let start = period.first.interval(in: zone).start, end = period.last.interval(in: zone).end
        let badges = try await Self.askInOrder(overviews) { try await $0.achievements(user: user, from: start, to: end) }.flatMap { $0 }
        return Review(period: period, totals: .of(current), previous: .of(earlier), places: ReviewTotals.places(current), badges: badges, days: current)
    }
}
