import Foundation

/// The domains a day can hold something in; the calendar's dots and the timeline's filter.
public enum JournalDomain: String, Sendable, Codable, CaseIterable {
    case diary, health, visits, videos
}

/// A day in a few numbers: what the calendar, a timeline card, a review and the insights need. Built by
/// `DaySummaries.build` from what the other features' services return.
public struct DaySummary: Sendable, Equatable {
    public let key: DayKey
    public var diaryEntries = 0
    public var moods: [Mood] = []
    public var rating: DayRating?
    public var ratingChosen = false
    public var healthRecords = 0
    public var steps: Double?
    public var sleepHours: Double?
    public var workouts = 0
    public var workoutMinutes = 0.0
    public var visits = 0
    public var newPlaces = 0
    public var places: [String] = []
    public var labels: [String] = []
    public var videos = 0
    public var videoHours = 0.0

    public init(key: DayKey) { self.key = key }

    public var domains: Set<JournalDomain> {
        var result: Set<JournalDomain> = []
        if diaryEntries > 0 { result.insert(.diary) }
        if healthRecords > 0 { result.insert(.health) }
        if visits > 0 { result.insert(.visits) }
        if videos > 0 { result.insert(.videos) }
        return result
    }

    public var isEmpty: Bool { domains.isEmpty && !ratingChosen }
}

/// A visit reduced to what a summary needs.
public struct VisitMark: Sendable, Equatable {
    public let id: String
    public let at: Date
    public let name: String
    public let latitude: Double
    public let longitude: Double
    public let labels: [String]

    public init(id: String, at: Date, name: String, latitude: Double, longitude: Double, labels: [String] = []) {
        self.id = id
        self.at = at
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.labels = labels
    }

    /// `String(format: "%.3f,%.3f", …)` through C's formatter directly (the same digits): Foundation's formatting was
    /// most of finding new places over ten years of visits.
    static func spot(_ latitude: Double, _ longitude: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> String in
            guard let base = buffer.baseAddress else { return String(format: "%.3f,%.3f", latitude, longitude) }
            let written = withVaList([latitude, longitude]) { vsnprintf(base, 64, "%.3f,%.3f", $0) }
            guard written > 0, written < 64 else { return String(format: "%.3f,%.3f", latitude, longitude) }
            return String(cString: base)
        }
    }

    /// The same place: the same name within about 100 m (three decimals of latitude are 111 m), or, unnamed, the same spot.
    var placeKey: String {
        let spot = Self.spot(latitude, longitude)
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? spot : trimmed + "@" + spot
    }
}

/// A played video reduced to when and for how long (its length: Hibi keeps the last play, not a play log).
public struct PlayMark: Sendable, Equatable {
    public let at: Date
    public let seconds: Double

    public init(at: Date, seconds: Double) {
        self.at = at
        self.seconds = seconds
    }
}

public enum DaySummaries {
    /// How to bucket health records so that each bucket falls inside one local day of `zone` between `from` and
    /// `to`: whole local days when the zone keeps one offset over the range (the database then returns one row a
    /// day), else hours when every offset it takes is whole hours, else quarter hours (every offset in use is a
    /// multiple of 15 minutes). Returns the bucket length and the shift to add to a UNIX time before dividing.
    public static func bucketing(_ zone: TimeZone, from: Date, to: Date) -> (bucket: Int64, shift: Int64) {
        let offset = zone.secondsFromGMT(for: from)
        if let change = zone.nextDaylightSavingTimeTransition(after: from), change < to {
            var offsets: Set<Int> = [offset]
            var cursor = change
            var steps = 0
            while cursor < to, steps < 1000 {
                offsets.insert(zone.secondsFromGMT(for: cursor))
                guard let next = zone.nextDaylightSavingTimeTransition(after: cursor) else { break }
                cursor = next
                steps += 1
            }
            return (offsets.allSatisfy { $0 % 3600 == 0 } ? 3600 : 900, 0)
        }
        return (86400, Int64(offset))
    }

    /// The stretches of `from..<to` (seconds since 1970) over which `zone` keeps one offset, each with that offset in
    /// seconds: a local day is then `(t + shift) / 86400` inside a stretch, exact for any offset (half-hour zones and
    /// 45-minute zones too), and a day cut by a daylight-saving change is the sum of its parts in two stretches.
    /// At most 1,000 changes are followed (five centuries of twice-yearly changes); the last stretch takes the rest.
    public static func offsetSpans(_ zone: TimeZone, from: Int64, to: Int64) -> [(from: Int64, to: Int64, shift: Int64)] {
        guard from < to else { return [] }
        var spans: [(from: Int64, to: Int64, shift: Int64)] = []
        var start = from
        var steps = 0
        while start < to {
            let at = Date(timeIntervalSince1970: TimeInterval(start))
            let shift = Int64(zone.secondsFromGMT(for: at))
            var end = to
            if steps < 1000, let change = zone.nextDaylightSavingTimeTransition(after: at) {
                let seconds = change.timeIntervalSince1970.rounded(.up)
                if seconds.isFinite, seconds > Double(start), seconds < Double(to) { end = Int64(seconds) }
            }
            spans.append((start, end, shift))
            start = end
            steps += 1
        }
        return spans
    }

