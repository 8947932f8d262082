import Foundation

/// Google Takeout's Maps (your places) "Saved Places.json", in both shapes Google has written: the older
/// one (`Title`, `Google Maps URL`, `Location` {`Address`, `Business Name`, `Geo Coordinates`}, `Published`)
/// and the newer one (`date`, `google_maps_url`, `location` {`address`, `name`}, `Comment`). A place Google
/// cannot place is written at `[0, 0]` and is skipped with that reason; a file that is not a
/// FeatureCollection refuses the whole import with where it is wrong.
public enum GoogleSavedPlaces {
    public static let kind = "saved place"
    public static let maxAddressLength = 1000
    public static let maxURLLength = 2000
    /// The comment Google writes on a place it gives no position: not the person's note.
    static let noPositionComment = "No location information is available for this saved place"

    public static func parse(_ data: Data) throws(VisitError) -> (places: [SavedPlaceFields], report: ImportReport) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw VisitFormats.invalid("JSON", "not valid JSON", "正しい JSON ではありません")
        }
        guard let object = root as? [String: Any], object["type"] as? String == "FeatureCollection" else {
            throw VisitFormats.invalid("$", "expected a GeoJSON FeatureCollection", "GeoJSON の FeatureCollection が必要です")
        }
        guard let features = object["features"] as? [Any] else {
            throw VisitFormats.invalid("$.features", "expected an array of features", "features の配列が必要です")
        }
        guard features.count <= VisitFormats.maxItems else {
            throw VisitFormats.invalid("$.features", "more than \(VisitFormats.maxItems) features", "地物が\(VisitFormats.maxItems)件を超えています")
        }
        var report = ImportReport()
        var places: [SavedPlaceFields] = []
        var seen = Set<String>()
        for (index, raw) in features.enumerated() {
            let at = "features[\(index)]"
            switch place(raw) {
            case let .place(fields):
                guard seen.insert(dedupeKey(fields)).inserted else {
                    report.duplicate(kind)
                    continue
                }
                places.append(fields)
                report.add(kind)
            case let .skip(reason):
                report.skip(kind, reason, at: at)
            }
        }
        return (places, report)
    }

    enum Read: Equatable {
        case place(SavedPlaceFields)
        case skip(ImportSkipReason)
    }

    static func place(_ raw: Any) -> Read {
        guard let feature = raw as? [String: Any], let geometry = feature["geometry"] as? [String: Any],
              geometry["type"] as? String == "Point", let coordinates = geometry["coordinates"] as? [Any], coordinates.count >= 2,
              let longitude = JSONNumber.read(coordinates[0]), let latitude = JSONNumber.read(coordinates[1]) else {
            return .skip(.missingValue)
        }
        if latitude == 0, longitude == 0 { return .skip(.noPosition) }
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return .skip(.outOfRange)
        }
        let properties = feature["properties"] as? [String: Any] ?? [:]
        let location = (properties["location"] ?? properties["Location"]) as? [String: Any] ?? [:]
        func text(_ value: Any?) -> String {
            // PostgreSQL cannot store U+0000 in text, and no name or address means one.
            ((value as? String) ?? "").replacingOccurrences(of: "\u{0}", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let address = text(location["address"] ?? location["Address"])
        var name = text(location["name"] ?? location["Business Name"])
        if name.isEmpty { name = text(properties["Title"] ?? properties["title"] ?? properties["name"]) }
        // A place without a name keeps its address, or its position, as the name a person reads.
        if name.isEmpty { name = address }
        if name.isEmpty { name = String(format: "%.5f, %.5f", latitude, longitude) }
        let url = text(properties["google_maps_url"] ?? properties["Google Maps URL"])
        var note = text(properties["Comment"] ?? properties["Note"] ?? properties["note"])
        if note == noPositionComment { note = "" }
        guard name.count <= VisitRules.maxNameLength, address.count <= maxAddressLength, url.count <= maxURLLength,
              note.count <= VisitRules.maxNotesLength else { return .skip(.tooLong) }
        let when = text(properties["date"] ?? properties["Published"])
        return .place(SavedPlaceFields(name: name, address: address, latitude: VisitRules.roundCoordinate(latitude),
                                         longitude: VisitRules.roundCoordinate(longitude), googleMapsURL: url.isEmpty ? nil : url, note: note,
                                         savedAt: when.isEmpty ? nil : VisitFormats.parseTime(when)))
    }

    /// What makes two saved places the same for one person: Google's address for the place, else its name
    /// and its position to about a metre.
    public static func dedupeKey(_ place: SavedPlaceFields) -> String {
        if let url = place.googleMapsURL, !url.isEmpty { return "url:" + url }
        return "at:" + String(format: "%.5f,%.5f,", place.latitude, place.longitude) + place.name.lowercased()
    }

    /// The places as GeoJSON in Google's newer shape (the takeout's `visits/saved-places.geojson`), which
    /// `parse` reads back: other programs that read Saved Places.json read it too.
    public static func geoJSON(_ places: [SavedPlace]) -> Data {
        let features: [[String: Any]] = places.map { place in
            let f = place.fields
            var properties: [String: Any] = ["location": ["name": f.name, "address": f.address]]
            if let url = f.googleMapsURL { properties["google_maps_url"] = url }
            if let savedAt = f.savedAt { properties["date"] = VisitFormats.iso(savedAt) }
            if !f.note.isEmpty { properties["Comment"] = f.note }
            return ["type": "Feature", "geometry": ["type": "Point", "coordinates": [f.longitude, f.latitude]], "properties": properties]
        }
        let root: [String: Any] = ["type": "FeatureCollection", "features": features]
        return (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])) ?? Data()
    }
}
