import Foundation

/// A visit reduced to what a summary needs.
public struct VisitMark: Sendable, Equatable {
    public let id: String
    public let at: Date
    public let name: String
    public let latitude: Double
    public let longitude: Double
    public let labels: [String]

    public init(id: String, at: Date, name: String, latitude: Double, longitude: Double, labels: [String] = []) {
        self.id = id
        self.at = at
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.labels = labels
    }

    /// `String(format: "%.3f,%.3f", …)` through C's formatter directly (the same digits): Foundation's formatting was
    /// most of finding new places over ten years of visits.
    static func spot(_ latitude: Double, _ longitude: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> String in
            guard let base = buffer.baseAddress else { return String(format: "%.3f,%.3f", latitude, longitude) }
            let written = withVaList([latitude, longitude]) { vsnprintf(base, 64, "%.3f,%.3f", $0) }
            guard written > 0, written < 64 else { return String(format: "%.3f,%.3f", latitude, longitude) }
            return String(cString: base)
        }
    }

    /// The same place: the same name within about 100 m (three decimals of latitude are 111 m), or, unnamed, the same spot.
    var placeKey: String {
        let spot = Self.spot(latitude, longitude)
        let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? spot : trimmed + "@" + spot
    }

    /// Visits whose place was never visited before (over all of `history`, oldest first or not).
    public static func newPlaceVisits(_ history: [VisitMark]) -> Set<String> {
        var seen: Set<String> = []
        var result: Set<String> = []
        for visit in history.sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) where seen.insert(visit.placeKey).inserted {
            result.insert(visit.id)
        }
        return result
    }

    /// Each day's visits counted, its first visits to a place, its places and labels (each once, in the order visited).
    static func figures(_ visits: [VisitMark], newPlaces: Set<String>, span: DaySpan) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        for visit in visits.sorted(by: { $0.at < $1.at }) {
            span.touch(&days, at: visit.at) { day in
                day.visits += 1
                if newPlaces.contains(visit.id) { day.newPlaces += 1 }
                if !day.places.contains(visit.name) { day.places.append(visit.name) }
                for label in visit.labels where !day.labels.contains(label) { day.labels.append(label) }
            }
        }
        return days
    }
}