    /// Visits whose place was never visited before (over all of `history`, oldest first or not).
    public static func newPlaceVisits(_ history: [VisitMark]) -> Set<String> {
        var seen: Set<String> = []
        var result: Set<String> = []
        for visit in history.sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) where seen.insert(visit.placeKey).inserted {
            result.insert(visit.id)
        }
        return result
    }

    /// The days from `first` to `last` (inclusive) that hold anything, each summarised. Only days in that range are
    /// returned; `newPlaces` marks which visits were a first visit to their place (computed over all history).
    public static func build(zone: TimeZone, first: DayKey, last: DayKey, moods: [MoodPoint]?, health: [HealthService.BucketTotal],
                             visits: [VisitMark], newPlaces: Set<String>, plays: [PlayMark], chosen: [DayKey: DayRating]) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        func touch(_ key: DayKey, _ change: (inout DaySummary) -> Void) {
            guard key >= first, key <= last else { return }
            change(&days[key, default: DaySummary(key: key)])  // in place: no copy of the day's lists per record
        }
        for point in moods ?? [] {
            touch(DayKey(point.date, timeZone: zone)) { day in
                day.diaryEntries += 1
                if let mood = point.mood { day.moods.append(mood) }
            }
        }
        for total in health {
            touch(DayKey(Date(timeIntervalSince1970: TimeInterval(total.start)), timeZone: zone)) { day in
                day.healthRecords += total.count
                switch HealthDataType(rawValue: total.type) {
                case .steps: day.steps = (day.steps ?? 0) + total.sum
                case .sleep: day.sleepHours = (day.sleepHours ?? 0) + total.sum
                case .workout:
                    day.workouts += total.count
                    day.workoutMinutes += total.sum
                default: break
                }
            }
        }
        for visit in visits.sorted(by: { $0.at < $1.at }) {
            touch(DayKey(visit.at, timeZone: zone)) { day in
                day.visits += 1
                if newPlaces.contains(visit.id) { day.newPlaces += 1 }
                if !day.places.contains(visit.name) { day.places.append(visit.name) }
                for label in visit.labels where !day.labels.contains(label) { day.labels.append(label) }
            }
        }
        for play in plays {
            touch(DayKey(play.at, timeZone: zone)) { day in
                day.videos += 1
                day.videoHours += max(0, play.seconds.isFinite ? play.seconds : 0) / 3600
            }
        }
        for (key, rating) in chosen {
            touch(key) { day in
                day.rating = rating
                day.ratingChosen = true
            }
        }
        return days.mapValues { day in
            guard !day.ratingChosen else { return day }
            var day = day
            day.rating = DayRating.fromMoods(day.moods)
            return day
        }
    }
}

/// The timeline's filter: a day shows when it has something in the domain, a diary entry with the tag, a visit
/// with the label, or a rating equal to the mood.
public struct TimelineFilter: Sendable, Equatable {
    public var domain: JournalDomain?
    public var tag: String?
    public var label: String?
    public var rating: DayRating?

    public init(domain: JournalDomain? = nil, tag: String? = nil, label: String? = nil, rating: DayRating? = nil) {
        self.domain = domain
        self.tag = tag
        self.label = label
        self.rating = rating
    }

    /// `tagged` is the set of days with a diary entry carrying the tag (read separately: tags are not in a summary).
    public func admits(_ day: DaySummary, tagged: Set<DayKey>?) -> Bool {
        if day.domains.isEmpty { return false }
        if let domain, !day.domains.contains(domain) { return false }
        if tag != nil, !(tagged?.contains(day.key) ?? false) { return false }
        if let label, !day.labels.contains(where: { $0.caseInsensitiveCompare(label) == .orderedSame }) { return false }
        if let rating, day.rating != rating { return false }
        return true
    }
}

/// Keyset paging over days: the cursor is the last day shown, the next page is the days strictly before it.
public enum TimelinePaging {
    public struct Page: Sendable, Equatable {
        public let days: [DaySummary]
        /// The cursor for the next page (the last day shown), nil when nothing older can exist.
        public let next: DayKey?
    }

    /// The newest `limit` admitted days before `before` among `days`, which must hold every day in
    /// `[windowStart, before)`. `exhausted` says the window reaches back past the oldest data, so a short page is the end.
    public static func page(_ days: [DayKey: DaySummary], before: DayKey, windowStart: DayKey, limit: Int, filter: TimelineFilter,
                            tagged: Set<DayKey>?, exhausted: Bool) -> (page: Page, complete: Bool) {
        let limit = max(1, limit)
        let chosen = days.values.filter { $0.key < before && $0.key >= windowStart && filter.admits($0, tagged: tagged) }
            .sorted { $0.key > $1.key }
        if chosen.count >= limit {
            let shown = Array(chosen.prefix(limit))
            return (Page(days: shown, next: shown.last?.key), true)
        }
        if exhausted { return (Page(days: chosen, next: nil), true) }
        return (Page(days: chosen, next: chosen.last?.key), false)
    }
}
