import Foundation
import SQLKit

// The Visits tables' rows as they are stored (`TableRow`), each mapped to the model the feature works with in one
// place. Times stay the stored Unix seconds; a visit's labels, companions, address and photo list stay the JSON text
// the table holds (read with `VisitStore`'s decoders, which verify needs fast), so a row read and written back is
// byte for byte what it was, and what the chain signed is untouched.

/// A row of `visits`. A deleted visit stays as a tombstone (`deleted_at` set) so the table and the chain keep agreeing.
/// Verify decodes every row: SQLKit's decoder reads an optional as a NULL test and then the plain type (not sqlite-kit's
/// several times slower `T?` path), and its per-column lookups cost verify of 20,000 records 3.02 s against 2.77 s for the
/// hand-written column-by-column decoder it replaced (debug build, five alternating runs each on one database), which
/// no one waiting for a check of their log notices.
struct VisitRow: TableRow {
    static let table = "visits"
    var id: String
    var userID: String
    var visitedAt: Int64
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var altitude: Double?
    var simulated: Bool
    var name: String
    /// `VisitAddress` as JSON text.
    var address: String?
    /// `[String]` as JSON text.
    var labels: String
    var groupName: String?
    /// `[String]` as JSON text.
    var companions: String
    var notes: String
    /// `[VisitPhotoRef]` as JSON text.
    var photos: String
    var revision: Int64
    var createdAt: Int64
    var updatedAt: Int64
    var deletedAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", visitedAt = "visited_at", latitude, longitude, accuracy, altitude, simulated, name, address, labels,
             groupName = "group_name", companions, notes, photos, revision, createdAt = "created_at", updatedAt = "updated_at",
             deletedAt = "deleted_at"
    }
}

extension VisitRow {
    /// A live visit's row (`deleted_at` is only ever set by the delete, on the row itself).
    init(_ visit: Visit) {
        let f = visit.fields
        self.init(id: visit.id, userID: visit.userID, visitedAt: Int64(saturating: f.visitedAt.timeIntervalSince1970), latitude: f.latitude,
                  longitude: f.longitude, accuracy: f.accuracy, altitude: f.altitude, simulated: f.simulated, name: f.name,
                  address: f.address.map(VisitStore.encodeJSON), labels: VisitStore.encodeJSON(f.labels), groupName: f.group,
                  companions: VisitStore.encodeJSON(f.companions), notes: f.notes, photos: VisitStore.encodeJSON(visit.photos),
                  revision: Int64(visit.revision), createdAt: Int64(saturating: visit.createdAt.timeIntervalSince1970),
                  updatedAt: Int64(saturating: visit.updatedAt.timeIntervalSince1970), deletedAt: nil)
    }

    var deleted: Bool { deletedAt != nil }

    var fields: VisitFields {
        get throws {
            VisitFields(visitedAt: UnixTime(seconds: visitedAt).date, latitude: latitude, longitude: longitude, accuracy: accuracy,
                        altitude: altitude, simulated: simulated, name: name,
                        address: try address.map { try VisitStore.decodeJSON(VisitAddress.self, $0) }, labels: try VisitStore.decodeStrings(labels),
                        group: groupName, companions: try VisitStore.decodeStrings(companions), notes: notes)
        }
    }

    var visit: Visit {
        get throws {
            Visit(id: id, userID: userID, fields: try fields, photos: try VisitStore.decodePhotos(photos), createdAt: UnixTime(seconds: createdAt).date,
                  updatedAt: UnixTime(seconds: updatedAt).date, revision: Int(revision))
        }
    }

    /// The five columns a map marker needs, which are also what a detected stay looks for nearby: the map reads them for
    /// every visit at once, and the whole row would bring each visit's notes, labels and photo list along.
    struct Marker: Decodable, Sendable {
        static let keys: [VisitRow.CodingKeys] = [.id, .latitude, .longitude, .name, .visitedAt]
        static var columns: [SQLIdentifier] { keys.map { SQLIdentifier($0.stringValue) } }
        /// The columns as a raw SELECT list names them.
        static var columnList: String { keys.map(\.stringValue).joined(separator: ", ") }

