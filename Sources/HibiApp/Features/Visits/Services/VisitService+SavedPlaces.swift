import Foundation
import SQLKit

/// Saved places: stored apart from the signed log (they say nothing about where a person was), and turned
/// into a visit through `create`, so the visit is signed and chained like any other.
extension VisitService {
    /// Adds the places not there yet (the same Google address, or the same name at the same spot); the
    /// report's "added" becomes "already there" for each one found.
    public func importSavedPlaces(userID: String, places: [SavedPlaceFields], report: ImportReport, now: Date) async throws -> ImportReport {
        var report = report
        let added = try await database.transaction { sql in
            var added = 0
            for fields in places {
                let place = SavedPlace(id: UUID().uuidString.lowercased(), userID: userID, fields: fields, createdAt: now)
                if try await SavedPlaceStore.insert(place, on: sql) { added += 1 }
            }
            return added
        }
        let alreadyThere = places.count - added
        if alreadyThere > 0, let index = report.kinds.firstIndex(where: { $0.kind == GoogleSavedPlaces.kind }) {
            report.kinds[index].added -= alreadyThere
            report.kinds[index].duplicates += alreadyThere
        }
        return report
    }

    public func savedPlaces(userID: String, page: PageRequest) async throws -> (places: [SavedPlace], total: Int) {
        let sql = database.sql
        return (try await SavedPlaceStore.list(userID: userID, offset: page.offset, limit: page.perPage, on: sql),
                try await SavedPlaceStore.count(userID: userID, on: sql))
    }

    /// Every saved place of a person, for the takeout.
    public func allSavedPlaces(userID: String) async throws -> [SavedPlace] {
        try await SavedPlaceStore.list(userID: userID, offset: 0, limit: Int(Int32.max), on: database.sql)
    }

    public func savedPlace(userID: String, id: String) async throws -> SavedPlace {
        guard let place = try await SavedPlaceStore.find(id: id, userID: userID, on: database.sql) else { throw VisitError.savedPlaceNotFound }
        return place
    }

    public func deleteSavedPlace(userID: String, id: String) async throws {
        guard try await SavedPlaceStore.delete(id: id, userID: userID, on: database.sql) else { throw VisitError.savedPlaceNotFound }
    }

    /// "I was here": a visit at `at` with the place's name, address and position, signed into the log.
    /// The saved place stays, for the next visit.
    public func logVisit(userID: String, savedPlaceID: String, at: Date, notes: String?, now: Date) async throws -> Visit {
        let place = try await savedPlace(userID: userID, id: savedPlaceID)
        return try await create(userID: userID, fields: Self.visitFields(place.fields, at: at, notes: notes), now: now)
    }

    static func visitFields(_ place: SavedPlaceFields, at: Date, notes: String?) -> VisitFields {
        // A visit keeps an address in parts of at most 200 characters; a longer one (Google's are one line) goes to the notes.
        let fits = !place.address.isEmpty && place.address.count <= VisitRules.maxAddressPartLength
        var lines = [notes ?? ""]
        if !place.address.isEmpty, !fits { lines.append(place.address) }
        return VisitFields(visitedAt: at, latitude: place.latitude, longitude: place.longitude, name: place.name,
                           address: fits ? VisitAddress(street: place.address) : nil,
                           notes: lines.filter { !$0.isEmpty }.joined(separator: "\n"))
    }
}
