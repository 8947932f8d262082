import Foundation

/// What a person's takeout carries of their workouts: the workouts with their statistics, each route as
/// GPX, and the electrocardiograms as Apple wrote them.
extension HealthService {
    /// One workout in `health/workouts.json`.
    public struct WorkoutExport: Codable, Sendable, Equatable {
        public var id: String
        public var activity: String
        public var start: Date
        public var end: Date
        public var durationMinutes: Double?
        public var distanceKm: Double?
        public var energyKcal: Double?
        public var device: String
        /// The workout's metadata as imported (indoor, weather, …), as text.
        public var details: String?
        public var routePoints: Int
        /// The route's file in the takeout, when it has one.
        public var routeFile: String?
    }

    /// Every workout of the person, oldest first, a page at a time with each one's route (read per workout,
    /// so memory holds one page of workouts and one route).
    public func forEachWorkout(userID: String, _ body: (HealthWorkout, [WorkoutRoutePoint]) async throws -> Void) async throws {
        var after: (start: Int64, id: String)?
        while true {
            let page = try await workoutStore.page(userID: userID, after: after, limit: 500)
            for workout in page {
                try await body(workout, try await workoutStore.route(workoutID: workout.id, userID: userID))
            }
            guard page.count == 500, let last = page.last else { return }
            after = (Int64(saturating: last.start.timeIntervalSince1970), last.id)
        }
    }
}

extension WorkoutRouteGPX {
    /// A route as GPX 1.1 (one track, one segment), the shape Apple's `workout-routes/*.gpx` have, so
    /// `parse` reads it back point for point.
    public static func write(_ workout: HealthWorkout, points: [WorkoutRoutePoint]) -> Data {
        let time = Date.ISO8601FormatStyle()
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Hibi" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><name>\(escapeHTML(workout.activity))</name><time>\(workout.start.formatted(time))</time></metadata>
              <trk><name>\(escapeHTML(workout.activity)) \(workout.start.formatted(time))</name><type>\(escapeHTML(workout.activity))</type><trkseg>

            """
        for p in points where WorkoutRoutePoint.valid(lat: p.lat, lon: p.lon) {
            text += "    <trkpt lat=\"\(p.lat)\" lon=\"\(p.lon)\">"
            if let ele = p.ele, ele.isFinite { text += "<ele>\(ele)</ele>" }
            text += "<time>\(Date(timeIntervalSince1970: TimeInterval(p.t)).formatted(time))</time></trkpt>\n"
        }
        text += "  </trkseg></trk>\n</gpx>\n"
        return Data(text.utf8)
    }
}
