import Foundation
import SQLKit

/// Personal API tokens. Like sessions, only the digest is stored; the prefix lets a user tell them apart.
public struct TokenStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public static let tokenPrefix = "hibi_"

    public func create(userID: String, name: String, scopes: TokenScopes = .standard, now: Date) async throws -> (token: String, record: APIToken) {
        let secret = Self.tokenPrefix + Secrets.randomToken()
        let record = APIToken(id: UUID().uuidString.lowercased(), userID: userID, name: name,
                              prefix: String(secret.prefix(Self.tokenPrefix.count + 6)), createdAt: now, lastUsedAt: nil, scopes: scopes)
        try await database.sql.insert(into: "api_tokens")
            .columns("id", "user_id", "name", "token_hash", "prefix", "created_at", "scopes")
            .values(SQLBind(record.id), SQLBind(userID), SQLBind(name), SQLBind(Secrets.digest(secret)),
                    SQLBind(record.prefix), SQLBind(Int64(saturating: now.timeIntervalSince1970)), SQLBind(scopes.text))
            .run()
        return (secret, record)
    }

    public func list(userID: String) async throws -> [APIToken] {
        try await database.sql.select().columns("id", "user_id", "name", "prefix", "created_at", "last_used_at", "scopes")
            .from("api_tokens").where("user_id", .equal, userID).orderBy("created_at", .descending)
            .all().map(Self.decode)
    }

    /// Scoped by user: revoking someone else's token id reports "not found", exactly like a made-up id.
    public func revoke(id: String, userID: String) async throws -> Bool {
        let existing = try await database.sql.select().column("id").from("api_tokens")
            .where("id", .equal, id).where("user_id", .equal, userID).first()
        guard existing != nil else { return false }
        try await database.sql.delete(from: "api_tokens").where("id", .equal, id).where("user_id", .equal, userID).run()
        return true
    }

    /// The token's owner, in one query: every API request pays this, so it joins instead of reading twice.
    public func authenticate(token: String, now: Date) async throws -> (tokenID: String, scopes: TokenScopes, user: User)? {
        guard token.hasPrefix(Self.tokenPrefix) else { return nil }
        let hash = Secrets.digest(token)
        guard let row = try await database.sql.raw("""
            SELECT \(unsafeRaw: UserStore.qualifiedColumns("u")), t.id AS token_id, t.last_used_at AS token_last_used_at, t.scopes AS token_scopes
            FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(bind: hash)
            """).first() else { return nil }
        let tokenID = try row.decode(column: "token_id", as: String.self)
        let lastUsed = try row.decode(column: "token_last_used_at", as: Int64?.self)
        // Hourly precision is enough for "last used" and keeps authenticated reads from writing every time.
        if lastUsed.map({ now.timeIntervalSince1970 - Double($0) > 3600 }) ?? true {
            try await database.sql.update("api_tokens").set("last_used_at", to: Int64(saturating: now.timeIntervalSince1970))
                .where("id", .equal, tokenID).run()
        }
        return (tokenID, TokenScopes(stored: try row.decode(column: "token_scopes", as: String.self)), try UserStore.decode(row))
    }

    static func decode(_ row: any SQLRow) throws -> APIToken {
        APIToken(
            id: try row.decode(column: "id", as: String.self),
            userID: try row.decode(column: "user_id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            prefix: try row.decode(column: "prefix", as: String.self),
            createdAt: try row.date("created_at"),
            lastUsedAt: try row.optionalDate("last_used_at"),
            scopes: TokenScopes(stored: try row.decode(column: "scopes", as: String.self))
        )
    }
}
