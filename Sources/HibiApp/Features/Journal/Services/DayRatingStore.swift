import Foundation
import SQLKit

/// Ratings a person chose for their days; a day without one takes its default from the confirmed moods.
public struct DayRatingStore: Sendable {
    let database: Database

    public func ratings(userID: String, from: DayKey, to: DayKey) async throws -> [DayKey: DayRating] {
        var result: [DayKey: DayRating] = [:]
        for row in try await DayRatingRow.select(database.sql).where("user_id", .equal, userID)
            .where("day", .greaterThanOrEqual, from.description).where("day", .lessThanOrEqual, to.description).all(decoding: DayRatingRow.self) {
            if let key = DayKey(row.day), let rating = DayRating(rawValue: Int(row.rating)) { result[key] = rating }
        }
        return result
    }

    public func set(userID: String, day: DayKey, rating: DayRating, now: Date) async throws {
        try await DayRatingRow.insert([DayRatingRow(userID: userID, day: day.description, rating: Int64(rating.rawValue), updatedAt: UnixTime(now).seconds)],
                                      into: database.sql)
            .onConflict(with: ["user_id", "day"]) { $0.set(excludedValueOf: "rating").set(excludedValueOf: "updated_at") }.run()
    }

    public func clear(userID: String, day: DayKey) async throws {
        try await database.sql.delete(from: "day_ratings").where("user_id", .equal, userID).where("day", .equal, day.description).run()
    }
}

/// A row of `day_ratings`.
struct DayRatingRow: TableRow {
    static let table = "day_ratings"
    var userID: String
    var day: String
    var rating: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", day, rating, updatedAt = "updated_at"
    }
}

enum JournalSchema {
    /// One rating per person and day, 1 (awful) to 5 (great).
    static let dayRatings = Migration(version: 21, name: "day-ratings") { sql, _ in
        try await sql.create(table: "day_ratings")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("day", type: .text, .notNull)
            .column("rating", type: .bigint, .notNull, .check(SQLRaw(#""rating" BETWEEN 1 AND 5"#)))
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("user_id", "day")
            .run()
    }
}
