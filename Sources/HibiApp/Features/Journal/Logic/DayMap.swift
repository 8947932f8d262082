import Foundation

/// A small map of one day drawn without tiles: the visits in order joined by a dashed line, and each
/// workout's route as a track. Pure: coordinates in, SVG out. An equirectangular projection scaled by
/// the cosine of the middle latitude is true enough over the few kilometres of a day, and needs no
/// tile server (Hibi sends nothing about where a person was to anyone).
public enum DayMap {
    /// A place on the map (a visit), as features offer it for the day (Shared/Offers).
    public typealias Place = DayPlace

    public static let width = 320.0
    public static let height = 200.0
    static let margin = 16.0
    /// Points kept per track: enough for the shape at this size, and a bound on the page's weight.
    static let maxTrackPoints = DayPlace.maxTrackPoints

    /// The fit of a set of coordinates into the view box, with a margin and the same scale on both
    /// axes; worked out once per map, then used for every track and place. One place, or several at
    /// one spot, land in the middle.
    struct Frame {
        let centreLat: Double, centreLon: Double, shrink: Double, scale: Double

        init?(fitting all: [(lat: Double, lon: Double)]) {
            let finite = all.filter { $0.lat.isFinite && $0.lon.isFinite }
            guard let first = finite.first else { return nil }
            var (south, north, west, east) = (first.lat, first.lat, first.lon, first.lon)
            for point in finite {
                south = min(south, point.lat); north = max(north, point.lat)
                west = min(west, point.lon); east = max(east, point.lon)
            }
            shrink = cos((south + north) / 2 * .pi / 180)
            let spanX = (east - west) * shrink, spanY = north - south
            let scaleX = spanX > 0 ? (width - 2 * margin) / spanX : .infinity
            let scaleY = spanY > 0 ? (height - 2 * margin) / spanY : .infinity
            scale = min(scaleX, scaleY).isFinite ? min(scaleX, scaleY) : 0
            centreLon = (west + east) / 2
            centreLat = (south + north) / 2
        }

        /// Positions in the view box, the coordinates that are not numbers left out.
        func project(_ coordinates: [(lat: Double, lon: Double)]) -> [(x: Double, y: Double)] {
            coordinates.filter { $0.lat.isFinite && $0.lon.isFinite }.map { point in
                (width / 2 + (point.lon - centreLon) * shrink * scale, height / 2 - (point.lat - centreLat) * scale)
            }
        }
    }

    static func project(_ coordinates: [(lat: Double, lon: Double)], fitting all: [(lat: Double, lon: Double)]) -> [(x: Double, y: Double)] {
        Frame(fitting: all)?.project(coordinates) ?? []
    }

    /// At most `limit` points spread evenly along the track, the first and the last always among them.
    static func thin<T>(_ points: [T], limit: Int) -> [T] { DayPlace.thin(points, limit: limit) }

    /// A route is a line only with two distinct positions: a one-point workout route drew an empty box (issue 29).
    static func isLine(_ track: [(lat: Double, lon: Double)]) -> Bool {
        let finite = track.filter { $0.lat.isFinite && $0.lon.isFinite }
        guard let first = finite.first else { return false }
        return finite.contains { $0.lat != first.lat || $0.lon != first.lon }
    }

    /// The SVG, or nil when there is nothing to draw: at least one visit, or a route with two distinct points.
    public static func svg(places: [Place], tracks: [[(lat: Double, lon: Double)]], label: String) -> String? {
        let thinned = tracks.map { thin($0, limit: maxTrackPoints) }.filter(isLine)
        // Numbered in order among the places that can be drawn, so numbers and names stay paired.
        let places = places.filter { $0.latitude.isFinite && $0.longitude.isFinite }
        guard !places.isEmpty || !thinned.isEmpty else { return nil }
        let coordinates = places.map { (lat: $0.latitude, lon: $0.longitude) }
        guard let frame = Frame(fitting: coordinates + thinned.flatMap { $0 }) else { return nil }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(f(width)) \#(f(height))" class="day-map" role="img" aria-label="\#(escapeHTML(label))">"#
        svg += #"<rect width="100%" height="100%" rx="8" class="day-map-ground"/>"#
        for track in thinned {
            let points = frame.project(track).map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
            svg += #"<polyline points="\#(points)" class="day-map-track" fill="none"/>"#
        }
        let spots = frame.project(coordinates)
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
