import Foundation

/// Splits a large JSON document into the objects of its top-level arrays without building the whole
/// tree: Google Takeout's Records.json is one object holding a `locations` array of millions of
/// small objects, which `JSONSerialization` would turn into gigabytes. Bytes are fed in chunks;
/// each object found at the second level (`{"locations": [ {…}, {…} ]}`) or the first (a root
/// array, as the iOS Timeline export writes) is handed over with the key of its array, and only that
/// object is ever held. Pure: no I/O.
public struct JSONElementScanner: Sendable {
    public struct Element: Sendable {
        /// The key of the array the object sits in ("" for a root array).
        public var key: String
        public var bytes: [UInt8]
    }

    public enum Failure: Error, Equatable, Sendable {
        case notJSON
        case elementTooLarge(key: String)
    }

    public let maxElementBytes: Int
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var rootIsArray: Bool?
    /// The last string closed at depth 1 (a key of the root object, or a string value).
    private var lastKey: [UInt8] = []
    private var capturingKey = false
    private var arrayKey: String?
    private var capture: [UInt8]?
    private var captureDepth = 0
    private var oversized = false
    public private(set) var sawAnything = false

    public init(maxElementBytes: Int = 16 * 1024 * 1024) {
        self.maxElementBytes = maxElementBytes
    }

    /// Feeds the next bytes; `element` is called for every complete object.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, element: (Element) throws -> Void) throws {
        for byte in bytes {
            if capture != nil {
                if capture?.count ?? 0 < maxElementBytes { capture?.append(byte) } else { oversized = true }
            }
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 {
                    inString = false
                    capturingKey = false
                } else if capturingKey, lastKey.count < 256 {
                    lastKey.append(byte)
                }
                continue
            }
            switch byte {
            case 0x22: // "
                inString = true
                if depth == 1, rootIsArray == false, capture == nil {
                    capturingKey = true
                    lastKey.removeAll(keepingCapacity: true)
                }
            case 0x7B, 0x5B: // { [
                if depth == 0 {
                    sawAnything = true
                    rootIsArray = byte == 0x5B
                    if byte == 0x5B { arrayKey = "" }
                } else if depth == 1, rootIsArray == false, byte == 0x5B {
                    arrayKey = String(decoding: lastKey, as: UTF8.self)
                } else if byte == 0x7B, capture == nil, arrayKey != nil,
                          (depth == 2 && rootIsArray == false) || (depth == 1 && rootIsArray == true) {
                    capture = [byte]
                    captureDepth = depth
                }
                depth += 1
            case 0x7D, 0x5D: // } ]
                depth -= 1
                guard depth >= 0 else { throw Failure.notJSON }
                if let captured = capture, depth == captureDepth, byte == 0x7D {
                    capture = nil
                    let key = arrayKey ?? ""
                    if oversized {
                        oversized = false
                        throw Failure.elementTooLarge(key: key)
                    }
                    try element(Element(key: key, bytes: captured))
                } else if depth == 1, rootIsArray == false, byte == 0x5D {
                    arrayKey = nil
                } else if depth == 0, rootIsArray == true {
                    arrayKey = nil
                }
            case 0x20, 0x0A, 0x0D, 0x09, 0x2C, 0x3A:
                break
            default:
                if depth == 0, !(byte == 0xEF || byte == 0xBB || byte == 0xBF) { throw Failure.notJSON }
            }
        }
    }

    /// True when the document closed (every bracket matched).
    public var isComplete: Bool { sawAnything && depth == 0 && !inString }
}

