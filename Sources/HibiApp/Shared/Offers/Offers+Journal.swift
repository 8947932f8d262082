import Foundation

// The seams on Journal's side of the walls: what the features offer Journal (search, the checklist: declared for
// Journal, which iterates them, and conformed to in each feature's `<Name>Offers.swift`), and what Journal offers
// the diary (`DayRatings`, conformed in Features/Journal/JournalOffers.swift). The assembly (`Features.init`) hands them over.

/// The address of a day's page (Journal's), which any feature may link to: a day is the platform's unit (`DayKey`), and
/// the link then names no feature. `JournalPaths` registers the route with it.
public enum DayPage {
    public static let prefix = "/day"
    public static func path(_ key: some CustomStringConvertible) -> String { prefix + "/\(key)" }
}

/// A feature's matches for Journal's search (`/search`, `GET /api/v1/search`). Journal asks every
/// `SearchOffer` side by side and keeps their answers in the order of its list.
public protocol SearchOffer: Sendable {
    func searchHits(_ search: JournalSearch) async throws -> [SearchHit]
}

/// One search, as every feature is asked it.
public struct JournalSearch: Sendable {
    public let user: User
    /// Trimmed, not empty, at most 200 characters; every word must occur.
    public let query: String
    public let timeZone: TimeZone
    public let language: Language
    /// Whether the caller may read diary text (an unlocked diary, or a token with the diary scope).
    public let diaryOpen: Bool
    /// At most this many hits from one feature.
    public let limit: Int
    /// The address of a day's page (Journal's), for hits shown on their day.
    public let dayPath: @Sendable (DayKey) -> String

    public init(user: User, query: String, timeZone: TimeZone, language: Language, diaryOpen: Bool, limit: Int,
                dayPath: @escaping @Sendable (DayKey) -> String) {
        self.user = user
        self.query = query
        self.timeZone = timeZone
        self.language = language
        self.diaryOpen = diaryOpen
        self.limit = limit
        self.dayPath = dayPath
    }
}

/// Search results from every domain, grouped by domain in a fixed order, newest first inside each.
public struct SearchHit: Sendable, Equatable, Codable {
    public enum Domain: String, Sendable, Codable, CaseIterable { case diary, visits, videos, health }
    public let domain: Domain
    public let id: String
    public let title: String
    public let snippet: String
    public let date: Date?
    /// The page that shows it.
    public let path: String
}

public enum SearchGrouping {
    public static func group(_ hits: [SearchHit]) -> [(SearchHit.Domain, [SearchHit])] {
        SearchHit.Domain.allCases.compactMap { domain in
            let inDomain = hits.filter { $0.domain == domain }
                .sorted { ($0.date ?? .distantPast, $0.id) > ($1.date ?? .distantPast, $1.id) }
            return inDomain.isEmpty ? nil : (domain, inDomain)
        }
    }

    /// Case- and width-insensitive match of every word of the query, the diary's own rule.
    public static func matches(_ query: String, _ fields: [String?]) -> Bool {
        let words = SearchText.normalize(query).split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return false }
        let text = SearchText.normalize(fields.compactMap { $0 }.joined(separator: " "))
        return words.allSatisfy { text.contains($0) }
    }
}