        var id: String
        var latitude: Double
        var longitude: Double
        var name: String
        var visitedAt: Int64

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: VisitRow.CodingKeys.self)
            id = try row.decode(String.self, forKey: .id)
            latitude = try row.decode(Double.self, forKey: .latitude)
            longitude = try row.decode(Double.self, forKey: .longitude)
            name = try row.decode(String.self, forKey: .name)
            visitedAt = try row.decode(Int64.self, forKey: .visitedAt)
        }

        var mapPoint: MapPoint { MapPoint(id: id, lat: latitude, lon: longitude, name: name, at: UnixTime(seconds: visitedAt).date) }
        var place: StayOffer.Place { StayOffer.Place(id: id, name: name, latitude: latitude, longitude: longitude, time: visitedAt) }
    }
}

/// A row of `visit_photos`: a visit's photo, sealed under its owner's context.
struct VisitPhotoRow: TableRow {
    static let table = "visit_photos"
    var id: String
    var visitID: String
    var userID: String
    var contentType: String
    var data: Data
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, visitID = "visit_id", userID = "user_id", contentType = "content_type", data, createdAt = "created_at"
    }
}

/// A row of `visit_chain`: one signed record of a person's visit log.
struct VisitChainRow: TableRow {
    static let table = "visit_chain"
    var userID: String
    var seq: Int64
    var visitID: String
    var action: String
    var body: String
    var hash: String
    var signature: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", seq, visitID = "visit_id", action, body, hash, signature
    }
}

extension VisitChainRow {
    init(_ record: ChainRecord, userID: String) {
        self.init(userID: userID, seq: Int64(record.seq), visitID: record.visitID, action: record.action.rawValue, body: record.body,
                  hash: record.hash, signature: record.signature)
    }

    var record: ChainRecord {
        ChainRecord(seq: Int(seq), visitID: visitID, action: VisitAction(rawValue: action) ?? .edit, body: body, hash: hash, signature: signature)
    }
}

/// A row of `visit_chain_heads`: a person's newest record (seq 0 before the first), where its head is sent, and the
/// head the receiver last acknowledged.
struct VisitChainHeadRow: TableRow {
    static let table = "visit_chain_heads"
    var userID: String
    var seq: Int64
    var hash: String
    var webhookURL: String?
    var webhookStatus: String?
    var webhookAt: Int64?
    var webhookSeq: Int64?
    var webhookHash: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", seq, hash, webhookURL = "webhook_url", webhookStatus = "webhook_status", webhookAt = "webhook_at",
             webhookSeq = "webhook_seq", webhookHash = "webhook_hash"
    }
}

extension VisitChainHeadRow {
    /// The stored head, nil before the first record.
    var head: ChainHead? { seq == 0 ? nil : ChainHead(seq: Int(seq), hash: hash) }

    var acknowledged: ChainHead? {
        guard let webhookSeq, let webhookHash else { return nil }
        return ChainHead(seq: Int(webhookSeq), hash: webhookHash)
    }

    var webhook: WebhookSettings {
        WebhookSettings(url: webhookURL, lastStatus: webhookStatus, lastSentAt: webhookAt.map { UnixTime(seconds: $0).date })
    }
}

/// A row of `location_points`: one point of a person's location history; person, second and position are its identity.
struct LocationPointRow: TableRow {
    static let table = "location_points"
    var userID: String
    var recordedAt: Int64
    var latitude: Double
    var longitude: Double
    var accuracy: Double?
    var source: String
    var importID: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", recordedAt = "recorded_at", latitude, longitude, accuracy, source, importID = "import_id"
    }

    static let identity: [CodingKeys] = [.userID, .recordedAt, .latitude, .longitude]

    /// The three columns the stay detection and the takeout read back, a page of many thousand points at a time.
    struct Position: Decodable, Sendable {
        var point: LocationPoint

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: LocationPointRow.CodingKeys.self)
            point = LocationPoint(time: try row.decode(Int64.self, forKey: .recordedAt), latitude: try row.decode(Double.self, forKey: .latitude),
                                  longitude: try row.decode(Double.self, forKey: .longitude))
        }
    }
}