/// What a Google location history file says, one object at a time: the old `Records.json`
/// (`locations[]` with `latitudeE7`/`longitudeE7` and `timestamp` or `timestampMs`), the semantic
/// monthly files (`timelineObjects[]` holding `placeVisit` and `activitySegment`), and the on-device
/// `Timeline.json` (`semanticSegments[]` with `visit`/`timelinePath`, `rawSignals[]`; coordinates as
/// "35.6812°, 139.7671°", or "geo:35.6812,139.7671" in the iOS export). Positions become points,
/// place visits become stays to confirm; everything else is counted in the report with a reason.
public struct TakeoutLocationReader: Sendable {
    public var points: [LocationPoint] = []
    /// The kind of element each point came from (reported when the point is stored or found a duplicate).
    public var pointKinds: [String] = []
    public var stays: [StayCandidate] = []
    /// The element each stay came from (placeVisit, visit): counted as added or already there once it is stored.
    public var stayKinds: [String] = []
    public var report = ImportReport()
    public private(set) var shape: String?

    public init() {}

    public mutating func take(_ element: JSONElementScanner.Element, position: Int) {
        let at = "\(element.key.isEmpty ? "" : element.key)[\(position)]"
        // An element JSONSerialization refuses (broken, or nested past its depth limit) is reported under
        // the kind its array holds, like any other element that cannot be used.
        guard let object = (try? JSONSerialization.jsonObject(with: Data(element.bytes))) as? [String: Any] else {
            let kind = switch element.key {
            case "locations": "location"
            case "timelineObjects": "timelineObject"
            case "rawSignals": "position"
            case "features": "feature"
            default: "segment"
            }
            report.skip(kind, .missingValue, at: at)
            return
        }
        switch element.key {
        case "locations":
            shape = shape ?? "records"
            record(object, at: at)
        case "timelineObjects":
            shape = shape ?? "semantic"
            if let visit = object["placeVisit"] as? [String: Any] { placeVisit(visit, at: at) }
            else if let segment = object["activitySegment"] as? [String: Any] { activitySegment(segment, at: at) }
            else { report.skip("timelineObject", .missingValue, at: at) }
        case "semanticSegments", "":
            shape = shape ?? (element.key.isEmpty ? "ios-timeline" : "timeline")
            semanticSegment(object, at: at)
        case "rawSignals":
            shape = shape ?? "timeline"
            rawSignal(object, at: at)
        case "features":
            // A GeoJSON position log (GPSLogger, Overland's dumps): Point features with a time each.
            shape = shape ?? "geojson"
            feature(object, at: at)
        default:
            // userLocationProfile and the like: not positions.
            break
        }
    }

    // MARK: values

    static func e7(_ value: Any?) -> Double? {
        guard let value, let number = JSONNumber.read(value) else { return nil }
        return number / 1e7
    }

    /// `timestamp` (ISO 8601), `timestampMs` (milliseconds as a string) or `timestampMs` as a number.
    static func time(_ object: [String: Any], _ keys: [String]) -> Int64?? {
        for key in keys {
            guard let raw = object[key] else { continue }
            if key.hasSuffix("Ms") {
                if let text = raw as? String, let ms = Int64(text) { return .some(ms / 1000) }
                if let number = JSONNumber.read(raw), number.isFinite, abs(number) < 1e15 { return .some(Int64(number / 1000)) }
                return .some(nil)
            }
            guard let text = raw as? String, let time = LocationTime.parse(text) else { return .some(nil) }
            return .some(time)
        }
        return nil
    }

