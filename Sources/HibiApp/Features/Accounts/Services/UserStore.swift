import Foundation
import SQLKit

public struct UserStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    static let columns = ["id", "username", "display_name", "password_hash", "is_admin", "disabled",
                          "language", "time_zone", "created_at", "password_changed_at"]

    /// The user columns prefixed with a table alias, for joins that read a user with something else.
    static func qualifiedColumns(_ alias: String) -> String {
        columns.map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    public func count() async throws -> Int {
        let row = try await database.sql.raw("SELECT COUNT(*) AS n FROM users").first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    public func insert(_ user: User) async throws {
        do {
            try await database.sql.insert(into: "users")
                .columns(Self.columns)
                .values(
                    SQLBind(user.id), SQLBind(user.username), SQLBind(user.displayName), SQLBind(user.passwordHash),
                    SQLBind(user.isAdmin), SQLBind(user.disabled), SQLBind(user.language?.rawValue),
                    SQLBind(user.timeZone), SQLBind(Int64(saturating: user.createdAt.timeIntervalSince1970)),
                    SQLBind(Int64(saturating: user.passwordChangedAt.timeIntervalSince1970))
                )
                .run()
        } catch where DatabaseErrors.isUniqueViolation(error) {
            throw AccountError.usernameTaken
        }
    }

    public func find(id: String) async throws -> User? {
        try await database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("users")
            .where("id", .equal, id).first().map(Self.decode)
    }

    public func find(username: String) async throws -> User? {
        try await database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("users")
            .where("username", .equal, username).first().map(Self.decode)
    }

    public func all() async throws -> [User] {
        try await database.sql.select().columns(Self.columns.map { SQLIdentifier($0) }).from("users")
            .orderBy("username").all().map(Self.decode)
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

    static func decode(_ row: any SQLRow) throws -> User {
        User(
            id: try row.decode(column: "id", as: String.self),
            username: try row.decode(column: "username", as: String.self),
            displayName: try row.decode(column: "display_name", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            isAdmin: try row.decode(column: "is_admin", as: Bool.self),
            disabled: try row.decode(column: "disabled", as: Bool.self),
            language: try row.decode(column: "language", as: String?.self).flatMap(Language.init(rawValue:)),
            timeZone: try row.decode(column: "time_zone", as: String.self),
            createdAt: try row.date("created_at"),
            passwordChangedAt: try row.date("password_changed_at")
        )
    }
}
