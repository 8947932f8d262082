import Foundation

/// The journal reads a day, and a search, across every feature through their services (never their
/// tables). Diary text is read only when the caller may see it (an unlocked diary, or a token with the
/// diary scope); it stays sealed at rest and is searched through the diary's own in-memory index.
public struct JournalService: Sendable {
    let diary: DiaryService
    let health: HealthService
    let visits: VisitService
    let videos: VideoService
    let ratings: DayRatingStore
    /// Every feature that adds to the search, in the order their hits are listed.
    let searches: [any SearchOffer]

    /// A day's rating and where it came from.
    public struct Rating: Sendable, Equatable {
        public enum Source: String, Sendable, Codable { case chosen, moods }
        public let value: DayRating
        public let source: Source
    }

    public struct Day: Sendable {
        public let key: DayKey
        /// Nil when the diary is locked for this caller; the page then offers to unlock it.
        public let diary: [DiaryEntry]?
        public let health: [HealthDayLine]
        public let visits: [Visit]
        public let videosWatched: [VideoItem]
        public let previous: DayKey
        public let next: DayKey
        /// The same date in earlier years, newest first, where anything was recorded.
        public let onThisDay: [Memory]
        /// The person's own rating, else the default from the confirmed moods (only when the diary is readable).
        public let rating: Rating?

        /// Workouts that started this day, each with its route (thinned for drawing).
        public var workouts: [DayWorkout] = []
        /// The night that ended this day (sleep is the wake-up day's), from the health feature.
        public var sleep: SleepNights.Night?

        public var isEmpty: Bool { (diary ?? []).isEmpty && health.isEmpty && visits.isEmpty && videosWatched.isEmpty && workouts.isEmpty && sleep == nil }
    }

    public struct DayWorkout: Sendable {
        public let workout: HealthWorkout
        public let route: [WorkoutRoutePoint]
    }

    public struct Memory: Sendable {
        public let key: DayKey
        public let yearsAgo: Int
        public let diary: [DiaryEntry]
        public let visits: [Visit]
    }

    /// A day with at most this many of each kind; more is a sign of generated data, and the feature's own page lists them all.
    static let perDomainLimit = 500
    /// Heart-rate samples can be thousands a day; they are summarised, so this only bounds memory.
    static let healthRecordLimit = 50_000

    public func day(user: User, key: DayKey, diaryOpen: Bool) async throws -> Day {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let interval = key.interval(in: zone)
        let last = interval.end.addingTimeInterval(-1)  // the stores' upper bounds are inclusive
        // The domains are read side by side (the database has several connections).
        async let entries = diaryOpen
            ? diary.list(userID: user.id, query: nil, filter: .init(from: interval.start, to: last),
                         paging: PageRequest(page: 1, perPage: Self.perDomainLimit)).entries.sorted { $0.date < $1.date }
            : nil
        async let records = health.records.list(userID: user.id, filter: .init(from: interval.start, to: last, limit: Self.healthRecordLimit))
        async let dayVisits = visits.list(userID: user.id, filter: VisitFilter(from: interval.start, to: interval.end))
            .sorted { $0.fields.visitedAt < $1.fields.visitedAt }
        async let watched = videos.played(userID: user.id, from: interval.start, to: interval.end)
        async let workouts = dayWorkouts(user: user, interval: DateInterval(start: interval.start, end: last))
        async let memories = memories(user: user, key: key, zone: zone, diaryOpen: diaryOpen)
        async let chosen = ratings.ratings(userID: user.id, from: key, to: key)[key]
        async let night = health.sleepNight(user: user, day: Int(key.daysSince1970))
        let diaryEntries = try await entries
        // The person's own rating, else the default from the confirmed moods.
        let rating = try await chosen.map { Rating(value: $0, source: .chosen) }
            ?? diaryEntries.flatMap { DayRating.fromMoods($0.compactMap(\.confirmedMood)) }.map { Rating(value: $0, source: .moods) }
        return Day(key: key, diary: diaryEntries, health: HealthDay.summarize(try await records), visits: Array(try await dayVisits.prefix(Self.perDomainLimit)),
                   videosWatched: Array(try await watched.prefix(Self.perDomainLimit)),
                   previous: key.adding(days: -1, in: zone), next: key.adding(days: 1, in: zone),
                   onThisDay: try await memories, rating: rating, workouts: try await workouts, sleep: try await night)
    }

