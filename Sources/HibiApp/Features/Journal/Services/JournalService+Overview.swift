import Foundation

/// Days in a few numbers, over a range: the month calendar, the timeline, reviews and insights. Read through the
/// other features' services; the diary only gives dates and confirmed moods (no text is opened), and only when
/// the caller may read the diary.
extension JournalService {
    public struct SummaryOptions: Sendable {
        /// First visits to a place need every earlier visit; only reviews and insights ask for them. Their days'
        /// visits are then read from the same light list (names and places, no labels: neither uses labels).
        public var newPlaces = false
        /// Health types to read; nil reads every type the person has (the calendar's dot counts any record). Insights
        /// over years read only the types they correlate.
        public var healthTypes: [String]?
        /// Health types read as one sum per day (an indexed SUM a day instead of a GROUP BY that sorts every sample):
        /// for years of a type with millions of samples. Such a day counts as one health record, since only whether a
        /// day has any is used where these are asked for (insights).
        public var summedTypes: Set<String> = []
        public init(newPlaces: Bool = false, healthTypes: [String]? = nil, summedTypes: Set<String> = []) {
            self.newPlaces = newPlaces
            self.healthTypes = healthTypes
            self.summedTypes = summedTypes
        }
    }

    public func summaries(user: User, first: DayKey, last: DayKey, diaryOpen: Bool, options: SummaryOptions = .init()) async throws -> [DayKey: DaySummary] {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        guard first <= last else { return [:] }
        let start = first.interval(in: zone).start
        let end = last.interval(in: zone).end
        // The domains are read side by side (the database has several connections), each bounded by the range.
        async let moods = diaryOpen ? moodPoints(user: user, start: start, end: end) : nil
        async let health = healthTotals(user: user, zone: zone, start: start, end: end, options: options)
        async let visitMarks = visitMarks(user: user, start: start, end: end, newPlaces: options.newPlaces)
        async let plays = videos.playTimes(userID: user.id, from: start, to: end).map { PlayMark(at: $0.at, seconds: $0.seconds ?? 0) }
        async let chosen = ratings.ratings(userID: user.id, from: first, to: last)
        let (marks, newPlaces) = try await visitMarks
        return DaySummaries.build(zone: zone, first: first, last: last, moods: try await moods, health: try await health, visits: marks,
                                  newPlaces: newPlaces, plays: try await plays, chosen: try await chosen)
    }

    /// The diary's dates and moods: over more than about a year from the covering index whole, else by date.
    func moodPoints(user: User, start: Date, end: Date) async throws -> [MoodPoint] {
        end.timeIntervalSince(start) > Self.longRangeSeconds
            ? try await diary.moodPointsOverYears(userID: user.id, from: start, to: end.addingTimeInterval(-1))
            : try await diary.moodPoints(userID: user.id, from: start, to: end.addingTimeInterval(-1))
    }

    /// Beyond this a range reads the diary's covering index whole (measured: a tenth of the time on ten years).
    static let longRangeSeconds: TimeInterval = 400 * 86400

    /// Health totals per local day (or hour, or quarter hour, over daylight-saving changes) of the types asked for, every
    /// type by name when none are given, so the database answers from its covering index.
    func healthTotals(user: User, zone: TimeZone, start: Date, end: Date, options: SummaryOptions) async throws -> [HealthService.BucketTotal] {
        let types: [String]
        if let asked = options.healthTypes { types = asked } else { types = try await health.recordTypes(userID: user.id) }
        let grouped = types.filter { !options.summedTypes.contains($0) || $0 == HealthDataType.sleep.rawValue }
        let (bucket, shift) = DaySummaries.bucketing(zone, from: start, to: end)
        var totals = grouped.isEmpty ? [] : try await health.bucketTotals(userID: user.id, types: grouped, from: start, to: end, bucket: bucket, shift: shift)
        let spans = DaySummaries.offsetSpans(zone, from: Int64(saturating: start.timeIntervalSince1970), to: Int64(saturating: end.timeIntervalSince1970))
        for type in types where !grouped.contains(type) {
            for span in spans {
                totals += try await health.daySums(userID: user.id, type: type, from: span.from, to: span.to, shift: span.shift)
                    .map { HealthService.BucketTotal(type: type, start: $0.start, sum: $0.sum, count: 1) }
            }
        }
        return totals
    }

