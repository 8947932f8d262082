import Foundation
import SQLKit

// What Visits offers the other features, declared by the side that needs it. Visits' types conform in
// Features/Visits/VisitsOffers.swift; `Features.init` hands them over.

/// A place someone was, recorded as a visit in Visits' signed log. Declared for the diary's imports (a Day One
/// entry's place becomes a visit); `VisitService` conforms. Returns the new visit's id; throws a
/// `UserFacingError` for a place the log refuses.
public protocol PlaceRecorder: Sendable {
    func recordPlace(_ place: RecordedPlace, userID: String, now: Date) async throws -> String
    /// The page of a place it recorded (the entry links to it).
    func placePath(visitID: String) -> String
}

/// What a diary entry knows of a place.
public struct RecordedPlace: Sendable, Equatable {
    public var visitedAt: Date
    public var latitude: Double
    public var longitude: Double
    public var name: String
    public var country: String?
    public var region: String?
    public var locality: String?
    public var street: String?
    public var labels: [String]

    public init(visitedAt: Date, latitude: Double, longitude: Double, name: String, country: String?, region: String?, locality: String?,
                street: String?, labels: [String]) {
        self.visitedAt = visitedAt
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.country = country
        self.region = region
        self.locality = locality
        self.street = street
        self.labels = labels
    }
}

/// The location history, as a workout's route joins it. Declared for Health's Apple Health import; Visits'
/// `LocationService` conforms. Points are (Unix seconds, latitude, longitude).
public protocol LocationHistory: Sendable {
    /// Stores a workout's route points (those already there are skipped) in the import's transaction; returns how many were added.
    func storeWorkoutPoints(_ points: [(time: Int64, latitude: Double, longitude: Double)], workoutID: String, userID: String,
                            on sql: any SQLDatabase) async throws -> Int
    /// Looks for stays around the workouts' time spans; returns how many were offered.
    func detectAroundWorkouts(userID: String, spans: [ClosedRange<Int64>], now: Date) async throws -> Int
    /// Reads a route file with the readers of the location import (declared for Health's Strava import: an
    /// activity's `.tcx` or `.fit`). Throws `TrackFileTooLarge` past `maxPoints` positions, any other error
    /// for a file it cannot read.
    func readTrack(_ stream: any ByteStream, format: TrackFileFormat, maxPoints: Int) throws -> TrackFile
}

public enum TrackFileFormat: Sendable { case tcx, fit }

/// What a route file holds: its positions (with the altitude at that time, if any), and every time, altitude
/// and heart rate it recorded (also those of records without a position), with what was skipped and why.
public struct TrackFile: Sendable {
    public struct Point: Sendable, Equatable {
        public var time: Int64
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?

        public init(time: Int64, latitude: Double, longitude: Double, altitude: Double?) {
            (self.time, self.latitude, self.longitude, self.altitude) = (time, latitude, longitude, altitude)
        }
    }
    public var points: [Point] = []
    public var times: [Int64] = []
    public var altitudes: [Double] = []
    public var heartRates: [Double] = []
    public var skipped = ImportReport()

    public init() {}
}

/// A route file with more positions than the caller takes.
public struct TrackFileTooLarge: Error {}