public enum SearchText {
    /// Folds case, diacritics and width, the way every search of Hibi compares words.
    public static func normalize(_ text: String) -> String {
        // ASCII needs only lower-casing (it has no diacritics or wide forms), and Foundation's folding
        // was most of the time spent building the search index of a 100k-entry diary.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}

/// A feature's steps in the getting-started checklist on `/`, each ticked off by what the person has done.
/// Journal shows the checklist, asking every `GettingStartedOffer` in the order of its list.
public protocol GettingStartedOffer: Sendable {
    func gettingStartedSteps(userID: String) async throws -> [GettingStarted.Step]
}

/// The first page of a new account: first steps, each ticked off by what the user has actually done.
public struct GettingStarted: Sendable, Equatable {
    public struct Step: Sendable, Equatable {
        public let key: String
        public let title: Text
        public let help: Text
        public let href: String
        public let done: Bool

        public init(key: String, title: Text, help: Text, href: String, done: Bool) {
            self.key = key
            self.title = title
            self.help = help
            self.href = href
            self.done = done
        }
    }

    public let steps: [Step]

    public init(steps: [Step]) {
        self.steps = steps
    }

    public var doneCount: Int { steps.filter(\.done).count }
    public var isComplete: Bool { doneCount == steps.count }
}

/// The person's own rating of a day, kept by Journal. Declared for the diary's Daylio import (which brings
/// each day's mood) and export; Journal's `DayRatingStore` conforms.
public protocol DayRatings: Sendable {
    func ratings(userID: String, from: DayKey, to: DayKey) async throws -> [DayKey: DayRating]
    func set(userID: String, day: DayKey, rating: DayRating, now: Date) async throws
}

/// Whether the caller's diary is open: a browser session that unlocked it within the lock's minutes. Declared for
/// Journal, which reads diary text only then (and for a token with the diary scope); the diary's `DiaryLock` conforms.
public protocol DiaryOpenCheck: Sendable {
    func isUnlocked(_ context: HibiRequestContext, now: Date) async throws -> Bool
}

/// What a feature adds to a day's page (`/day/:date`, `/`) and to the day's API answer (`GET /api/v1/days/:date`).
/// Journal asks every `DayPageOffer` side by side and places their sections by `order` around its own (the rating,
/// the day's map, "on this day" and the month calendar).
public protocol DayPageOffer: Sendable {
    func dayPart(_ day: DayQuery) async throws -> DayPart
    /// What it recorded on the same date in earlier years (newest first is Journal's to choose), by day.
    func memories(_ day: DayQuery) async throws -> DayMemories
}

extension DayPageOffer {
    /// Nothing for "on this day" unless the feature says.
    public func memories(_ day: DayQuery) async throws -> DayMemories { DayMemories() }
}

/// One person's day, as every feature is asked it.
public struct DayQuery: Sendable {
    public let user: User
    public let key: DayKey
    public let timeZone: TimeZone
    /// From the day's first moment to the next day's (exclusive).
    public let interval: DateInterval
    /// Whether the caller may read diary text (an unlocked diary, or a token with the diary scope).
    public let diaryOpen: Bool
    public let language: Language
    /// The address of a day's page (Journal's).
    public let dayPath: @Sendable (DayKey) -> String

    public init(user: User, key: DayKey, timeZone: TimeZone, diaryOpen: Bool, language: Language, dayPath: @escaping @Sendable (DayKey) -> String) {
        self.user = user
        self.key = key
        self.timeZone = timeZone
        interval = key.interval(in: timeZone)
        self.diaryOpen = diaryOpen
        self.language = language
        self.dayPath = dayPath
    }

    /// The stores' upper bounds are inclusive: the day's last second.
    public var lastSecond: Date { interval.end.addingTimeInterval(-1) }

    /// A clock time on the day's page (in the person's zone and language), the same for every feature's lines.
    public var timeStyle: Date.FormatStyle {
        var style = Date.FormatStyle(date: .omitted, time: .shortened)
        style.timeZone = timeZone
        style.locale = Locale(identifier: language == .ja ? "ja_JP" : "en_US")
        return style
    }
}

/// A feature's part of a day.
public struct DayPart: Sendable {
    /// Its sections of the page, each placed by its `order` among every feature's and Journal's own (the day's map at
    /// 500, "on this day" at 700).
    public var sections: [DaySection] = []
    /// Its keys in the day's API answer.
    public var fields: [String: any Encodable & Sendable] = [:]
    /// Whether it holds anything for the day: a day where no feature does shows the empty day's links.
    public var recorded = false
    /// Links to record something, shown on an empty day (when the diary is readable), in the order of the offers.
    public var recordLinks: [Node] = []
    /// What it adds to the day's map: places visited in order, and routes.
    public var places: [DayPlace] = []
    public var tracks: [[DayPlace]] = []
    /// A rating the day gets when the person chose none (the diary's, from the confirmed moods).
    public var suggestedRating: DayRating?

    public init() {}
}

public struct DaySection: Sendable {
    public let order: Int
    public let node: Node

    public init(order: Int, _ node: Node) {
        self.order = order
        self.node = node
    }
}

/// A point on the day's map; a place has a name, a route's point none.
public struct DayPlace: Sendable, Equatable {
    public let latitude: Double
    public let longitude: Double
    public let name: String

    public init(latitude: Double, longitude: Double, name: String = "") {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }

    /// Points kept per route on the day's map (and in the day's API answer): enough for the shape, and a bound on the page's weight.
    public static let maxTrackPoints = 400

    /// At most `limit` points spread evenly along a route, the first and the last always among them.
    public static func thin<T>(_ points: [T], limit: Int = maxTrackPoints) -> [T] {
        guard points.count > limit, limit > 1 else { return points }
        return (0..<limit).map { points[$0 * (points.count - 1) / (limit - 1)] }
    }
}

/// What a feature recorded on the same date in earlier years: the lines shown under each year, and its keys in that
/// year's API answer (`empty` for a year only another feature recorded).
public struct DayMemories: Sendable {
    public struct Year: Sendable {
        public let nodes: [Node]
        public let fields: [String: any Encodable & Sendable]

        public init(nodes: [Node], fields: [String: any Encodable & Sendable]) {
            self.nodes = nodes
            self.fields = fields
        }
    }

    public var byDay: [DayKey: Year]
    public var empty: [String: any Encodable & Sendable]

    public init(byDay: [DayKey: Year] = [:], empty: [String: any Encodable & Sendable] = [:]) {
        self.byDay = byDay
        self.empty = empty
    }
}

/// Keys and values written as one JSON object (the day's API answer, assembled from every feature's keys), each value
/// with the encoder's own strategies.
public struct JSONFields: Encodable, Sendable {
    public let fields: [String: any Encodable & Sendable]

    public init(_ fields: [String: any Encodable & Sendable]) { self.fields = fields }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TakeoutFields.Key.self)
        for (key, value) in fields { try container.encode(value, forKey: TakeoutFields.Key(stringValue: key)) }
    }
}

