import Foundation

/// The journal reads a day, and a search, across every feature through what they offer it (Shared/Offers, never
/// their tables). Diary text is read only when the caller may see it (an unlocked diary, or a token with the
/// diary scope); it stays sealed at rest and is searched through the diary's own in-memory index.
public struct JournalService: Sendable {
    let ratings: DayRatingStore
    /// Every feature that adds to the search, in the order their hits are listed.
    let searches: [any SearchOffer]
    /// Every feature that adds to a day's page, in the order their parts are asked (the page places them by their `order`).
    let dayPages: [any DayPageOffer]
    /// Every feature that adds to the calendar, the timeline, reviews and insights, in the order their figures are added.
    let overviews: [any OverviewOffer]

    /// A day's rating and where it came from.
    public struct Rating: Sendable, Equatable {
        public enum Source: String, Sendable, Codable { case chosen, moods }
        public let value: DayRating
        public let source: Source
    }

    public struct Day: Sendable {
        public let key: DayKey
        /// False when the diary is locked for this caller; its section then offers to unlock it.
        public let diaryOpen: Bool
        /// Every feature's part, in the order of the offers.
        public let parts: [DayPart]
        public let previous: DayKey
        public let next: DayKey
        /// The same date in earlier years, newest first, where anything was recorded.
        public let onThisDay: [Memory]
        /// The person's own rating, else the one a feature suggests (the diary's, from the confirmed moods, only when readable).
        public let rating: Rating?

        public init(key: DayKey, diaryOpen: Bool, parts: [DayPart], previous: DayKey, next: DayKey, onThisDay: [Memory], rating: Rating?) {
            self.key = key
            self.diaryOpen = diaryOpen
            self.parts = parts
            self.previous = previous
            self.next = next
            self.onThisDay = onThisDay
            self.rating = rating
        }

        public var isEmpty: Bool { !parts.contains { $0.recorded } }
    }

    /// One earlier year's day: every feature's lines, and their keys in the API answer.
    public struct Memory: Sendable {
        public let key: DayKey
        public let yearsAgo: Int
        public let nodes: [Node]
        public let fields: [String: any Encodable & Sendable]
    }

    /// At most this many search hits from one feature; more is a sign of generated data, and the feature's own page lists them all.
    static let perDomainLimit = 500
    /// Years of "on this day" shown.
    static let memoryLimit = 20

    public func day(user: User, key: DayKey, diaryOpen: Bool, language: Language) async throws -> Day {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let query = DayQuery(user: user, key: key, timeZone: zone, diaryOpen: diaryOpen, language: language, dayPath: { JournalPaths.day($0) })
        // The features are read side by side (the database has several connections).
        async let parts = Self.askInOrder(dayPages) { try await $0.dayPart(query) }
        async let memories = Self.askInOrder(dayPages) { try await $0.memories(query) }
        async let chosen = ratings.ratings(userID: user.id, from: key, to: key)[key]
        let dayParts = try await parts
        // The person's own rating, else the one suggested (from the confirmed moods).
        let rating = try await chosen.map { Rating(value: $0, source: .chosen) }
            ?? dayParts.lazy.compactMap(\.suggestedRating).first.map { Rating(value: $0, source: .moods) }
        return Day(key: key, diaryOpen: diaryOpen, parts: dayParts, previous: key.adding(days: -1, in: zone), next: key.adding(days: 1, in: zone),
                   onThisDay: Self.memories(try await memories, of: key), rating: rating)
    }

    /// The earlier years any feature recorded something on, newest first, each with every feature's lines in the offers' order.
    static func memories(_ all: [DayMemories], of key: DayKey) -> [Memory] {
        Set(all.flatMap(\.byDay.keys)).sorted(by: >).prefix(memoryLimit).map { day in
            var fields: [String: any Encodable & Sendable] = [:]
            for offer in all {
                fields.merge(offer.byDay[day]?.fields ?? offer.empty) { first, _ in first }
            }
            return Memory(key: day, yearsAgo: key.year - day.year, nodes: all.flatMap { $0.byDay[day]?.nodes ?? [] }, fields: fields)
        }
    }

    /// Asks every offer side by side; the answers keep the list's order.
    static func askInOrder<Offer: Sendable, Answer: Sendable>(_ offers: [Offer], _ ask: @escaping @Sendable (Offer) async throws -> Answer) async throws -> [Answer] {
        try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            for (index, offer) in offers.enumerated() { group.addTask { (index, try await ask(offer)) } }
            var answers = [Answer?](repeating: nil, count: offers.count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers.compactMap { $0 }
        }
    }

    public func rate(user: User, key: DayKey, rating: DayRating?, now: Date) async throws {
        if let rating { try await ratings.set(userID: user.id, day: key, rating: rating, now: now) } else { try await ratings.clear(userID: user.id, day: key) }
    }

    /// Every domain's matches for `query` (each word must occur), at most `perDomainLimit` each.
    public func search(user: User, query: String, diaryOpen: Bool, language: Language) async throws -> [SearchHit] {
        let query = String(query.prefix(200)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { return [] }
        let search = JournalSearch(user: user, query: query, timeZone: TimeZone(identifier: user.timeZone) ?? .gmt, language: language,
                                   diaryOpen: diaryOpen, limit: Self.perDomainLimit, dayPath: { JournalPaths.day($0) })
        // The features are searched side by side (the database has several connections); their hits keep the list's order.
        return try await Self.askInOrder(searches) { try await $0.searchHits(search) }.flatMap { $0 }
    }
}
