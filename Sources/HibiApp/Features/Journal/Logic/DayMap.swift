import Foundation

/// A small map of one day drawn without tiles: the visits in order joined by a dashed line, and each
/// workout's route as a track. Pure: coordinates in, SVG out. An equirectangular projection scaled by
/// the cosine of the middle latitude is true enough over the few kilometres of a day, and needs no
/// tile server (Hibi sends nothing about where a person was to anyone).
public enum DayMap {
    public struct Place: Sendable, Equatable {
        public let latitude: Double
        public let longitude: Double
        public let name: String

        public init(latitude: Double, longitude: Double, name: String) {
            self.latitude = latitude
            self.longitude = longitude
            self.name = name
        }
    }

    public static let width = 320.0
    public static let height = 200.0
    static let margin = 16.0
    /// Points kept per track: enough for the shape at this size, and a bound on the page's weight.
    static let maxTrackPoints = 400

    /// Positions in the view box for the given coordinates (in order), fitted with a margin and the same
    /// scale on both axes. One place, or several at the same spot, land in the middle.
    static func project(_ coordinates: [(lat: Double, lon: Double)], fitting all: [(lat: Double, lon: Double)]) -> [(x: Double, y: Double)] {
        let finite = all.filter { $0.lat.isFinite && $0.lon.isFinite }
        guard let first = finite.first else { return [] }
        var (south, north, west, east) = (first.lat, first.lat, first.lon, first.lon)
        for point in finite {
            south = min(south, point.lat); north = max(north, point.lat)
            west = min(west, point.lon); east = max(east, point.lon)
        }
        let shrink = cos((south + north) / 2 * .pi / 180)
        let spanX = (east - west) * shrink, spanY = north - south
        let usableX = width - 2 * margin, usableY = height - 2 * margin
        let scale = (spanX > 0 || spanY > 0) ? min(spanX > 0 ? usableX / spanX : .infinity, spanY > 0 ? usableY / spanY : .infinity) : 0
        let centreLon = (west + east) / 2, centreLat = (south + north) / 2
        return coordinates.filter { $0.lat.isFinite && $0.lon.isFinite }.map { point in
            (width / 2 + (point.lon - centreLon) * shrink * scale, height / 2 - (point.lat - centreLat) * scale)
        }
    }

    /// At most `limit` points spread evenly along the track, the first and the last always among them.
    static func thin<T>(_ points: [T], limit: Int) -> [T] {
        guard points.count > limit, limit > 1 else { return points }
        return (0..<limit).map { points[$0 * (points.count - 1) / (limit - 1)] }
    }

    /// The SVG, or nil when there is nothing to draw.
    public static func svg(places: [Place], tracks: [[(lat: Double, lon: Double)]], label: String) -> String? {
        let thinned = tracks.map { thin($0, limit: maxTrackPoints) }.filter { !$0.isEmpty }
        let all = places.map { (lat: $0.latitude, lon: $0.longitude) } + thinned.flatMap { $0 }
        guard !all.isEmpty else { return nil }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(f(width)) \#(f(height))" class="day-map" role="img" aria-label="\#(escapeHTML(label))">"#
        svg += #"<rect width="100%" height="100%" rx="8" class="day-map-ground"/>"#
        for track in thinned {
            let points = project(track, fitting: all).map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
            svg += #"<polyline points="\#(points)" class="day-map-track" fill="none"/>"#
        }
        let spots = project(places.map { (lat: $0.latitude, lon: $0.longitude) }, fitting: all)
        if spots.count > 1 {
            svg += #"<polyline points="\#(spots.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " "))" class="day-map-way" fill="none"/>"#
        }
        for (index, (spot, place)) in zip(spots, places).enumerated() {
            svg += #"<g class="day-map-place"><circle cx="\#(f(spot.x))" cy="\#(f(spot.y))" r="9"/>"#
            svg += #"<text x="\#(f(spot.x))" y="\#(f(spot.y + 4))" text-anchor="middle">\#(index + 1)</text>"#
            svg += "<title>\(index + 1). \(escapeHTML(place.name))</title></g>"
        }
        return svg + "</svg>"
    }
}