    /// "35.6812°, 139.7671°", "35.6812, 139.7671" or "geo:35.6812,139.7671".
    public static func latLng(_ value: Any?) -> (Double, Double)? {
        guard var text = value as? String else {
            if let object = value as? [String: Any] {
                if let lat = e7(object["latitudeE7"]), let lon = e7(object["longitudeE7"] ?? object["lngE7"]) { return (lat, lon) }
                return latLng(object["latLng"] ?? object["LatLng"])
            }
            return nil
        }
        if text.hasPrefix("geo:") { text.removeFirst(4) }
        let parts = text.replacingOccurrences(of: "°", with: "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        return (lat, lon)
    }

    static func valid(_ lat: Double, _ lon: Double) -> Bool {
        lat.isFinite && lon.isFinite && (-90...90).contains(lat) && (-180...180).contains(lon)
    }

    mutating func point(_ kind: String, lat: Double?, lon: Double?, time: Int64??, accuracy: Any?, at: String) {
        guard let lat, let lon else { report.skip(kind, .missingValue, at: at); return }
        guard let time else { report.skip(kind, .missingValue, at: at); return }
        guard let seconds = time else { report.skip(kind, .unparseableDate, at: at); return }
        guard Self.valid(lat, lon) else { report.skip(kind, .outOfRange, at: at); return }
        let accuracy = accuracy.flatMap(JSONNumber.read).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        points.append(LocationPoint(time: seconds, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                    accuracy: accuracy))
        pointKinds.append(kind)
    }

    // MARK: shapes

    mutating func record(_ object: [String: Any], at: String) {
        point("location", lat: Self.e7(object["latitudeE7"]), lon: Self.e7(object["longitudeE7"]),
              time: Self.time(object, ["timestamp", "timestampMs"]), accuracy: object["accuracy"], at: at)
    }

    /// The timed positions of a `simplifiedRawPath` (inside a placeVisit or an activitySegment).
    mutating func rawPath(_ owner: [String: Any], kind: String, at: String) {
        guard let path = (owner["simplifiedRawPath"] as? [String: Any])?["points"] as? [Any] else { return }
        for case let raw as [String: Any] in path {
            point(kind, lat: Self.e7(raw["latE7"] ?? raw["latitudeE7"]), lon: Self.e7(raw["lngE7"] ?? raw["longitudeE7"]),
                  time: Self.time(raw, ["timestamp", "timestampMs"]), accuracy: raw["accuracyMeters"], at: at)
        }
    }

    mutating func placeVisit(_ visit: [String: Any], at: String) {
        // Its raw path is read whatever becomes of the visit itself (18 timed positions in one real month).
        rawPath(visit, kind: "simplifiedRawPath", at: at)
        let location = visit["location"] as? [String: Any] ?? [:]
        let duration = visit["duration"] as? [String: Any] ?? [:]
        guard let lat = Self.e7(location["latitudeE7"]), let lon = Self.e7(location["longitudeE7"]) else {
            report.skip("placeVisit", .missingValue, at: at)
            return
        }
        guard let startValue = Self.time(duration, ["startTimestamp", "startTimestampMs"]),
              let endValue = Self.time(duration, ["endTimestamp", "endTimestampMs"]) else {
            report.skip("placeVisit", .missingValue, at: at)
            return
        }
        guard let start = startValue, let end = endValue else { report.skip("placeVisit", .unparseableDate, at: at); return }
        guard Self.valid(lat, lon), end >= start else { report.skip("placeVisit", .outOfRange, at: at); return }
        let name = (location["name"] as? String) ?? (location["address"] as? String)
        stays.append(StayCandidate(arrival: start, departure: end, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                   pointCount: 0, name: name.flatMap { $0.isEmpty ? nil : String($0.prefix(VisitRules.maxNameLength)) }))
        stayKinds.append("placeVisit")
    }

    mutating func activitySegment(_ segment: [String: Any], at: String) {
        let duration = segment["duration"] as? [String: Any] ?? [:]
        for (key, timeKeys) in [("startLocation", ["startTimestamp", "startTimestampMs"]), ("endLocation", ["endTimestamp", "endTimestampMs"])] {
            guard let location = segment[key] as? [String: Any] else { continue }
            point("activitySegment", lat: Self.e7(location["latitudeE7"]), lon: Self.e7(location["longitudeE7"]),
                  time: Self.time(duration, timeKeys), accuracy: location["accuracyMetres"], at: at)
        }
        rawPath(segment, kind: "activitySegment", at: at)
        // waypointPath: the route Google drew; a waypoint with a time is a position, one without is said to have none.
        if let waypoints = (segment["waypointPath"] as? [String: Any])?["waypoints"] as? [Any] {
            for case let raw as [String: Any] in waypoints {
                point("waypointPath", lat: Self.e7(raw["latE7"] ?? raw["latitudeE7"]), lon: Self.e7(raw["lngE7"] ?? raw["longitudeE7"]),
                      time: Self.time(raw, ["timestamp", "timestampMs"]), accuracy: nil, at: at)
            }
        }
    }

    mutating func semanticSegment(_ segment: [String: Any], at: String) {
        let start = Self.time(segment, ["startTime"]) ?? nil
        let end = Self.time(segment, ["endTime"]) ?? nil
        if let visit = segment["visit"] as? [String: Any] {
            let candidate = visit["topCandidate"] as? [String: Any] ?? [:]
            guard let (lat, lon) = Self.latLng(candidate["placeLocation"]) else { report.skip("visit", .missingValue, at: at); return }
            guard let start, let end else { report.skip("visit", .unparseableDate, at: at); return }
            guard Self.valid(lat, lon), end >= start else { report.skip("visit", .outOfRange, at: at); return }
            let name: String? = switch (candidate["semanticType"] as? String)?.uppercased() {
            case "HOME", "INFERRED_HOME": "Home"
            case "WORK", "INFERRED_WORK": "Work"
            default: nil
            }
            stays.append(StayCandidate(arrival: start, departure: end, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                       pointCount: 0, name: name))
            stayKinds.append("visit")
        } else if let path = segment["timelinePath"] as? [Any] {
            for case let raw as [String: Any] in path {
                var time = Self.time(raw, ["time"])
                // iOS: minutes after the segment's start instead of a time.
                if time == nil, let offset = (raw["durationMinutesOffsetFromStartTime"] as? String).flatMap(Int64.init), let start {
                    time = .some(start &+ offset &* 60)
                }
                let position = Self.latLng(raw["point"])
                point("timelinePath", lat: position?.0, lon: position?.1, time: time, accuracy: nil, at: at)
            }
        } else if let activity = segment["activity"] as? [String: Any] {
            for (key, time) in [("start", start), ("end", end)] {
                let position = Self.latLng(activity[key])
                point("activity", lat: position?.0, lon: position?.1, time: .some(time), accuracy: nil, at: at)
            }
        } else {
            report.skip("segment", .missingValue, at: at)
        }
    }

    /// A Point feature with `properties.time` (ISO 8601, as GPSLogger writes it), `timestamp`, or
    /// `time_long` (milliseconds); `accuracy` in metres.
    mutating func feature(_ feature: [String: Any], at: String) {
        let geometry = feature["geometry"] as? [String: Any] ?? [:]
        let coordinates = (geometry["type"] as? String == "Point" ? geometry["coordinates"] as? [Any] : nil) ?? []
        let numbers = coordinates.compactMap(JSONNumber.read)
        let properties = feature["properties"] as? [String: Any] ?? [:]
        var time = Self.time(properties, ["time", "timestamp"])
        if time == nil, let ms = properties["time_long"].flatMap(JSONNumber.read), ms.isFinite, abs(ms) < 1e15 { time = .some(Int64(ms / 1000)) }
        point("feature", lat: numbers.count >= 2 ? numbers[1] : nil, lon: numbers.count >= 2 ? numbers[0] : nil, time: time,
              accuracy: properties["accuracy"], at: at)
    }

    mutating func rawSignal(_ signal: [String: Any], at: String) {
        // Wi-Fi scans and activity records carry no position: not points, and not a loss worth reporting.
        guard let position = signal["position"] as? [String: Any] else { return }
        let latLng = Self.latLng(position["LatLng"] ?? position["latLng"])
        point("position", lat: latLng?.0, lon: latLng?.1, time: Self.time(position, ["timestamp"]), accuracy: position["accuracyMeters"], at: at)
    }
}
