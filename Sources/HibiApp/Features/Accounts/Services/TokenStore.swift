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
        try await APITokenRow.insert([APITokenRow(id: record.id, userID: userID, name: name, tokenHash: Secrets.digest(secret), prefix: record.prefix,
                                                  createdAt: UnixTime(now).seconds, lastUsedAt: nil, scopes: scopes.text)], into: database.sql).run()
        return (secret, record)
    }

    public func list(userID: String) async throws -> [APIToken] {
        try await APITokenRow.select(database.sql).where("user_id", .equal, userID).orderBy("created_at", .descending)
            .all(decoding: APITokenRow.self).map(\.token)
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
            SELECT \(unsafeRaw: UserRow.qualifiedColumns("u")), \(unsafeRaw: APITokenRow.aliasedColumns("t", prefix: "token_"))
            FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(bind: hash)
            """).first() else { return nil }
        let token = try row.decode(model: APITokenRow.self, prefix: "token_")
        let tokenID = token.id, lastUsed = token.lastUsedAt
        // Hourly precision is enough for "last used" and keeps authenticated reads from writing every time.
        if lastUsed.map({ now.timeIntervalSince1970 - Double($0) > 3600 }) ?? true {
            try await database.sql.update("api_tokens").set("last_used_at", to: Int64(saturating: now.timeIntervalSince1970))
                .where("id", .equal, tokenID).run()
        }
        return (tokenID, TokenScopes(stored: token.scopes), try UserStore.decode(row))
    }
}
