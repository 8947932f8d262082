import Foundation

/// One raw position from a track, a location history file or a phone: where someone was at a
/// moment, not yet a place visited. Times are whole Unix seconds (the column's precision).
public struct LocationPoint: Sendable, Equatable, Codable {
    public var time: Int64
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?

    public init(time: Int64, latitude: Double, longitude: Double, accuracy: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }
}

/// Where stays are cut: within `distance` metres for at least `duration` seconds. Settable per person.
public struct StaySettings: Sendable, Equatable, Codable {
    public var distanceMeters: Double
    public var durationMinutes: Int

    public static let standard = StaySettings(distanceMeters: 100, durationMinutes: 10)
    public static let distanceRange: ClosedRange<Double> = 10...5000
    public static let durationRange: ClosedRange<Int> = 1...1440

    public init(distanceMeters: Double, durationMinutes: Int) {
        self.distanceMeters = distanceMeters
        self.durationMinutes = durationMinutes
    }

    public var durationSeconds: Int64 { Int64(durationMinutes) * 60 }
}

/// A stay found in the points (or read from a Takeout place visit): a place and the time spent there.
public struct StayCandidate: Sendable, Equatable {
    public var arrival: Int64
    public var departure: Int64
    public var latitude: Double
    public var longitude: Double
    public var pointCount: Int
    /// A name the source gave (a Takeout place visit's location name), else nil.
    public var name: String?

    public init(arrival: Int64, departure: Int64, latitude: Double, longitude: Double, pointCount: Int, name: String? = nil) {
        self.arrival = arrival
        self.departure = departure
        self.latitude = latitude
        self.longitude = longitude
        self.pointCount = pointCount
        self.name = name
    }
}

public enum StayStatus: String, Codable, Sendable, CaseIterable {
    /// Offered: waiting for the person to confirm or dismiss it.
    case open
    case confirmed
    case dismissed
    /// An existing visit already covers it: never offered.
    case merged
}

/// A stored stay, as the page and the API show it.
public struct DetectedStay: Sendable, Equatable, Codable {
    public var id: String
    public var arrival: Date
    public var departure: Date
    public var latitude: Double
    public var longitude: Double
    public var pointCount: Int
    public var name: String
    public var status: StayStatus
    public var visitId: String?
    public var source: String
}
