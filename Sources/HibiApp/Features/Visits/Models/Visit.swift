import Foundation

/// A postal address, kept in parts so it can be written the Japanese way (large to small)
/// or the English way (small to large).
public struct VisitAddress: Codable, Sendable, Equatable {
    public var country: String?
    public var postalCode: String?
    public var region: String?
    public var locality: String?
    public var street: String?

    public init(country: String? = nil, postalCode: String? = nil, region: String? = nil, locality: String? = nil, street: String? = nil) {
        self.country = country
        self.postalCode = postalCode
        self.region = region
        self.locality = locality
        self.street = street
    }

    public var isEmpty: Bool { [country, postalCode, region, locality, street].allSatisfy { ($0 ?? "").isEmpty } }
}

/// What a visit says, without bookkeeping: the part that is signed and exported.
public struct VisitFields: Codable, Sendable, Equatable {
    public var visitedAt: Date
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double?
    public var altitude: Double?
    /// The client reported its position as simulated (e.g. a mock location provider).
    public var simulated: Bool
    public var name: String
    public var address: VisitAddress?
    public var labels: [String]
    public var group: String?
    public var companions: [String]
    public var notes: String

    public init(visitedAt: Date, latitude: Double, longitude: Double, accuracy: Double? = nil, altitude: Double? = nil,
                simulated: Bool = false, name: String, address: VisitAddress? = nil, labels: [String] = [], group: String? = nil,
                companions: [String] = [], notes: String = "") {
        self.visitedAt = visitedAt
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.simulated = simulated
        self.name = name
        self.address = address
        self.labels = labels
        self.group = group
        self.companions = companions
        self.notes = notes
    }
}

public struct VisitPhotoRef: Codable, Sendable, Equatable {
    public var id: String
    public var contentType: String
    public var size: Int
    /// SHA-256 of the plaintext photo, so the signed record also vouches for the picture.
    public var sha256: String
}

public struct Visit: Sendable, Equatable {
    public let id: String
    public let userID: String
    public var fields: VisitFields
    public var photos: [VisitPhotoRef]
    public var createdAt: Date
    public var updatedAt: Date
    /// Number of records this visit has in the chain (1 after creation).
    public var revision: Int
}

public enum VisitAction: String, Codable, Sendable {
    case create
    case edit
    case delete
}

/// One link of a user's chain as stored: `body` is the exact signed text.
public struct ChainRecord: Sendable, Equatable {
    public var seq: Int
    public var visitID: String
    public var action: VisitAction
    public var body: String
    public var hash: String
    public var signature: String
    /// Not stored in the record: where the service should send the new head, if anywhere.
    public var webhook: String? = nil
}

public struct ChainHead: Codable, Sendable, Equatable {
    public var seq: Int
    public var hash: String
}

/// The signed content of a record (decoded from `ChainRecord.body`).
public struct ChainBody: Codable, Sendable, Equatable {
    public var seq: Int
    public var prev: String
    public var user: String
    public var visit: String
    public var action: VisitAction
    public var at: Int64
    /// Canonical visit state after this change; nil for a deletion (tombstone).
    public var state: String?
}

public enum ChainProblemReason: String, Codable, Sendable {
    case changed
    case removed
    case reordered
    case badSignature = "bad_signature"
    case visitChanged = "visit_changed"
    /// The log no longer holds the head a webhook acknowledged: records were cut off its end
    /// (and the stored head moved back), which the chain alone cannot show.
    case truncated
}

public struct ChainProblem: Codable, Sendable, Equatable {
    public var seq: Int
    public var visitId: String?
    public var reason: ChainProblemReason
}

public struct ChainReport: Codable, Sendable, Equatable {
    public var intact: Bool
    public var records: Int
    public var head: String?
    public var problem: ChainProblem?
}
