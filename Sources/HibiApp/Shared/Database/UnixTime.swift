import Foundation
import SQLKit

/// How every date is stored: whole Unix seconds in an integer column (INTEGER on SQLite, BIGINT on
/// PostgreSQL), the same on both engines and in backups. One type so reading and writing agree.
public struct UnixTime: Sendable, Hashable, Comparable {
    public let seconds: Int64

    public init(seconds: Int64) {
        self.seconds = seconds
    }

    /// Rounds down to the second. A date too far out for 64 bits (or not a number) is clamped rather than
    /// trapping: such a date can only come from bad input, and validation names it before it is stored.
    public init(_ date: Date) {
        seconds = Int64(saturating: date.timeIntervalSince1970, rounding: .down)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(seconds)) }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.seconds < rhs.seconds }
}

extension SQLRow {
    /// A date column written as `UnixTime`.
    func date(_ column: String) throws -> Date {
        UnixTime(seconds: try decode(column: column, as: Int64.self)).date
    }

    /// A nullable date column.
    func optionalDate(_ column: String) throws -> Date? {
        try decode(column: column, as: Int64?.self).map { UnixTime(seconds: $0).date }
    }
}