/// What a feature adds to the journal's overview of days: the month calendar, the timeline, the week's and month's
/// reviews and the insights. Journal asks every `OverviewOffer` side by side and adds their figures up day by day.
public protocol OverviewOffer: Sendable {
    /// Its figures for the days of the range that hold something of it (no other day).
    func dayFigures(_ range: DayRange) async throws -> [DayKey: DaySummary]
    /// The oldest moment it recorded anything (nil: nothing, or nothing the caller may read), so the timeline stops looking further back.
    func firstRecorded(user: User, diaryOpen: Bool) async throws -> Date?
    /// The days of the range with something carrying `tag` (the timeline's tag filter: the diary's tags); nil for a feature without tags.
    func daysTagged(_ tag: String, range: DayRange) async throws -> Set<DayKey>?
    /// What the person earned between `from` and `to` (a review's badges), in the order earned.
    func achievements(user: User, from: Date, to: Date) async throws -> [Achievement]
}

extension OverviewOffer {
    public func daysTagged(_ tag: String, range: DayRange) async throws -> Set<DayKey>? { nil }
    public func achievements(user: User, from: Date, to: Date) async throws -> [Achievement] { [] }
}

/// The days a summary is asked for, as every feature is asked it.
public struct DayRange: Sendable {
    /// What the figures are for: the calendar and the timeline need the day's counts; reviews and insights also which
    /// visits were a first visit to their place; insights read years, only what they correlate.
    public enum Purpose: Sendable { case days, review, insights }
    public let user: User
    public let span: DaySpan
    /// Whether the caller may read the diary (its dates and moods count only then).
    public let diaryOpen: Bool
    public let purpose: Purpose

    public init(user: User, span: DaySpan, diaryOpen: Bool, purpose: Purpose) {
        self.user = user
        self.span = span
        self.diaryOpen = diaryOpen
        self.purpose = purpose
    }
}

/// Local days `first...last` in a time zone.
public struct DaySpan: Sendable {
    public let timeZone: TimeZone
    public let first: DayKey
    public let last: DayKey

    public init(timeZone: TimeZone, first: DayKey, last: DayKey) {
        self.timeZone = timeZone
        self.first = first
        self.last = last
    }

    /// The first day's first moment.
    public var start: Date { first.interval(in: timeZone).start }
    /// The moment after the last day (exclusive).
    public var end: Date { last.interval(in: timeZone).end }

    /// Changes the figures of the day `date` falls on, when that day is in the span (in place: no copy of the day's lists).
    public func touch(_ days: inout [DayKey: DaySummary], at date: Date, _ change: (inout DaySummary) -> Void) {
        let key = DayKey(date, timeZone: timeZone)
        guard key >= first, key <= last else { return }
        change(&days[key, default: DaySummary(key: key)])
    }
}

/// A day in a few numbers: what the calendar, a timeline card, a review and the insights need. Each feature fills its
/// own figures (`OverviewOffer`); Journal adds them up and sets the rating.
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

    /// Another feature's figures for the same day added to these (counts and amounts added, names kept once, in order).
    public mutating func add(_ other: DaySummary) {
        diaryEntries += other.diaryEntries
        moods += other.moods
        healthRecords += other.healthRecords
        if let steps = other.steps { self.steps = (self.steps ?? 0) + steps }
        if let hours = other.sleepHours { sleepHours = (sleepHours ?? 0) + hours }
        workouts += other.workouts
        workoutMinutes += other.workoutMinutes
        visits += other.visits
        newPlaces += other.newPlaces
        for place in other.places where !places.contains(place) { places.append(place) }
        for label in other.labels where !labels.contains(label) { labels.append(label) }
        videos += other.videos
        videoHours += other.videoHours
    }
}

/// Something earned (a badge), as a review lists it.
public struct Achievement: Sendable, Equatable {
    public let key: String
    public let name: Text
    public let earnedAt: Date

    public init(key: String, name: Text, earnedAt: Date) {
        self.key = key
        self.name = name
        self.earnedAt = earnedAt
    }
}

/// A share card (1200×630, the size link previews use) drawn as the person's health cards are, and made a PNG.
/// Declared for Journal's review card; Health conforms (`HealthShareCards`).
public protocol ShareCardDrawing: Sendable {
    func shareCardSVG(_ card: ShareCard, language: Language) -> String
    func shareCardPNG(svg: String) async throws -> Data
}

/// What a share card shows: only what it carries is drawn.
public struct ShareCard: Sendable {
    public var title: String
    public var lines: [(String, String)]
    /// An achievement's key (its badge is drawn).
    public var badge: String?
    public var name: String?
    public var footer: String

    public init(title: String, lines: [(String, String)], badge: String?, name: String?, footer: String) {
        self.title = title
        self.lines = lines
        self.badge = badge
        self.name = name
        self.footer = footer
    }
}
