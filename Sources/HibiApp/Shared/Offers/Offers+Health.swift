import Foundation

// What Health offers the other features, declared by the side that needs it. Health's types conform in
// Features/Health/HealthOffers.swift; `Features.init` hands them over.

/// Workouts recorded from a route file. Declared for Visits' location import (a TCX or FIT uploaded alone is an
/// activity: its points join the location history and it becomes a workout); Health's `RouteFileWorkouts` conforms.
public protocol WorkoutRecorder: Sendable {
    /// Records the workout with its route, in Health's types and units, in one transaction. Returns the import's
    /// report of it: the workout (kind "Workout") added, already there (the same file imported before: same
    /// activity, start, end and source), or skipped with the reason (an implausible date or length), and its
    /// route points (kind "Location") added or already there.
    func recordWorkout(_ workout: RecordedWorkout, userID: String) async throws -> ImportReport
}

/// What a route file says of the activity it recorded.
public struct RecordedWorkout: Sendable, Equatable {
    /// The most route points a workout keeps (Health's limit for one workout's route); the reader keeps the first
    /// ones and counts the rest in `routePointsLeftOut`, reported as skipped.
    public static let maxRoutePoints = 200_000

    /// The file's format ("TCX", "FIT"), kept as the workout's device (part of its identity).
    public var source: String
    /// The sport as the file names it (TCX's `Sport` attribute: "Running", "Biking", "Other"; FIT's sport: "running",
    /// "cycling", …), nil when it names none.
    public var sport: String?
    /// The first and last time the file recorded (Unix seconds).
    public var start: Int64
    public var end: Int64
    /// The distance the file gives (TCX laps, FIT session), or the route's length.
    public var distanceMeters: Double?
    public var energyKcal: Double?
    /// Every heart rate (beats per minute) and altitude (metres) the file recorded, in order.
    public var heartRates: [Double]
    public var altitudes: [Double]
    /// The positions, as the workout's route (at most `maxRoutePoints`), and how many more the file had.
    public var route: [TrackFile.Point]
    public var routePointsLeftOut: Int

    public init(source: String, sport: String?, start: Int64, end: Int64, distanceMeters: Double?, energyKcal: Double?,
                heartRates: [Double], altitudes: [Double], route: [TrackFile.Point], routePointsLeftOut: Int = 0) {
        (self.source, self.sport, self.start, self.end) = (source, sport, start, end)
        (self.distanceMeters, self.energyKcal, self.heartRates, self.altitudes) = (distanceMeters, energyKcal, heartRates, altitudes)
        (self.route, self.routePointsLeftOut) = (route, routePointsLeftOut)
    }
}
