import Foundation

/// GeoJSON and GPX, both ways. Parsing reads the whole file before anything is stored, and the
/// first problem is reported with where it is (a JSON path, or a line and column for GPX).
public enum VisitFormats {
    public static let maxItems = 100_000

    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    /// "2013-01-01T12:00:04" (no Z, no offset) read as UTC: GPX 1.1 says its times are UTC, and gpxpy and
    /// GPSBabel read such times so. nil for a time that names its zone or is not a time at all.
    public static func zonelessAsUTC(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 19, bytes.count <= 32, bytes[10] == UInt8(ascii: "T"),
              bytes[19...].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }) else { return nil }
        return parseTime(trimmed + "Z")
    }

    static func parseTime(_ text: String) -> Date? { LocationTime.date(text) }

    // MARK: GeoJSON

    public static func geoJSON(_ visits: [Visit], chain: ChainExport?) -> Data {
        func address(_ a: VisitAddress?) -> Any {
            guard let a else { return NSNull() }
            var out: [String: Any] = [:]
            if let v = a.country { out["country"] = v }
            if let v = a.postalCode { out["postalCode"] = v }
            if let v = a.region { out["region"] = v }
            if let v = a.locality { out["locality"] = v }
            if let v = a.street { out["street"] = v }
            return out
        }
        let features: [[String: Any]] = visits.map { visit in
            let f = visit.fields
            var coordinates: [Double] = [f.longitude, f.latitude]
            if let altitude = f.altitude { coordinates.append(altitude) }
            return [
                "type": "Feature",
                "id": visit.id,
                "geometry": ["type": "Point", "coordinates": coordinates],
                "properties": [
                    "name": f.name, "visitedAt": iso(f.visitedAt), "accuracy": f.accuracy.map { $0 as Any } ?? NSNull(),
                    "simulated": f.simulated, "address": address(f.address), "labels": f.labels,
                    "group": f.group.map { $0 as Any } ?? NSNull(), "companions": f.companions, "notes": f.notes,
                ] as [String: Any],
            ]
        }
        var root: [String: Any] = ["type": "FeatureCollection", "features": features]
        if let chain, let data = try? JSONCoding.encoder.encode(chain), let object = try? JSONSerialization.jsonObject(with: data) {
            // A foreign member (RFC 7946 §6.1): GeoJSON readers ignore it, verifiers read it.
            root["hibi"] = object
        }
        return (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])) ?? Data()
    }

    static func invalid(_ position: String, _ en: String, _ ja: String) -> VisitError {
        .importInvalid(position: position, reason: Text(en: en, ja: ja))
    }

    /// What a GeoJSON file given to the visits import is, told by its first feature's properties:
    /// Hibi's own visits (`visitedAt`), a position log (GPSLogger: `time` or `time_long` on every
    /// point, a history of where the phone was, not places visited), or Google Maps' "Saved Places.json"
    /// (`google_maps_url`, `location`: places saved without a visit time). Only the first feature is
    /// decoded, from at most the first 4 MB.
    public enum GeoJSONDialect: String, Sendable {
        case hibi = "hibi-geojson"
        case positionLog = "gpslogger"
        case googleSavedPlaces = "google-saved-places"
    }

    private struct FirstFeatureFound: Error {}

    public static func geoJSONDialect(_ data: Data) -> GeoJSONDialect {
        var scanner = JSONElementScanner(maxElementBytes: 1 << 20)
        var first: [String: Any]?
        _ = data.prefix(4 << 20).withUnsafeBytes { raw in
            try? scanner.feed(raw.bindMemory(to: UInt8.self)) { element in
                guard element.key == "features" else { return }
                first = (try? JSONSerialization.jsonObject(with: Data(element.bytes))) as? [String: Any]
                throw FirstFeatureFound()
            }
        }
        let properties = first?["properties"] as? [String: Any] ?? [:]
        if properties["visitedAt"] != nil { return .hibi }
        if properties["google_maps_url"] != nil || properties["Google Maps URL"] != nil || properties["location"] is [String: Any]
            || properties["Location"] is [String: Any] { return .googleSavedPlaces }
        if properties["time"] != nil || properties["time_long"] != nil || properties["timestamp"] != nil { return .positionLog }
        return .hibi
    }

    public static func parseGeoJSON(_ data: Data) throws(VisitError) -> [VisitFields] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "syntax error"
            throw invalid("JSON", "not valid JSON (\(detail))", "正しい JSON ではありません(\(detail))")
        }
        guard let object = root as? [String: Any], object["type"] as? String == "FeatureCollection" else {
            throw invalid("$", "expected a GeoJSON FeatureCollection", "GeoJSON の FeatureCollection が必要です")
        }
        guard let features = object["features"] as? [Any] else {
            throw invalid("$.features", "expected an array of features", "features の配列が必要です")
        }
        guard features.count <= maxItems else { throw invalid("$.features", "more than \(maxItems) features", "地物が\(maxItems)件を超えています") }
        var result: [VisitFields] = []
        result.reserveCapacity(features.count)
        for (index, raw) in features.enumerated() {
            let at = "features[\(index)]"
            guard let feature = raw as? [String: Any], feature["type"] as? String == "Feature" else {
                throw invalid(at, "expected a Feature", "Feature が必要です")
            }
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point",
                  let coordinates = geometry["coordinates"] as? [Any] else {
                throw invalid("\(at).geometry", "expected a Point geometry", "Point ジオメトリが必要です")
            }
            let numbers = coordinates.compactMap(JSONNumber.read)
            guard (2...3).contains(coordinates.count), numbers.count == coordinates.count else {
                throw invalid("\(at).geometry.coordinates", "expected [longitude, latitude] or [longitude, latitude, altitude]",
                              "[経度, 緯度] または [経度, 緯度, 高度] が必要です")
            }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            func string(_ key: String) throws(VisitError) -> String? {
                guard let value = properties[key], !(value is NSNull) else { return nil }
                guard let text = value as? String else { throw invalid("\(at).properties.\(key)", "expected text", "文字列が必要です") }
                return text
            }
            func strings(_ key: String) throws(VisitError) -> [String] {
                guard let value = properties[key], !(value is NSNull) else { return [] }
                guard let list = value as? [Any], let texts = list as? [String], texts.count == list.count else {
                    throw invalid("\(at).properties.\(key)", "expected a list of text", "文字列の配列が必要です")
                }
                return texts
            }
            guard let when = try string("visitedAt"), let visitedAt = parseTime(when) else {
                throw invalid("\(at).properties.visitedAt", "expected an ISO-8601 time such as 2024-05-01T09:30:00Z",
                              "2024-05-01T09:30:00Z のような ISO-8601 の日時が必要です")
            }
            var accuracy: Double?
            if let value = properties["accuracy"], !(value is NSNull) {
                guard let number = JSONNumber.read(value) else {
                    throw invalid("\(at).properties.accuracy", "expected a number", "数値が必要です")
                }
                accuracy = number
            }
            var address: VisitAddress?
            if let value = properties["address"], !(value is NSNull) {
                guard let parts = value as? [String: Any] else { throw invalid("\(at).properties.address", "expected an object", "オブジェクトが必要です") }
                func part(_ key: String) throws(VisitError) -> String? {
                    guard let v = parts[key], !(v is NSNull) else { return nil }
                    guard let text = v as? String else { throw invalid("\(at).properties.address.\(key)", "expected text", "文字列が必要です") }
                    return text
                }
                address = VisitAddress(country: try part("country"), postalCode: try part("postalCode"), region: try part("region"),
                                       locality: try part("locality"), street: try part("street"))
            }
            let fields = VisitFields(
                visitedAt: visitedAt, latitude: numbers[1], longitude: numbers[0], accuracy: accuracy,
                altitude: numbers.count == 3 ? numbers[2] : nil, simulated: (properties["simulated"] as? Bool) ?? false,
                name: try string("name") ?? "", address: address, labels: try strings("labels"), group: try string("group"),
                companions: try strings("companions"), notes: try string("notes") ?? "")
            do {
                result.append(try VisitRules.validate(fields))
            } catch {
                throw invalid(at, error.message(.en), error.message(.ja))
            }
        }
        return result
    }

    // MARK: GPX

    public static func gpx(_ visits: [Visit]) -> Data {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Hibi" xmlns="http://www.topografix.com/GPX/1/1" xmlns:hibi="https://hibi.example/visits/1">

        """
        for visit in visits {
            let f = visit.fields
            out += "  <wpt lat=\"\(f.latitude)\" lon=\"\(f.longitude)\">\n"
            if let altitude = f.altitude { out += "    <ele>\(altitude)</ele>\n" }
            out += "    <time>\(iso(f.visitedAt))</time>\n"
            out += "    <name>\(escapeHTML(f.name))</name>\n"
            if !f.notes.isEmpty { out += "    <desc>\(escapeHTML(f.notes))</desc>\n" }
            out += "    <extensions>\n"
            if let accuracy = f.accuracy { out += "      <hibi:accuracy>\(accuracy)</hibi:accuracy>\n" }
            if f.simulated { out += "      <hibi:simulated>true</hibi:simulated>\n" }
            for label in f.labels { out += "      <hibi:label>\(escapeHTML(label))</hibi:label>\n" }
            if let group = f.group { out += "      <hibi:group>\(escapeHTML(group))</hibi:group>\n" }
            for companion in f.companions { out += "      <hibi:companion>\(escapeHTML(companion))</hibi:companion>\n" }
            if let a = f.address {
                out += "      <hibi:address>"
                for (key, value) in [("country", a.country), ("postalCode", a.postalCode), ("region", a.region),
                                     ("locality", a.locality), ("street", a.street)] {
                    if let value { out += "<hibi:\(key)>\(escapeHTML(value))</hibi:\(key)>" }
                }
                out += "</hibi:address>\n"
            }
            out += "    </extensions>\n  </wpt>\n"
        }
        out += "</gpx>\n"
        return Data(out.utf8)
    }

    /// GPX waypoints, read by Hibi's own streaming XML reader (no DTD processing, bounded sizes).
    /// Either format with its report (GeoJSON features are all or nothing, so its report only counts them).
    public static func parseWithReport(_ data: Data, gpx: Bool, importedAt: Date) throws(VisitError) -> (visits: [VisitFields], report: ImportReport) {
        if gpx { return try parseGPXReport(data, importedAt: importedAt) }
        let visits = try parseGeoJSON(data)
        var report = ImportReport()
        for _ in visits { report.add("feature") }
        return (visits, report)
    }

    public static func parseGPX(_ data: Data) throws(VisitError) -> [VisitFields] {
        try parseGPXReport(data, importedAt: Date()).visits
    }

    /// The label a visit carries when its time is not its own (a GPX waypoint or route point
    /// without <time>): stored and signed with the visit, shown and filterable like any label.
    public static let approximateTimeLabel = "approximate-time"

    /// GPX 1.0 and 1.1 waypoints and route points as visits, with a report of what was read.
    /// A point without <time> takes the file's time (<metadata><time>, or <time> under <gpx> in
    /// GPX 1.0), else `importedAt`, and is labelled approximate; track points are counted and
    /// reported, not made into visits. A malformed file or an invalid point still refuses the
    /// whole file with its line (visits are all or nothing: they are signed in one chain).
    public static func parseGPXReport(_ data: Data, importedAt: Date) throws(VisitError) -> (visits: [VisitFields], report: ImportReport) {
        let parsed = try parseGPXWithTrack(data, importedAt: importedAt)
        return (parsed.visits, parsed.report)
    }

    /// The waypoints as visits and the track points for the location history, from a file in memory.
    /// `kinds[i]` is the element visit `i` came from (wpt or rtept), for the report of what was stored.
    public static func parseGPXWithTrack(_ data: Data, importedAt: Date) throws(VisitError)
        -> (visits: [VisitFields], report: ImportReport, trackPoints: [LocationPoint], kinds: [String]) {
        let parser = GPXStreamParser(stream: MemoryByteStream(Array(data)), importedAt: importedAt)
        while try parser.next(maxPoints: .max) {}
        let points = parser.takePoints()
        let (visits, report) = try parser.finish()
        return (visits, report, points, parser.visitKinds)
    }
}

/// Reads GPX from a stream in steps, so a caller can store track points as they come (a watch's
/// year of tracks is millions of points) while waypoints, which are few, wait for the end.
public final class GPXStreamParser {
    private let reader: XMLStreamReader
    private var gpx: GPXReader
    private var ended = false

    public init(stream: any ByteStream, importedAt: Date) {
        reader = XMLStreamReader(stream: stream, limits: XMLLimits(), reportsText: true)
        gpx = GPXReader(importedAt: importedAt)
    }

    /// Reads until `maxPoints` track points are waiting or the file ends; false once it has ended.
    public func next(maxPoints: Int) throws(VisitError) -> Bool {
        guard !ended else { return false }
        // The reader state is worked on as a local: a class's stored struct is checked for exclusive access
        // at run time on every mutating call, a few per token (perf: a few % of a GPX import).
        var gpx = GPXReader(importedAt: self.gpx.importedAt)
        swap(&gpx, &self.gpx)
        defer { swap(&gpx, &self.gpx) }
        do {
            while gpx.trackPoints.count < maxPoints {
                guard let token = try reader.nextToken() else {
                    ended = true
                    return false
                }
                switch token {
                case let .start(name):
                    // A track point's lat and lon are read from the tag's bytes: a million points made two
                    // million attribute strings and arrays through `nextEvent()`.
                    if gpx.sawRoot, GPXReader.local(name) == "trkpt" {
                        gpx.startTrackPoint(reader.attributes, line: reader.line)
                    } else {
                        try gpx.handle(.start(name: name, attributes: reader.attributes.materialized), line: reader.line)
                    }
                case let .end(name): try gpx.handle(.end(name: name), line: reader.line)
                case let .text(run): try gpx.handle(.text(run), line: reader.line)
                }
            }
            return true
        } catch let error as XMLStreamError {
            throw VisitFormats.invalid("line \(error.line)", "not well-formed XML (\(error.text.en))", "XML の形式が正しくありません(\(error.text.ja))")
        } catch let error as VisitError {
            throw error
        } catch {
            throw VisitFormats.invalid("line \(reader.line)", "the file cannot be read", "ファイルを読み込めません")
        }
    }

    /// The element each visit `finish()` returned came from (wpt or rtept), in the same order.
    public var visitKinds: [String] { gpx.visitKinds }

    public func takePoints() -> [LocationPoint] {
        defer { gpx.trackPoints.removeAll(keepingCapacity: true) }
        return gpx.trackPoints
    }

    /// The waypoints and route points as visits, and the report so far (track points are reported by whoever stores them).
    public func finish() throws(VisitError) -> (visits: [VisitFields], report: ImportReport) {
        guard gpx.sawRoot else { throw VisitFormats.invalid("line 1", "expected a <gpx> document", "<gpx> 文書が必要です") }
        return (gpx.finish(), gpx.report)
    }
}

/// GPX waypoints and route points from the reader's events; stops at the first problem with its line.
struct GPXReader {
    struct Pending {
        var fields: VisitFields
        var kind: String
        var line: Int
        var timeSeen: Bool
    }

    let importedAt: Date
    var sawRoot = false
    var report = ImportReport()
    /// Track points with a time, in file order, for the location history (drained by the caller as it goes).
    var trackPoints: [LocationPoint] = []
    /// The element each visit came from, filled by `finish()`.
    var visitKinds: [String] = []
    /// The track point being read: its position, its time once seen, and whether the time was unreadable.
    private var track: (lat: Double, lon: Double, time: Int64?, badTime: Bool, zoneless: Bool, line: Int)?
    private var pending: [Pending] = []
    private var fileTime: Date?
    private var current: Pending?
    private var stack: [String] = []
    private var address: VisitAddress?
    private var text = ""

    init(importedAt: Date) {
        self.importedAt = importedAt
    }

    /// The name without its namespace prefix; most names have none, and a track of a million points
    /// asks this four million times, so that case allocates nothing.
    static func local(_ name: String) -> String {
        guard let colon = name.utf8.lastIndex(of: UInt8(ascii: ":")) else { return name }
        return String(name[name.utf8.index(after: colon)...])
    }

    func fail(_ line: Int, _ en: String, _ ja: String) -> VisitError {
        VisitFormats.invalid("line \(line)", en, ja)
    }

    mutating func handle(_ event: XMLEvent, line: Int) throws(VisitError) {
        switch event {
        case let .start(name, attributes):
            let local = Self.local(name)
            try start(local, attributes: attributes, line: line)
            stack.append(local)
        case let .end(name):
            let local = Self.local(name)
            try end(local, line: line)
            if !stack.isEmpty { stack.removeLast() }
        case let .text(run): text += run
        }
    }

    /// `<trkpt lat=… lon=…>`, the one start tag a track has a million of: the two numbers are read
    /// straight from the tag's bytes.
    mutating func startTrackPoint(_ attributes: XMLTagAttributes, line: Int) {
        text = ""
        var lat: Double?
        var lon: Double?
        for i in 0..<attributes.count {
            if attributes.nameIs(i, "lat") { lat = Self.number(attributes.value(i)) }
            else if attributes.nameIs(i, "lon") { lon = Self.number(attributes.value(i)) }
        }
        trackPoint(lat: lat, lon: lon, line: line)
        stack.append("trkpt")
    }

    /// `text` without surrounding whitespace. A track point's time almost never has any, and Foundation's
    /// `trimmingCharacters` (through NSString and UTF-16) was 16% of a GPX import's CPU time (perf, 300,000 points).
    static func trimmed(_ text: String) -> String {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        guard let first = text.utf8.first, let last = text.utf8.last, blank(first) || blank(last) else { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A decimal number from bytes, as `Double(String)` reads it (a short value stays a small string: no allocation).
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: bytes, as: UTF8.self))
    }

    private mutating func trackPoint(lat: Double?, lon: Double?, line: Int) {
        guard let lat, let lon else {
            report.skip("trkpt", .missingValue, at: "line \(line)")
            track = nil
            return
        }
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
            report.skip("trkpt", .outOfRange, at: "line \(line)")
            track = nil
            return
        }
        track = (VisitRules.roundCoordinate(lat), VisitRules.roundCoordinate(lon), nil, false, false, line)
    }

    /// The points as visits: times filled in now that the whole file (and its metadata time,
    /// which GPX 1.0 may give after the points) is read; repeats within the file skipped.
    mutating func finish() -> [VisitFields] {
        var seen = Set<String>()
        var visits: [VisitFields] = []
        visits.reserveCapacity(pending.count)
        for var point in pending {
            if !point.timeSeen {
                point.fields.visitedAt = fileTime ?? importedAt
                if !point.fields.labels.contains(VisitFormats.approximateTimeLabel) {
                    point.fields.labels.append(VisitFormats.approximateTimeLabel)
                }
            }
            let f = point.fields
            guard seen.insert(VisitContentKey.key(f)).inserted else {
                report.duplicate(point.kind)
                continue
            }
            visits.append(f)
            visitKinds.append(point.kind)
            report.add(point.kind, approximateTime: !point.timeSeen)
        }
        return visits
    }

    private mutating func start(_ name: String, attributes: [XMLAttribute], line: Int) throws(VisitError) {
        text = ""
        if !sawRoot {
            guard name == "gpx" else { throw fail(line, "expected a <gpx> document", "<gpx> 文書が必要です") }
            sawRoot = true
            return
        }
        switch name {
        case "wpt", "rtept":
            guard pending.count < VisitFormats.maxItems else { throw fail(line, "too many waypoints", "ウェイポイントが多すぎます") }
            func number(_ key: String) -> Double? { attributes.first { $0.name == key }.flatMap { Double($0.value) } }
            guard let lat = number("lat"), let lon = number("lon") else {
                throw fail(line, "a <\(name)> needs numeric lat and lon attributes", "<\(name)> には数値の lat と lon 属性が必要です")
            }
            current = Pending(fields: VisitFields(visitedAt: importedAt, latitude: lat, longitude: lon, name: ""),
                              kind: name, line: line, timeSeen: false)
        case "trkpt":
            func number(_ key: String) -> Double? { attributes.first { $0.name == key }.flatMap { Double($0.value) } }
            trackPoint(lat: number("lat"), lon: number("lon"), line: line)
        case "address" where current != nil:
            address = VisitAddress()
        default:
            break
        }
    }

    private mutating func end(_ name: String, line: Int) throws(VisitError) {
        if track != nil {
            // Inside a track point only its time is read: nothing else is trimmed or kept.
            defer { text = "" }
            if name == "time", stack.count >= 2, stack[stack.count - 2] == "trkpt" {
                let value = Self.trimmed(text)
                if let time = LocationTime.parse(value) {
                    track?.time = time
                } else if let utc = VisitFormats.zonelessAsUTC(value) {
                    track?.time = Int64(saturating: utc.timeIntervalSince1970, rounding: .down)
                    track?.zoneless = true
                } else {
                    track?.badTime = true
                }
            } else if name == "trkpt", let point = track {
                track = nil
                // A position without a time cannot be placed in the history: said, not stored.
                if let time = point.time, !point.badTime {
                    trackPoints.append(LocationPoint(time: time, latitude: point.lat, longitude: point.lon))
                    if point.zoneless { report.readAsUTC("trkpt") }
                } else {
                    report.skip("trkpt", point.badTime ? .unparseableDate : .missingValue, at: "line \(point.line)")
                }
            }
            return
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        guard current != nil else {
            // The file's own time: <metadata><time> in GPX 1.1, <time> under <gpx> in GPX 1.0.
            if name == "time", stack == ["gpx", "metadata", "time"] || stack == ["gpx", "time"], let date = VisitFormats.parseTime(value) {
                fileTime = date
            }
            return
        }
        func number() throws(VisitError) -> Double {
            guard let number = Double(value) else { throw fail(line, "<\(name)> must be a number", "<\(name)> は数値にしてください") }
            return number
        }
        if address != nil, name != "address" {
            switch name {
            case "country": address?.country = value
            case "postalCode": address?.postalCode = value
            case "region": address?.region = value
            case "locality": address?.locality = value
            case "street": address?.street = value
            default: break
            }
            return
        }
        // Only the point's own children: a Garmin or other extension may nest elements of the same names.
        let ownChild = stack.count >= 2 && (stack[stack.count - 2] == "wpt" || stack[stack.count - 2] == "rtept")
        let hibiExtension = stack.count >= 3 && stack[stack.count - 2] == "extensions"
        switch name {
        case "ele" where ownChild:
            let altitude = try number()
            current?.fields.altitude = altitude
        case "time" where ownChild:
            let zoneless = VisitFormats.parseTime(value) == nil ? VisitFormats.zonelessAsUTC(value) : nil
            if zoneless != nil { report.readAsUTC(current?.kind ?? name) }
            guard let date = VisitFormats.parseTime(value) ?? zoneless else {
                throw fail(line, "<time> must be an ISO-8601 time such as 2024-05-01T09:30:00Z",
                           "<time> は 2024-05-01T09:30:00Z のような ISO-8601 の日時にしてください")
            }
            current?.fields.visitedAt = date
            current?.timeSeen = true
        case "name" where ownChild: current?.fields.name = value
        case "desc" where ownChild: current?.fields.notes = value
        case "accuracy" where hibiExtension:
            let accuracy = try number()
            current?.fields.accuracy = accuracy
        case "simulated" where hibiExtension: current?.fields.simulated = value == "true" || value == "1"
        case "label" where hibiExtension: current?.fields.labels.append(value)
        case "group" where hibiExtension: current?.fields.group = value
        case "companion" where hibiExtension: current?.fields.companions.append(value)
        case "address":
            current?.fields.address = address
            address = nil
        case "wpt", "rtept":
            guard var point = current else { return }
            current = nil
            // Planned points often have no name; a visit needs one, so the place's coordinates stand in.
            if point.fields.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                point.fields.name = String(format: "%.5f, %.5f", point.fields.latitude, point.fields.longitude)
            }
            // Validated with a stand-in time when it has none; the real one is set in finish().
            do {
                point.fields = try VisitRules.validate(point.fields)
            } catch {
                throw fail(point.line, "\(point.kind == "wpt" ? "waypoint" : "route point") starting on line \(point.line): \(error.message(.en))",
                           "\(point.line)行目の\(point.kind == "wpt" ? "ウェイポイント" : "ルートポイント"): \(error.message(.ja))")
            }
            pending.append(point)
        default: break
        }
    }
}
