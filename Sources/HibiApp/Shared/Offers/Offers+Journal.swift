import Foundation

// The seams on Journal's side of the walls: what the features offer Journal (search, the checklist: declared for
// Journal, which iterates them, and conformed to in each feature's `<Name>Offers.swift`), and what Journal offers
// the diary (`DayRatings`, conformed in Features/Journal/JournalOffers.swift). The assembly (`Features.init`) hands them over.

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
