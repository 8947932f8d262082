import Foundation

/// Local days of a time zone as buckets of UNIX time, for reading per-day totals from the database: whole days where
/// the zone keeps one offset, shorter buckets or stretches over daylight-saving changes.
public enum LocalDays {
    /// How to bucket health records so that each bucket falls inside one local day of `zone` between `from` and
    /// `to`: whole local days when the zone keeps one offset over the range (the database then returns one row a
    /// day), else hours when every offset it takes is whole hours, else quarter hours (every offset in use is a
    /// multiple of 15 minutes). Returns the bucket length and the shift to add to a UNIX time before dividing.
    public static func bucketing(_ zone: TimeZone, from: Date, to: Date) -> (bucket: Int64, shift: Int64) {
        let offset = zone.secondsFromGMT(for: from)
        if let change = zone.nextDaylightSavingTimeTransition(after: from), change < to {
            var offsets: Set<Int> = [offset]
            var cursor = change
            var steps = 0
            while cursor < to, steps < 1000 {
                offsets.insert(zone.secondsFromGMT(for: cursor))
                guard let next = zone.nextDaylightSavingTimeTransition(after: cursor) else { break }
                cursor = next
                steps += 1
            }
            return (offsets.allSatisfy { $0 % 3600 == 0 } ? 3600 : 900, 0)
        }
        return (86400, Int64(offset))
    }

    /// The stretches of `from..<to` (seconds since 1970) over which `zone` keeps one offset, each with that offset in
    /// seconds: a local day is then `(t + shift) / 86400` inside a stretch, exact for any offset (half-hour zones and
    /// 45-minute zones too), and a day cut by a daylight-saving change is the sum of its parts in two stretches.
    /// At most 1,000 changes are followed (five centuries of twice-yearly changes); the last stretch takes the rest.
    public static func offsetSpans(_ zone: TimeZone, from: Int64, to: Int64) -> [(from: Int64, to: Int64, shift: Int64)] {
        guard from < to else { return [] }
        var spans: [(from: Int64, to: Int64, shift: Int64)] = []
        var start = from
        var steps = 0
        while start < to {
            let at = Date(timeIntervalSince1970: TimeInterval(start))
            let shift = Int64(zone.secondsFromGMT(for: at))
            var end = to
            if steps < 1000, let change = zone.nextDaylightSavingTimeTransition(after: at) {
                let seconds = change.timeIntervalSince1970.rounded(.up)
                if seconds.isFinite, seconds > Double(start), seconds < Double(to) { end = Int64(seconds) }
            }
            spans.append((start, end, shift))
            start = end
            steps += 1
        }
        return spans
    }
}
