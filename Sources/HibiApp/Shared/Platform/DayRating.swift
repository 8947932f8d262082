import Foundation

/// Daylio's five-point day rating, the ordinal mood the insights use.
public enum DayRating: Int, Sendable, Codable, CaseIterable, Comparable {
    case awful = 1, bad, meh, good, great

    public var label: Text {
        switch self {
        case .awful: Text(en: "Awful", ja: "最悪")
        case .bad: Text(en: "Bad", ja: "悪い")
        case .meh: Text(en: "Meh", ja: "ふつう")
        case .good: Text(en: "Good", ja: "良い")
        case .great: Text(en: "Great", ja: "最高")
        }
    }

    public static func < (lhs: DayRating, rhs: DayRating) -> Bool { lhs.rawValue < rhs.rawValue }
}
