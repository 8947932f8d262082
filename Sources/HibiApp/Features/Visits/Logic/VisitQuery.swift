import Foundation

public struct VisitFilter: Sendable, Equatable {
    public var from: Date?
    /// Exclusive end.
    public var to: Date?
    public var label: String?
    public var group: String?
    public var near: (latitude: Double, longitude: Double)?
    public var radiusMetres: Double?

    public init(from: Date? = nil, to: Date? = nil, label: String? = nil, group: String? = nil,
                near: (latitude: Double, longitude: Double)? = nil, radiusMetres: Double? = nil) {
        self.from = from
        self.to = to
        self.label = label
        self.group = group
        self.near = near
        self.radiusMetres = radiusMetres
    }

    public static func == (a: VisitFilter, b: VisitFilter) -> Bool {
        a.from == b.from && a.to == b.to && a.label == b.label && a.group == b.group && a.radiusMetres == b.radiusMetres
            && a.near?.latitude == b.near?.latitude && a.near?.longitude == b.near?.longitude
    }
}

public enum VisitQuery {
    /// Reads a filter from query parameters. Dates are days in the user's time zone ("2024-05-01"),
    /// `to` inclusive; or full ISO-8601 times. `near` is "lat,lon" and `radius` kilometres (default 1).
    public static func parse(_ parameters: [String: String], timeZone: TimeZone) throws(VisitError) -> VisitFilter {
        func value(_ name: String) -> String? {
            parameters[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
        }
        var filter = VisitFilter()
        if let from = value("from") {
            guard let date = parseDay(from, timeZone: timeZone, endOfDay: false) else { throw .invalidFilter(field: "from") }
            filter.from = date
        }
        if let to = value("to") {
            guard let date = parseDay(to, timeZone: timeZone, endOfDay: true) else { throw .invalidFilter(field: "to") }
            filter.to = date
        }
        filter.label = value("label")
        filter.group = value("group")
        if let near = value("near") {
            let parts = near.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1] else { throw .invalidFilter(field: "near") }
            filter.near = (try VisitRules.validateLatitude(lat), try VisitRules.validateLongitude(lon))
            let radius = value("radius").map { Double($0) } ?? 1
            guard let radius, radius.isFinite, radius > 0, radius <= 20_100 else { throw .invalidFilter(field: "radius") }
            filter.radiusMetres = radius * 1000
        } else if value("radius") != nil {
            throw .invalidFilter(field: "near")
        }
        return filter
    }

    static func parseDay(_ text: String, timeZone: TimeZone, endOfDay: Bool) -> Date? {
        if text.count > 10 {
            return try? Date(text, strategy: .iso8601)
        }
        let parts = text.split(separator: "-").map { Int($0) }
        guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2], (1...9998).contains(y), (1...12).contains(m),
              (1...31).contains(d) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: y, month: m, day: d)),
              calendar.component(.month, from: start) == m else { return nil }
        return endOfDay ? calendar.date(byAdding: .day, value: 1, to: start) : start
    }

    /// Label, group and distance; the date range was applied by the database.
    public static func apply(_ filter: VisitFilter, to visits: [Visit]) -> [Visit] {
        visits.filter { visit in
            if let from = filter.from, visit.fields.visitedAt < from { return false }
            if let to = filter.to, visit.fields.visitedAt >= to { return false }
            if let label = filter.label, !visit.fields.labels.contains(where: { $0.caseInsensitiveCompare(label) == .orderedSame }) { return false }
            if let group = filter.group, visit.fields.group?.caseInsensitiveCompare(group) != .orderedSame { return false }
            if let near = filter.near {
                let distance = Geo.distance(lat1: near.latitude, lon1: near.longitude, lat2: visit.fields.latitude, lon2: visit.fields.longitude)
                if distance > (filter.radiusMetres ?? 1000) { return false }
            }
            return true
        }
    }
}

/// Most visited places and visits per month.
public struct PlaceStats: Codable, Sendable, Equatable {
    public struct Place: Codable, Sendable, Equatable {
        public var name: String
        public var count: Int
        public var latitude: Double
        public var longitude: Double
    }
    public struct Month: Codable, Sendable, Equatable {
        /// "2024-05" in the user's time zone.
        public var month: String
        public var count: Int
    }
    public var total: Int
    public var topPlaces: [Place]
    public var perMonth: [Month]

    /// Places are grouped by name (case and spacing ignored); the newest visit gives the position shown.
    public static func compute(_ visits: [Visit], timeZone: TimeZone, top: Int = 10) -> PlaceStats {
        var places: [String: (Place, Date)] = [:]
        var months: [String: Int] = [:]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        for visit in visits {
            let key = visit.fields.name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if var (place, latest) = places[key] {
                place.count += 1
                if visit.fields.visitedAt > latest {
                    latest = visit.fields.visitedAt
                    place.latitude = visit.fields.latitude
                    place.longitude = visit.fields.longitude
                }
                places[key] = (place, latest)
            } else {
                places[key] = (Place(name: visit.fields.name, count: 1, latitude: visit.fields.latitude, longitude: visit.fields.longitude),
                               visit.fields.visitedAt)
            }
            let parts = calendar.dateComponents([.year, .month], from: visit.fields.visitedAt)
            months[String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0), default: 0] += 1
        }
        let topPlaces = places.values.map(\.0).sorted { ($0.count, $1.name) > ($1.count, $0.name) }.prefix(top)
        return PlaceStats(total: visits.count, topPlaces: Array(topPlaces),
                          perMonth: months.map { Month(month: $0.key, count: $0.value) }.sorted { $0.month < $1.month })
    }
}

/// One marker on the map: only what the popup needs, to keep 10k visits small.
public struct MapPoint: Codable, Sendable, Equatable {
    public var id: String
    public var lat: Double
    public var lon: Double
    public var name: String
    public var at: Date
}

/// Reads a signed state back into fields (for history pages).
public enum VisitStateDecoder {
    struct State: Decodable {
        var visitedAt: Int64
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var altitude: Double?
        var simulated: Bool
        var name: String
        var address: VisitAddress?
        var labels: [String]
        var group: String?
        var companions: [String]
        var notes: String
    }

    public static func fields(from state: String) throws -> VisitFields {
        let s = try JSONDecoder().decode(State.self, from: Data(state.utf8))
        return VisitFields(visitedAt: Date(timeIntervalSince1970: Double(s.visitedAt)), latitude: s.latitude, longitude: s.longitude,
                           accuracy: s.accuracy, altitude: s.altitude, simulated: s.simulated, name: s.name, address: s.address,
                           labels: s.labels, group: s.group, companions: s.companions, notes: s.notes)
    }
}
