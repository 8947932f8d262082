import Foundation

/// A calendar day in the person's own time zone, written `yyyy-MM-dd` in URLs and the API.
public struct DayKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Why a day in an address was refused, worded to follow "The parameter "date" …" (a day before
    /// 1970, such as 1901-12-13 from a 32-bit clock's floor, is a day Hibi keeps nothing for).
    public static let invalidReason = Text(en: "must be a day written YYYY-MM-DD from 1970-01-01 to 9999-12-31 (Hibi keeps no days before 1970)",
                                           ja: "1970-01-01〜9999-12-31 の日付を YYYY-MM-DD で指定してください(1970年より前の日は記録されません)")

    public let year: Int
    public let month: Int
    public let day: Int

    /// Parses `2026-11-23`; nil for anything else, including days that do not exist (2026-02-30) and
    /// years outside 1970–9999, so no date arithmetic ever runs on input it cannot hold.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `date` falls on in `timeZone`. Plain arithmetic on the local day number (no Calendar): summaries
    /// place hundreds of thousands of instants on their days.
    public init(_ date: Date, timeZone: TimeZone) {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.isFinite ? Int64(saturating: max(-1e15, min(1e15, seconds)).rounded(.down)) : 0
        let local = whole + Int64(timeZone.secondsFromGMT(for: date))
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        self.init(daysSince1970: days)
    }

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The civil date of a day number (days since 1970-01-01), Howard Hinnant's `civil_from_days`.
    init(daysSince1970 days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), month: Int(m), day: Int(d))
    }

    /// Days since 1970-01-01, Howard Hinnant's `days_from_civil`.
    var daysSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// From local midnight to the next local midnight (23 or 25 hours on a daylight-saving change).
    public func interval(in timeZone: TimeZone) -> DateInterval {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86400)
        return DateInterval(start: start, end: end)
    }

    /// The calendar day `days` later (earlier when negative). Calendar days do not depend on the zone; the
    /// parameter stays for the callers that think in local days.
    public func adding(days: Int, in timeZone: TimeZone) -> DayKey {
        DayKey(daysSince1970: daysSince1970 + Int64(max(-10_000_000, min(10_000_000, days))))
    }

    public static func < (lhs: DayKey, rhs: DayKey) -> Bool { (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day) }
}
