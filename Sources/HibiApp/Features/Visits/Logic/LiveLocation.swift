import Foundation

/// What phones send while moving: OwnTracks in HTTP mode (one JSON message per request,
/// `_type: "location"` with `lat`, `lon`, `tst`, `acc`; other types such as `transition`, `waypoint`
/// or `lwt` are accepted and ignored) and Overland (a batch of GeoJSON Point features whose
/// `properties.timestamp` is ISO 8601). Pure: bytes in, points and a report out.
public enum LiveLocation {
    public static let maxBatch = 10_000

    public enum Failure: Error, Equatable, Sendable {
        case notJSON
        case wrongShape(String)
        case tooMany
    }

    public static func ownTracks(_ data: Data) throws(Failure) -> (points: [LocationPoint], report: ImportReport) {
        guard let root = try? JSONSerialization.jsonObject(with: data) else { throw .notJSON }
        // The app sends one object; a list (as its "last known" dumps hold) is read the same way.
        let messages: [Any] = (root as? [Any]) ?? [root]
        guard messages.count <= maxBatch else { throw .tooMany }
        var points: [LocationPoint] = []
        var report = ImportReport()
        for (index, raw) in messages.enumerated() {
            guard let message = raw as? [String: Any] else { throw .wrongShape("expected a JSON object") }
            // Transitions, waypoints, "last will" and the like carry no new position worth keeping.
            guard message["_type"] as? String == "location" else { continue }
            let at = "[\(index)]"
            guard let lat = message["lat"].flatMap(JSONNumber.read), let lon = message["lon"].flatMap(JSONNumber.read) else {
                report.skip("location", .missingValue, at: at)
                continue
            }
            guard let tst = message["tst"].flatMap(JSONNumber.read), tst.isFinite, abs(tst) < 1e12 else {
                report.skip("location", .unparseableDate, at: at)
                continue
            }
            guard TakeoutLocationReader.valid(lat, lon) else {
                report.skip("location", .outOfRange, at: at)
                continue
            }
            let accuracy = message["acc"].flatMap(JSONNumber.read).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            points.append(LocationPoint(time: Int64(tst), latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                        accuracy: accuracy))
        }
        return (points, report)
    }

    public static func overland(_ data: Data) throws(Failure) -> (points: [LocationPoint], report: ImportReport) {
        guard let root = try? JSONSerialization.jsonObject(with: data) else { throw .notJSON }
        guard let object = root as? [String: Any], let locations = object["locations"] as? [Any] else {
            throw .wrongShape("expected {\"locations\": [...]}")
        }
        guard locations.count <= maxBatch else { throw .tooMany }
        var points: [LocationPoint] = []
        var report = ImportReport()
        for (index, raw) in locations.enumerated() {
            let at = "locations[\(index)]"
            guard let feature = raw as? [String: Any],
                  let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Any], coordinates.count >= 2,
                  let lon = JSONNumber.read(coordinates[0]), let lat = JSONNumber.read(coordinates[1]) else {
                report.skip("location", .missingValue, at: at)
                continue
            }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let text = properties["timestamp"] as? String, let time = LocationTime.parse(text) else {
                report.skip("location", .unparseableDate, at: at)
                continue
            }
            guard TakeoutLocationReader.valid(lat, lon) else {
                report.skip("location", .outOfRange, at: at)
                continue
            }
            let accuracy = properties["horizontal_accuracy"].flatMap(JSONNumber.read).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            points.append(LocationPoint(time: time, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                        accuracy: accuracy))
        }
        return (points, report)
    }
}

/// ISO 8601 times as trackers write them, read fast: "2024-05-01T06:00:10Z", with fractional
/// seconds or a "+09:00" offset. Anything else goes to Foundation's parser.
public enum LocationTime {
    public static func parse(_ text: String) -> Int64? {
        var text = text
        if let fast = text.withUTF8(fastParse) { return fast }
        return VisitFormats.parseTime(text).map { Int64(saturating: $0.timeIntervalSince1970.rounded(.down)) }
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

/// Times a location history does not take: they would sit on no map and on days nobody lived
/// ("184 track points stored" on 1901-12-13, a 32-bit clock's floor). Kept out with a reason.
public enum LocationTimeRules {
    /// A day of slack for a phone whose clock runs ahead.
    public static let futureSlack: Int64 = 86_400
    /// Fewer points than this at one second are a short burst, not a clock that was never set.
    public static let sameSecondMinimum = 3

    public static func problem(_ time: Int64, now: Date?) -> ImportSkipReason? {
        if time < 0 { return .beforeEpoch }
        if let now, time > Int64(saturating: now.timeIntervalSince1970, rounding: .down) &+ futureSlack { return .inFuture }
        return nil
    }

    /// Every timed point of one file at the same second.
    public static func allAtOneSecond(count: Int, earliest: Int64?, latest: Int64?) -> Bool {
        guard count >= sameSecondMinimum, let earliest, let latest else { return false }
        return earliest == latest
    }
}
