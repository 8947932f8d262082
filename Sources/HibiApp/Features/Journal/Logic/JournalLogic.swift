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

/// One line of a day's health: a total for what adds up over a day (steps, distance, energy, sleep,
/// workout minutes), an average for rates (heart rate), the last reading for states (weight, body fat).
public struct HealthDayLine: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case total, average, latest }
    public let type: String
    public let kind: Kind
    /// In the type's canonical unit (kg, km, kcal, h, count/min, …).
    public let value: Double
    public let unit: String
    public let records: Int
}

public enum HealthDay {
    /// The day's lines in a fixed order (the known types first, then others by name). Imported types Hibi
    /// does not know are summed when their unit is a count or an amount, else shown as the latest reading.
    public static func summarize(_ records: [HealthRecord]) -> [HealthDayLine] {
        let byType = Dictionary(grouping: records, by: \.type)
        let order = HealthDataType.allCases.map(\.rawValue)
        return byType.keys.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
            .compactMap { type -> HealthDayLine? in
                // Sleep has its own section (by night, stages and sources counted once); a sum of its records double-counts.
                guard type != HealthDataType.sleep.rawValue else { return nil }
                guard let group = byType[type], let newest = group.filter(\.value.isFinite).max(by: { $0.start < $1.start }) else { return nil }
                let known = HealthDataType(rawValue: type)
                let unit = known?.canonicalUnit ?? newest.unit
                let values = group.map(\.value).filter(\.isFinite)
                guard !values.isEmpty else { return nil }
                if known?.isCumulative == true {
                    return HealthDayLine(type: type, kind: .total, value: values.finiteSum, unit: unit, records: group.count)
                }
                if known == .heartRate || known == .restingHeartRate || known == .heartRateVariability {
                    return HealthDayLine(type: type, kind: .average, value: values.finiteMean ?? 0, unit: unit, records: group.count)
                }
                return HealthDayLine(type: type, kind: .latest, value: newest.value, unit: unit, records: group.count)
            }
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
        let words = DiarySearch.normalize(query).split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return false }
        let text = DiarySearch.normalize(fields.compactMap { $0 }.joined(separator: " "))
        return words.allSatisfy { text.contains($0) }
    }
}

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

    /// The default from the day's confirmed moods: each mood's valence (happy good, calm and surprised meh,
    /// sad, angry, afraid and disgusted bad), averaged and rounded half up. The ends of the scale, awful and
    /// great, are left to the person: a photo's mood alone never says a day was the best or the worst.
    /// Nil without a confirmed mood.
    public static func fromMoods(_ moods: [Mood]) -> DayRating? {
        guard !moods.isEmpty else { return nil }
        let values = moods.map { mood -> Int in
            switch mood {
            case .happiness: 4
            case .neutral, .surprise: 3
            case .sadness, .anger, .fear, .disgust: 2
            }
        }
        let average = Double(values.reduce(0, +)) / Double(values.count)
        return DayRating(rawValue: Int(saturating: (average + 0.5).rounded(.down)))
    }
}
