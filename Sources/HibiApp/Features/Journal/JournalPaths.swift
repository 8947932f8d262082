import Foundation

/// Every page address of the journal, in one place: routes are registered with the same functions
/// links and redirects use (given `":date"`-style placeholders), so a link cannot point at a path no
/// route serves.
public enum JournalPaths {
    /// Today's page (the home page).
    public static let today = "/"
    /// The date picker's target (`?date=YYYY-MM-DD`), which redirects to that day's page.
    public static let dayPicker = DayPage.prefix
    public static let timeline = "/timeline"
    public static let search = "/search"
    public static let insights = "/insights"

    public static func day(_ key: some CustomStringConvertible) -> String { DayPage.path(key) }
    public static func rating(_ key: some CustomStringConvertible) -> String { day(key) + "/rating" }
    /// A weekly or monthly review (`kind` is "week" or "month", `period` its slug: 2026-W47, 2026-11).
    public static func review(_ kind: some CustomStringConvertible, _ period: some CustomStringConvertible) -> String { "/review/\(kind)/\(period)" }
    public static func reviewCard(_ kind: some CustomStringConvertible, _ period: some CustomStringConvertible) -> String { review(kind, period) + "/card.png" }
}

/// The journal's API addresses, relative to `APIPaths.root` (registered with these, given `":date"`-style placeholders;
/// `APIPathsTests` holds them to Resources/openapi/journal.json).
public enum JournalAPIPaths {
    public static func day(_ key: some CustomStringConvertible) -> String { "/days/\(key)" }
    public static func rating(_ key: some CustomStringConvertible) -> String { day(key) + "/rating" }
    public static let search = "/search"
    public static let timeline = "/timeline"
    public static let insights = "/insights"
    /// A weekly or monthly review (`kind` is "week" or "month").
    public static func review(_ kind: some CustomStringConvertible, _ period: some CustomStringConvertible) -> String { "/reviews/\(kind)/\(period)" }
}
