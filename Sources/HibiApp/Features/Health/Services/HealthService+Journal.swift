import Foundation
import SQLKit
import Synchronization

// MARK: more read methods for the journal (its calendar and insights over years)

extension HealthService {
    /// The record types this person has, read as a loose index scan (one index seek per type, not a row per record),
    /// so a summary over every type can name them and be answered from the covering identity index.
    public func recordTypes(userID: String) async throws -> [String] {
        let types = Mutex<[String]>([])
        // At most 1,000 steps: Apple Health has about 200 types; the bound keeps a strange import from looping long.
        try await database.sql.raw("""
            WITH RECURSIVE kinds(type, step) AS (
              SELECT MIN(type), 1 FROM health_records WHERE user_id = \(bind: userID)
              UNION ALL
              SELECT (SELECT MIN(h.type) FROM health_records h WHERE h.user_id = \(bind: userID) AND h.type > kinds.type), step + 1
              FROM kinds WHERE kinds.type IS NOT NULL AND step < 1000)
            SELECT type FROM kinds WHERE type IS NOT NULL
            """).run { row in
            if let type = try? row.decode(column: "type", as: String.self) { types.withLock { $0.append(type) } }
        }
        return types.withLock { $0 }
    }

    /// A type's sum over one local day (or the part of it inside the range asked for).
    public struct DaySum: Sendable, Equatable {
        /// The day's first instant inside the range, in seconds since 1970.
        public let start: Int64
        public let sum: Double
    }

    /// One type's sum per local day from `from` to `to` (seconds since 1970, `to` exclusive) while the zone's offset is
    /// `shift` seconds throughout: one indexed SUM per day, so a type with a million samples over ten years is read
    /// without sorting them (a GROUP BY over an expression of the time sorts every row). A record belongs to the day it
    /// starts on, as in `bucketTotals` for every type but sleep. Days with nothing recorded are left out; the range is
    /// cut to 40 years (14,610 days).
    public func daySums(userID: String, type: String, from: Int64, to: Int64, shift: Int64) async throws -> [DaySum] {
        let day: Int64 = 86400
        let upper = min(to, from + 14_610 * day)
        guard from < upper else { return [] }
        let firstDay = Self.floorDiv(from + shift, day), lastDay = Self.floorDiv(upper - 1 + shift, day)
        // Each day's bounds are columns of the recursive list (cut to the range at both ends), so both engines seek
        // the (user, type, start) index once per day and read only that day's rows.
        let sums = Mutex<[DaySum]>([])
        try await database.sql.raw("""
            WITH RECURSIVE days(q, lo, hi) AS (
              SELECT \(bind: firstDay), \(bind: from), \(bind: min(upper, (firstDay + 1) * day - shift))
              UNION ALL
              SELECT q + 1, (q + 1) * \(bind: day) - \(bind: shift),
                CASE WHEN (q + 2) * \(bind: day) - \(bind: shift) < \(bind: upper) THEN (q + 2) * \(bind: day) - \(bind: shift) ELSE \(bind: upper) END
              FROM days WHERE q < \(bind: lastDay))
            SELECT lo, (SELECT SUM(\(unsafeRaw: HealthRecordStore.summableValue)) FROM health_records WHERE user_id = \(bind: userID) AND type = \(bind: type) \
            AND start_at >= days.lo AND start_at < days.hi) AS total FROM days
            """).run { row in
            guard let lo = try? row.decode(column: "lo", as: Int64.self), let total = try? row.decode(column: "total", as: Double?.self) else { return }
            sums.withLock { $0.append(DaySum(start: lo, sum: total)) }
        }
        return sums.withLock { $0 }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
