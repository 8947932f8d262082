import Foundation
import SQLKit

/// Ratings a person chose for their days; a day without one takes its default from the confirmed moods.
public struct DayRatingStore: Sendable {
    let database: Database

    public func ratings(userID: String, from: DayKey, to: DayKey) async throws -> [DayKey: DayRating] {
        var result: [DayKey: DayRating] = [:]
        for row in try await database.sql.select().columns("day", "rating").from("day_ratings").where("user_id", .equal, userID)
            .where("day", .greaterThanOrEqual, from.description).where("day", .lessThanOrEqual, to.description).all() {
            if let key = DayKey(try row.decode(column: "day", as: String.self)),
               let rating = DayRating(rawValue: Int(try row.decode(column: "rating", as: Int64.self))) { result[key] = rating }
        }
        return result
    }

    public func set(userID: String, day: DayKey, rating: DayRating, now: Date) async throws {
        try await database.sql.insert(into: "day_ratings").columns("user_id", "day", "rating", "updated_at")
            .values(SQLBind(userID), SQLBind(day.description), SQLBind(Int64(rating.rawValue)), SQLBind(UnixTime(now).seconds))
            .onConflict(with: ["user_id", "day"]) { $0.set(excludedValueOf: "rating").set(excludedValueOf: "updated_at") }.run()
    }

    public func clear(userID: String, day: DayKey) async throws {
        try await database.sql.delete(from: "day_ratings").where("user_id", .equal, userID).where("day", .equal, day.description).run()
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
