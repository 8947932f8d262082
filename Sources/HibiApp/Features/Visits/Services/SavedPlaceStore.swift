import Foundation
import SQLKit

enum SavedPlaceSchema {
    /// Saved places (Google Maps' "Saved Places"): places without a visit time, kept apart from the signed
    /// visit log until a person logs a visit at one. `dedupe_key` is Google's address for the place, or
    /// its name and rounded position, so importing a file twice adds nothing.
    static let migration = Migration(version: 38, name: "saved-places") { sql, _ in
        try await sql.create(table: "saved_places")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("name", type: .text, .notNull, .check(SQLRaw(#"length(trim("name")) > 0"#)))
            .column("address", type: .text, .notNull)
            .column("latitude", type: .double, .notNull, .check(SQLRaw(#""latitude" BETWEEN -90 AND 90"#)))
            .column("longitude", type: .double, .notNull, .check(SQLRaw(#""longitude" BETWEEN -180 AND 180"#)))
            .column("google_maps_url", type: .text)
            .column("note", type: .text, .notNull)
            .column("saved_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("dedupe_key", type: .text, .notNull)
            .run()
        try await sql.create(index: "saved_places_user_key").on("saved_places").column("user_id").column("dedupe_key").unique().run()
    }
}

/// SQL for saved places. Every query is scoped by the owner's id.
enum SavedPlaceStore {
    /// Inserts the place unless one with its key is there already; true when it was added.
    static func insert(_ place: SavedPlace, on sql: any SQLDatabase) async throws -> Bool {
        !(try await SavedPlaceRow.insert([SavedPlaceRow(place)], into: sql).ignoringConflicts(with: ["user_id", "dedupe_key"])
            .returning("id").all()).isEmpty
    }

    static func list(userID: String, offset: Int, limit: Int, on sql: any SQLDatabase) async throws -> [SavedPlace] {
        // Newest saved first; a place without a saved time after those with one, then by name.
        try await SavedPlaceRow.select(sql).where("user_id", .equal, userID)
            .orderBy(SQLRaw(#"CASE WHEN "saved_at" IS NULL THEN 1 ELSE 0 END"#)).orderBy("saved_at", .descending).orderBy("name").orderBy("id")
            .offset(offset).limit(limit).all(decoding: SavedPlaceRow.self).map(\.place)
    }

    static func count(userID: String, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM saved_places WHERE user_id = \(bind: userID)").first()
            .map { try $0.decode(column: "n", as: Int.self) } ?? 0
    }

    static func find(id: String, userID: String, on sql: any SQLDatabase) async throws -> SavedPlace? {
        try await SavedPlaceRow.select(sql).where("id", .equal, id).where("user_id", .equal, userID).first(decoding: SavedPlaceRow.self)?.place
    }

    static func delete(id: String, userID: String, on sql: any SQLDatabase) async throws -> Bool {
        !(try await sql.delete(from: SavedPlaceRow.table).where("id", .equal, id).where("user_id", .equal, userID).returning("id").all()).isEmpty
    }
}