    func dayWorkouts(user: User, interval: DateInterval) async throws -> [DayWorkout] {
        var workouts: [DayWorkout] = []
        for workout in try await health.workouts(user: user, in: interval, limit: Self.workoutLimit) {
            let route = try await health.workoutRoute(user: user, workoutID: workout.id)
            workouts.append(DayWorkout(workout: workout, route: DayMap.thin(route, limit: DayMap.maxTrackPoints)))
        }
        return workouts
    }

    /// Workouts drawn on one day's page; a day with more is generated data, and Health lists them all.
    static let workoutLimit = 50

    public func rate(user: User, key: DayKey, rating: DayRating?, now: Date) async throws {
        if let rating { try await ratings.set(userID: user.id, day: key, rating: rating, now: now) } else { try await ratings.clear(userID: user.id, day: key) }
    }

    /// Diary entries and visits on this month and day in earlier years (29 February only in leap years).
    func memories(user: User, key: DayKey, zone: TimeZone, diaryOpen: Bool) async throws -> [Memory] {
        let noon = key.interval(in: zone).start.addingTimeInterval(12 * 3600)
        let entries = diaryOpen ? try await diary.onThisDayFromFirstEntry(userID: user.id, today: noon, timeZone: zone) : []
        // The same date in each earlier year back to the first visit: one small read a year, not every visit ever.
        var earlierVisits: [Visit] = []
        if let first = try await visits.firstVisitDate(userID: user.id) {
            // At most a century back: a far-future date asked for by hand must not become thousands of reads.
            for year in stride(from: key.year - 1, through: max(1970, DayKey(first, timeZone: zone).year, key.year - 100), by: -1) {
                guard let day = DayKey(String(format: "%04d-%02d-%02d", year, key.month, key.day)) else { continue }  // 29 February
                let span = day.interval(in: zone)
                earlierVisits += try await visits.list(userID: user.id, filter: VisitFilter(from: span.start, to: span.end))
            }
        }
        var byDay: [DayKey: ([DiaryEntry], [Visit])] = [:]
        for entry in entries {
            let day = DayKey(entry.date, timeZone: zone)
            if day.month == key.month, day.day == key.day, day.year < key.year { byDay[day, default: ([], [])].0.append(entry) }
        }
        for visit in earlierVisits {
            let day = DayKey(visit.fields.visitedAt, timeZone: zone)
            if day.month == key.month, day.day == key.day, day.year < key.year { byDay[day, default: ([], [])].1.append(visit) }
        }
        return byDay.keys.sorted(by: >).prefix(20).map { day in
            let (diary, visits) = byDay[day] ?? ([], [])
            return Memory(key: day, yearsAgo: key.year - day.year, diary: diary.sorted { $0.date < $1.date },
                          visits: visits.sorted { $0.fields.visitedAt < $1.fields.visitedAt })
        }
    }

    /// Every domain's matches for `query` (each word must occur), at most `perDomainLimit` each.
    public func search(user: User, query: String, diaryOpen: Bool, language: Language) async throws -> [SearchHit] {
        let query = String(query.prefix(200)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { return [] }
        let search = JournalSearch(user: user, query: query, timeZone: TimeZone(identifier: user.timeZone) ?? .gmt, language: language,
                                   diaryOpen: diaryOpen, limit: Self.perDomainLimit, dayPath: { JournalPaths.day($0) })
        // The features are searched side by side (the database has several connections); their hits keep the list's order.
        return try await withThrowingTaskGroup(of: (Int, [SearchHit]).self) { group in
            for (index, offer) in searches.enumerated() { group.addTask { (index, try await offer.searchHits(search)) } }
            var answers = [[SearchHit]](repeating: [], count: searches.count)
            for try await (index, hits) in group { answers[index] = hits }
            return answers.flatMap { $0 }
        }
    }
}
