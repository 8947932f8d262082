import Foundation

/// The domains a day can hold something in; the calendar's dots and the timeline's filter.
public enum JournalDomain: String, Sendable, Codable, CaseIterable {
    case diary, health, visits, videos
}

extension DaySummary {
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

public enum DaySummaries {
    /// The days of `span` that hold anything: every feature's figures added up day by day, and the rating the person
    /// chose, else the one the day's confirmed moods suggest.
    public static func combine(_ figures: [[DayKey: DaySummary]], chosen: [DayKey: DayRating], span: DaySpan) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        for part in figures {
            for (key, summary) in part where key >= span.first && key <= span.last { days[key, default: DaySummary(key: key)].add(summary) }
        }
        for (key, rating) in chosen where key >= span.first && key <= span.last {
            days[key, default: DaySummary(key: key)].rating = rating
            days[key, default: DaySummary(key: key)].ratingChosen = true
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
