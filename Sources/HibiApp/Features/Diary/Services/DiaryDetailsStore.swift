import Foundation
import SQLKit

/// What an imported entry brought beyond text, tags and photos (where it came from, its time zone,
/// starred, its journal, place and weather), sealed like the text and bound to its owner and entry.
public struct DiaryDetailsStore: Sendable {
    let database: Database
    let box: SealedBoxService

    static func context(userID: String, _ entryID: String) -> String { "diary-details:\(userID):\(entryID)" }

    public func save(_ details: ForeignDetails, userID: String, entryID: String, now: Date) async throws {
        let sealed = try box.seal(try JSONEncoder().encode(details), context: Self.context(userID: userID, entryID))
        try await DiaryEntryDetailsRow.insert([DiaryEntryDetailsRow(entryID: entryID, userID: userID, detailsSealed: sealed,
                                                                    createdAt: UnixTime(now).seconds)], into: database.sql)
            .onConflict(with: ["entry_id"]) { $0.set(excludedValueOf: "details_sealed") }.run()
    }

    public func find(userID: String, entryID: String) async throws -> ForeignDetails? {
        try await find(userID: userID, entryIDs: [entryID])[entryID]
    }

    /// Details of these entries that have any, asked 500 at a time.
    public func find(userID: String, entryIDs: [String]) async throws -> [String: ForeignDetails] {
        var result: [String: ForeignDetails] = [:]
        for start in stride(from: 0, to: entryIDs.count, by: 500) {
            let ids = Array(entryIDs[start..<min(start + 500, entryIDs.count)])
            for row in try await DiaryEntryDetailsRow.select(database.sql)
                .where("user_id", .equal, userID).where("entry_id", .in, ids).all(decoding: DiaryEntryDetailsRow.self) {
                result[row.entryID] = try JSONDecoder().decode(ForeignDetails.self,
                                                               from: try box.open(row.detailsSealed, context: Self.context(userID: userID, row.entryID)))
            }
        }
        return result
    }
}

enum DiaryDetailsSchema {
    /// One row per imported entry that brought details; it goes with its entry.
    static let migration = Migration(version: 26, name: "diary-entry-details") { sql, _ in
        try await sql.create(table: "diary_entry_details")
            .column("entry_id", type: .text, .primaryKey(autoIncrement: false), .references("diary_entries", "id", onDelete: .cascade))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("details_sealed", type: .blob, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
    }
}