/// A row of `location_stays`: a stay found in the points, offered, merged with a visit, confirmed or dismissed.
struct LocationStayRow: TableRow {
    static let table = "location_stays"
    var id: String
    var userID: String
    var arrival: Int64
    var departure: Int64
    var latitude: Double
    var longitude: Double
    var pointCount: Int64
    var name: String
    var status: String
    var visitID: String?
    var source: String
    var createdAt: Int64
    var decidedAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", arrival, departure, latitude, longitude, pointCount = "point_count", name, status, visitID = "visit_id",
             source, createdAt = "created_at", decidedAt = "decided_at"
    }
}

extension LocationStayRow {
    /// A stay as stored when it is found: a merged one is decided then and there.
    init(_ stay: DetectedStay, userID: String, now: Date) {
        let created = Int64(saturating: now.timeIntervalSince1970)
        self.init(id: stay.id, userID: userID, arrival: Int64(saturating: stay.arrival.timeIntervalSince1970),
                  departure: Int64(saturating: stay.departure.timeIntervalSince1970), latitude: stay.latitude, longitude: stay.longitude,
                  pointCount: Int64(stay.pointCount), name: stay.name, status: stay.status.rawValue, visitID: stay.visitId, source: stay.source,
                  createdAt: created, decidedAt: stay.status == .merged ? created : nil)
    }

    var stay: DetectedStay {
        DetectedStay(id: id, arrival: UnixTime(seconds: arrival).date, departure: UnixTime(seconds: departure).date, latitude: latitude,
                     longitude: longitude, pointCount: Int(pointCount), name: name, status: StayStatus(rawValue: status) ?? .open, visitId: visitID,
                     source: source)
    }
}

/// A row of `location_settings`: a person's stay settings and where the live feed's undecided window starts.
struct LocationSettingsRow: TableRow {
    static let table = "location_settings"
    var userID: String
    var distanceM: Double
    var durationMin: Int64
    var liveSince: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", distanceM = "distance_m", durationMin = "duration_min", liveSince = "live_since"
    }

    var settings: StaySettings { StaySettings(distanceMeters: distanceM, durationMinutes: Int(durationMin)) }
}

/// A row of `saved_places`: a place without a visit time; `dedupe_key` makes a second import of the same file add nothing.
struct SavedPlaceRow: TableRow {
    static let table = "saved_places"
    var id: String
    var userID: String
    var name: String
    var address: String
    var latitude: Double
    var longitude: Double
    var googleMapsURL: String?
    var note: String
    var savedAt: Int64?
    var createdAt: Int64
    var dedupeKey: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", name, address, latitude, longitude, googleMapsURL = "google_maps_url", note, savedAt = "saved_at",
             createdAt = "created_at", dedupeKey = "dedupe_key"
    }
}

extension SavedPlaceRow {
    init(_ place: SavedPlace) {
        let f = place.fields
        self.init(id: place.id, userID: place.userID, name: f.name, address: f.address, latitude: f.latitude, longitude: f.longitude,
                  googleMapsURL: f.googleMapsURL, note: f.note, savedAt: f.savedAt.map { UnixTime($0).seconds }, createdAt: UnixTime(place.createdAt).seconds,
                  dedupeKey: GoogleSavedPlaces.dedupeKey(f))
    }

    var place: SavedPlace {
        SavedPlace(id: id, userID: userID,
                   fields: SavedPlaceFields(name: name, address: address, latitude: latitude, longitude: longitude, googleMapsURL: googleMapsURL,
                                            note: note, savedAt: savedAt.map { UnixTime(seconds: $0).date }),
                   createdAt: UnixTime(seconds: createdAt).date)
    }
}
