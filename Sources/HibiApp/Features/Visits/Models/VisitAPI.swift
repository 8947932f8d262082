import Foundation

public struct VisitRequest: Codable, Sendable {
    public var visitedAt: Date?
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?
    public var altitude: Double?
    public var simulated: Bool?
    public var name: String
    public var address: VisitAddress?
    public var labels: [String]?
    public var group: String?
    public var companions: [String]?
    public var notes: String?

    func fields(now: Date) -> VisitFields {
        VisitFields(visitedAt: visitedAt ?? now, latitude: latitude, longitude: longitude, accuracy: accuracy, altitude: altitude,
                    simulated: simulated ?? false, name: name, address: address, labels: labels ?? [], group: group,
                    companions: companions ?? [], notes: notes ?? "")
    }
}

public struct VisitResponse: Codable, Sendable, Equatable {
    public var id: String
    public var visitedAt: Date
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?
    public var altitude: Double?
    public var simulated: Bool
    public var name: String
    public var address: VisitAddress?
    public var addressText: String
    public var labels: [String]
    public var group: String?
    public var companions: [String]
    public var notes: String
    public var photos: [VisitPhotoRef]
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date

    init(_ visit: Visit, language: Language) {
        let f = visit.fields
        id = visit.id
        visitedAt = f.visitedAt
        latitude = f.latitude
        longitude = f.longitude
        accuracy = f.accuracy
        altitude = f.altitude
        simulated = f.simulated
        name = f.name
        address = f.address
        addressText = Geo.formatAddress(f.address, language: language)
        labels = f.labels
        group = f.group
        companions = f.companions
        notes = f.notes
        photos = visit.photos
        revision = visit.revision
        createdAt = visit.createdAt
        updatedAt = visit.updatedAt
    }
}

public struct HistoryEntry: Codable, Sendable, Equatable {
    public var seq: Int
    public var action: VisitAction
    public var at: Date
    public var name: String?
    public var latitude: Double?
    public var longitude: Double?
}

public struct VerifyResponse: Codable, Sendable, Equatable {
    public var intact: Bool
    public var records: Int
    public var head: String?
    public var problem: ChainProblem?
    public var message: String
}

public struct ImportResponse: Codable, Sendable, Equatable {
    public var imported: Int
    /// Per kind of element: added, duplicates skipped, skipped with a reason.
    public var report: ImportReport?
    /// The report in the reader's language, one line per kind (what the web page shows).
    public var summary: [String]?
    /// GPX track points stored in the location history (not visits), and stays found in them to confirm.
    public var trackPointsStored: Int?
    public var staysDetected: Int?
    /// What the file was read as: "hibi-geojson", "gpslogger" (a position log, into the location history), "gpx", "hibi-csv",
    /// "google-saved-places" (places without a visit time, kept as saved places).
    public var dialect: String?
    /// Saved places newly stored (Google Maps' Saved Places), not visits.
    public var savedPlaces: Int?
}

public struct WebhookRequest: Codable, Sendable {
    public var url: String?
}