    /// The range's visits for summaries, and which of them were a first visit to their place (only when asked: that
    /// needs all history, read as the map's light list, which then gives the range's visits too).
    func visitMarks(user: User, start: Date, end: Date, newPlaces: Bool) async throws -> ([VisitMark], Set<String>) {
        guard newPlaces else {
            let dayVisits = try await visits.list(userID: user.id, filter: VisitFilter(from: start, to: end))
            return (dayVisits.map { VisitMark(id: $0.id, at: $0.fields.visitedAt, name: $0.fields.name, latitude: $0.fields.latitude,
                                              longitude: $0.fields.longitude, labels: $0.fields.labels) }, [])
        }
        let history = try await visits.allMapPoints(userID: user.id).filter { $0.at < end }
            .map { VisitMark(id: $0.id, at: $0.at, name: $0.name, latitude: $0.lat, longitude: $0.lon) }
        return (history.filter { $0.at >= start }, DaySummaries.newPlaceVisits(history))
    }

    /// The month around `key`, every day of it (empty days too), for the calendar.
    public func month(user: User, containing key: DayKey, diaryOpen: Bool) async throws -> MonthCalendar {
        let grid = MonthCalendar.frame(year: key.year, month: key.month)
        let days = try await summaries(user: user, first: grid.first, last: grid.last, diaryOpen: diaryOpen)
        return MonthCalendar(year: key.year, month: key.month, first: grid.first, last: grid.last, leadingBlanks: grid.leadingBlanks, days: days)
    }

    /// The oldest moment anything was recorded, so the timeline stops looking further back.
    func earliest(user: User, diaryOpen: Bool) async throws -> Date? {
        var dates: [Date?] = [try await health.firstRecordDate(userID: user.id), try await visits.firstVisitDate(userID: user.id),
                              try await videos.firstPlayDate(userID: user.id)]
        if diaryOpen { dates.append(try await diary.firstEntryDate(userID: user.id)) }
        // A chosen rating alone does not make a day show on the timeline: it needs something recorded.
        return dates.compactMap { $0 }.min()
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
                tagged = diaryOpen ? try await taggedDays(user: user, tag: tag, from: windowStart, to: last, zone: zone) : []
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

    func taggedDays(user: User, tag: String, from: DayKey, to: DayKey, zone: TimeZone) async throws -> Set<DayKey> {
        let entries = try await diary.list(userID: user.id, query: nil,
                                           filter: .init(tag: tag, from: from.interval(in: zone).start, to: to.interval(in: zone).end.addingTimeInterval(-1)),
                                           paging: PageRequest(page: 1, perPage: 1000)).entries
        return Set(entries.map { DayKey($0.date, timeZone: zone) })
    }
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
        let days = try await summaries(user: user, first: first, last: today, diaryOpen: diaryOpen,
                                       options: .init(newPlaces: true, healthTypes: [HealthDataType.steps.rawValue, HealthDataType.sleep.rawValue,
                                                                                     HealthDataType.workout.rawValue],
                                                      summedTypes: [HealthDataType.steps.rawValue]))
        return Insights.find(days)
    }
}

extension JournalService {
    public struct Review: Sendable {
        public let period: ReviewPeriod
        public let totals: ReviewTotals
        public let previous: ReviewTotals
        public let places: [(name: String, days: Int)]
        public let badges: [(BadgeDefinition, Date)]
        public let days: [DaySummary]
    }

    /// A week or a month across domains, with the period before for the changes. New places are first visits ever.
    public func review(user: User, period: ReviewPeriod, diaryOpen: Bool) async throws -> Review {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let before = period.previous
        let all = try await summaries(user: user, first: before.first, last: period.last, diaryOpen: diaryOpen, options: .init(newPlaces: true))
        let current = all.values.filter { $0.key >= period.first }.sorted { $0.key < $1.key }
        let earlier = all.values.filter { $0.key <= before.last }
        let start = period.first.interval(in: zone).start, end = period.last.interval(in: zone).end
        let badges = try await health.badges.earned(userID: user.id).filter { $0.earnedAt >= start && $0.earnedAt < end }
            .compactMap { earned in BadgeRules.definition(earned.key).map { ($0, earned.earnedAt) } }
        return Review(period: period, totals: .of(current), previous: .of(earlier), places: ReviewTotals.places(current), badges: badges, days: current)
    }
}
