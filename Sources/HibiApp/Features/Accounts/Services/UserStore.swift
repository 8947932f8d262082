import Foundation
import SQLKit

public struct UserStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func count() async throws -> Int {
        let row = try await database.sql.raw("SELECT COUNT(*) AS n FROM users").first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    public func insert(_ user: User) async throws {
        do {
            try await UserRow.insert([UserRow(user)], into: database.sql).run()
        } catch where DatabaseErrors.isUniqueViolation(error) {
            throw AccountError.usernameTaken
        }
    }

    public func find(id: String) async throws -> User? {
        try await UserRow.select(database.sql).where("id", .equal, id).first(decoding: UserRow.self)?.user
    }

    public func find(username: String) async throws -> User? {
        try await UserRow.select(database.sql).where("username", .equal, username).first(decoding: UserRow.self)?.user
    }

    public func all() async throws -> [User] {
        try await UserRow.select(database.sql).orderBy("username").all(decoding: UserRow.self).map(\.user)
    }

    public func update(_ user: User) async throws {
        try await database.sql.update("users")
            .set("display_name", to: user.displayName)
            .set("password_hash", to: user.passwordHash)
            .set("is_admin", to: user.isAdmin)
            .set("disabled", to: user.disabled)
            .set("language", to: user.language?.rawValue)
            .set("time_zone", to: user.timeZone)
            .set("password_changed_at", to: Int64(saturating: user.passwordChangedAt.timeIntervalSince1970))
            .where("id", .equal, user.id)
            .run()
    }

    /// The user of a joined row that selected `UserRow.qualifiedColumns`.
    static func decode(_ row: any SQLRow) throws -> User {
        try row.decode(model: UserRow.self).user
    }
}
