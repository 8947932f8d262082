import Foundation

/// ISO 8601 times as trackers write them, read fast: "2024-05-01T06:00:10Z", with fractional
/// seconds or a "+09:00" offset. Anything else goes to Foundation's parser.
public enum LocationTime {
    public static func parse(_ text: String) -> Int64? {
        var text = text
        if let fast = text.withUTF8(fastParse) { return fast }
        return date(text).map { Int64(saturating: $0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Foundation's ISO 8601 reading, with or without fractional seconds (what the fast path leaves).
    public static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        return try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func fastParse(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count >= 20 else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + count) {
                let d = b[i] &- 0x30
                guard d <= 9 else { return nil }
                value = value * 10 + Int64(d)
            }
            return value
        }
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var at = 19
        if b[at] == 0x2E {
            at += 1
            while at < b.count, b[at] &- 0x30 <= 9 { at += 1 }
        }
        guard at < b.count else { return nil }
        var offset: Int64 = 0
        if b[at] == 0x5A {
            guard at + 1 == b.count else { return nil }
        } else if b[at] == 0x2B || b[at] == 0x2D {
            // "+09:00", or "+0900" as some trackers write it.
            let colon = at + 6 == b.count && b[at + 3] == 0x3A
            guard colon || at + 5 == b.count, let h = digits(at + 1, 2), let m = digits(at + (colon ? 4 : 3), 2), h < 24, m < 60 else { return nil }
            offset = (h * 3600 + m * 60) * (b[at] == 0x2B ? 1 : -1)
        } else {
            return nil
        }
        // Days from the civil date (Howard Hinnant's algorithm), then seconds.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }
}
