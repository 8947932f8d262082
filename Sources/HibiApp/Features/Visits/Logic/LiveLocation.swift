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
