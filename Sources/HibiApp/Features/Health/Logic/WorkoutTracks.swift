import Foundation

/// Workout routes as map tracks: each route simplified to a bounded number of points (Ramer–Douglas–Peucker
/// within a few metres, then evenly thinned if still too many), as GeoJSON LineStrings (RFC 7946:
/// [longitude, latitude]). Pure: the same route always gives the same track.
public enum WorkoutTracks {
    /// Points drawn per route at most: a city-wide map needs far fewer than a watch records (one a second).
    public static let maxPointsPerRoute = 500
    /// Routes per request: the default and the most a client may ask for.
    public static let defaultRoutes = 100
    public static let maxRoutes = 200
    /// Points closer than this to the line through their neighbours add nothing visible on a map.
    public static let toleranceMeters = 5.0

    /// The route reduced to at most `limit` points, first and last kept; points that are not finite or not
    /// on the globe are left out.
    public static func simplify(_ route: [WorkoutRoutePoint], tolerance: Double = toleranceMeters, limit: Int = maxPointsPerRoute) -> [WorkoutRoutePoint] {
        let points = route.filter { WorkoutRoutePoint.valid(lat: $0.lat, lon: $0.lon) }
        guard points.count > 2, limit >= 2 else { return Array(points.prefix(max(limit, 0))) }
        // Local metres (equirectangular about the route's first point): exact enough over a workout's few km.
        let cosine = cos(points[0].lat * .pi / 180)
        let xy = points.map { (x: $0.lon * 111_320 * cosine, y: $0.lat * 110_574) }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        // Iterative, so a route of 200,000 points cannot exhaust the stack.
        var stack: [(Int, Int)] = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first, distance = -1.0
            for i in (first + 1)..<last {
                let d = segmentDistance(xy[i], xy[first], xy[last])
                if d > distance { distance = d; farthest = i }
            }
            if distance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        let kept = points.indices.filter { keep[$0] }.map { points[$0] }
        return thin(kept, limit: limit)
    }

    /// Evenly spaced points, both ends kept.
    static func thin<T>(_ items: [T], limit: Int) -> [T] {
        guard items.count > limit, limit >= 2 else { return items }
        let step = Double(items.count - 1) / Double(limit - 1)
        return (0..<limit).map { items[min(items.count - 1, Int(saturating: (Double($0) * step).rounded()))] }
    }

    static func segmentDistance(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length = dx * dx + dy * dy
        guard length > 0 else { return hypot(p.x - a.x, p.y - a.y) }
        let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length))
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }

    // MARK: GeoJSON

    public struct Collection: Codable, Sendable, Equatable {
        public var type = "FeatureCollection"
        public var features: [Feature]
        /// True when more routes matched than were sent (the newest `limit` are); narrow the range to see the rest.
        public var truncated: Bool
    }

    public struct Feature: Codable, Sendable, Equatable {
        public var type = "Feature"
        public var id: String
        public var geometry: Geometry
        public var properties: Properties
    }

    public struct Geometry: Codable, Sendable, Equatable {
        public var type = "LineString"
        /// [longitude, latitude] pairs.
        public var coordinates: [[Double]]
    }

    public struct Properties: Codable, Sendable, Equatable {
        public var activity: String
        public var start: Date
        public var end: Date
        public var durationMinutes: Double?
        public var distanceKm: Double?
        public var energyKcal: Double?
        /// Points stored for the route, and how many of them are drawn.
        public var points: Int
        public var drawnPoints: Int
    }

    /// One feature per workout with a route of two or more drawable points (a single point is not a line).
    public static func collection(_ routes: [(workout: HealthWorkout, route: [WorkoutRoutePoint])], truncated: Bool) -> Collection {
        var features: [Feature] = []
        for (workout, route) in routes {
            let drawn = simplify(route)
            guard drawn.count >= 2 else { continue }
            features.append(Feature(id: workout.id, geometry: Geometry(coordinates: drawn.map { [$0.lon, $0.lat] }),
                                    properties: Properties(activity: workout.activity, start: workout.start, end: workout.end,
                                                           durationMinutes: finite(workout.durationMinutes), distanceKm: workout.distanceKm.flatMap(finite),
                                                           energyKcal: workout.energyKcal.flatMap(finite), points: route.count, drawnPoints: drawn.count)))
        }
        return Collection(features: features, truncated: truncated)
    }

    /// JSON has no NaN or infinity: an imported number that is not finite is left out rather than failing the answer.
    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}
