import Foundation

/// A place a person saved (Google Maps' "Saved Places"): somewhere they meant to go or liked, with no
/// time they were there, so not a visit. It becomes one only when they say when they went.
public struct SavedPlaceFields: Sendable, Equatable {
    public var name: String
    public var address: String
    public var latitude: Double
    public var longitude: Double
    public var googleMapsURL: String?
    public var note: String
    /// When it was saved in the program it came from, if the file says.
    public var savedAt: Date?

    public init(name: String, address: String = "", latitude: Double, longitude: Double, googleMapsURL: String? = nil, note: String = "",
                savedAt: Date? = nil) {
        self.name = name
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
        self.googleMapsURL = googleMapsURL
        self.note = note
        self.savedAt = savedAt
    }
}

public struct SavedPlace: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var fields: SavedPlaceFields
    public var createdAt: Date
}

public struct SavedPlaceResponse: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var address: String
    public var latitude: Double
    public var longitude: Double
    public var googleMapsUrl: String?
    public var note: String
    public var savedAt: Date?
    public var createdAt: Date

    init(_ place: SavedPlace) {
        id = place.id
        name = place.fields.name
        address = place.fields.address
        latitude = place.fields.latitude
        longitude = place.fields.longitude
        googleMapsUrl = place.fields.googleMapsURL
        note = place.fields.note
        savedAt = place.fields.savedAt
        createdAt = place.createdAt
    }
}

public struct SavedPlaceListResponse: Codable, Sendable, Equatable {
    public var places: [SavedPlaceResponse]
    public var total: Int
    public var page: Int
    public var perPage: Int
}

/// "Log a visit here": when (default now) and an optional note for the visit.
public struct SavedPlaceVisitRequest: Codable, Sendable {
    public var visitedAt: Date?
    public var notes: String?
}
