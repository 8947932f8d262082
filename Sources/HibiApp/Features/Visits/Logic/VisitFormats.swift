import Foundation

/// GeoJSON and GPX, both ways. Parsing reads the whole file before anything is stored, and the
/// first problem is reported with where it is (a JSON path, or a line and column for GPX).
public enum VisitFormats {
    public static let maxItems = 100_000

    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func parseTime(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        return try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

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

    /// A JSON number, not a boolean (which Foundation may also hand over as a number).
    static func jsonNumber(_ value: Any) -> Double? {
        if value is Bool, !(value is NSNumber && String(describing: type(of: value)).contains("Number")) { return nil }
        if let number = value as? NSNumber {
            let objCType = String(cString: number.objCType)
            return objCType == "c" || objCType == "B" ? nil : number.doubleValue
        }
        if let double = value as? Double { return double }
        if let int = value as? Int { return Double(int) }
        return nil
    }

    static func invalid(_ position: String, _ en: String, _ ja: String) -> VisitError {
        .importInvalid(position: position, reason: Text(en: en, ja: ja))
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
            let numbers = coordinates.compactMap(jsonNumber)
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
                guard let number = jsonNumber(value) else {
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
    public static func parseGPX(_ data: Data) throws(VisitError) -> [VisitFields] {
        let reader = XMLStreamReader(stream: MemoryByteStream(Array(data)), limits: XMLLimits(), reportsText: true)
        var gpx = GPXReader()
        do {
            while let event = try reader.nextEvent() {
                try gpx.handle(event, line: reader.line)
            }
        } catch let error as XMLStreamError {
            throw invalid("line \(error.line)", "not well-formed XML (\(error.text.en))", "XML の形式が正しくありません(\(error.text.ja))")
        } catch let error as VisitError {
            throw error
        } catch {
            throw invalid("line \(reader.line)", "the file cannot be read", "ファイルを読み込めません")
        }
        guard gpx.sawRoot else { throw invalid("line 1", "expected a <gpx> document", "<gpx> 文書が必要です") }
        return gpx.visits
    }
}

/// GPX waypoints from the reader's events; stops at the first problem with its line.
struct GPXReader {
    var visits: [VisitFields] = []
    var sawRoot = false
    private var current: VisitFields?
    private var currentLine = 0
    private var address: VisitAddress?
    private var text = ""
    private var timeSeen = false

    static func local(_ name: String) -> String { name.split(separator: ":").last.map(String.init) ?? name }

    func fail(_ line: Int, _ en: String, _ ja: String) -> VisitError {
        VisitFormats.invalid("line \(line)", en, ja)
    }

    mutating func handle(_ event: XMLEvent, line: Int) throws(VisitError) {
        switch event {
        case let .start(name, attributes): try start(Self.local(name), attributes: attributes, line: line)
        case let .end(name): try end(Self.local(name), line: line)
        case let .text(run): text += run
        }
    }

    private mutating func start(_ name: String, attributes: [XMLAttribute], line: Int) throws(VisitError) {
        text = ""
        if !sawRoot {
            guard name == "gpx" else { throw fail(line, "expected a <gpx> document", "<gpx> 文書が必要です") }
            sawRoot = true
            return
        }
        switch name {
        case "wpt":
            guard visits.count < VisitFormats.maxItems else { throw fail(line, "too many waypoints", "ウェイポイントが多すぎます") }
            func number(_ key: String) -> Double? { attributes.first { $0.name == key }.flatMap { Double($0.value) } }
            guard let lat = number("lat"), let lon = number("lon") else {
                throw fail(line, "a <wpt> needs numeric lat and lon attributes", "<wpt> には数値の lat と lon 属性が必要です")
            }
            current = VisitFields(visitedAt: Date(timeIntervalSince1970: 0), latitude: lat, longitude: lon, name: "")
            currentLine = line
            timeSeen = false
        case "address" where current != nil:
            address = VisitAddress()
        default:
            break
        }
    }

    private mutating func end(_ name: String, line: Int) throws(VisitError) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        guard current != nil else { return }
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
        switch name {
        case "ele":
            let altitude = try number()
            current?.altitude = altitude
        case "time":
            guard let date = VisitFormats.parseTime(value) else {
                throw fail(line, "<time> must be an ISO-8601 time such as 2024-05-01T09:30:00Z",
                           "<time> は 2024-05-01T09:30:00Z のような ISO-8601 の日時にしてください")
            }
            current?.visitedAt = date
            timeSeen = true
        case "name": current?.name = value
        case "desc": current?.notes = value
        case "accuracy":
            let accuracy = try number()
            current?.accuracy = accuracy
        case "simulated": current?.simulated = value == "true" || value == "1"
        case "label": current?.labels.append(value)
        case "group": current?.group = value
        case "companion": current?.companions.append(value)
        case "address":
            current?.address = address
            address = nil
        case "wpt":
            guard let fields = current else { return }
            current = nil
            guard timeSeen else {
                throw fail(currentLine, "the waypoint starting on line \(currentLine) has no <time>", "\(currentLine)行目のウェイポイントに <time> がありません")
            }
            do {
                visits.append(try VisitRules.validate(fields))
            } catch {
                throw fail(currentLine, "waypoint starting on line \(currentLine): \(error.message(.en))",
                           "\(currentLine)行目のウェイポイント: \(error.message(.ja))")
            }
        default: break
        }
    }
}
