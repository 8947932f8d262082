import Foundation
import SQLKit

public struct SessionRecord: Sendable, Equatable {
    public let tokenHash: String
    public let userID: String
    public let csrfToken: String
    public let expiresAt: Date
    public let lastSeenAt: Date
}

/// Browser sessions. The cookie holds a random token; the table holds only its SHA-256.
public struct SessionStore: Sendable {
    let database: Database
    let lifetime: TimeInterval

    public init(database: Database, lifetime: TimeInterval) {
        self.database = database
        self.lifetime = lifetime
    }

    /// Returns the cookie value for the new session. Sessions nobody returns to would otherwise stay
    /// forever, so each sign-in also clears the expired ones.
    public func create(userID: String, now: Date) async throws -> (token: String, record: SessionRecord) {
        try await deleteExpired(now: now)
        let token = Secrets.randomToken()
        let record = SessionRecord(tokenHash: Secrets.digest(token), userID: userID, csrfToken: Secrets.randomToken(bytes: 24),
                                   expiresAt: now.addingTimeInterval(lifetime), lastSeenAt: now)
        try await SessionRow.insert([SessionRow(tokenHash: record.tokenHash, userID: userID, csrfToken: record.csrfToken,
                                                createdAt: UnixTime(now).seconds, lastSeenAt: UnixTime(now).seconds,
                                                expiresAt: UnixTime(record.expiresAt).seconds, unlockedAt: nil)], into: database.sql).run()
        return (token, record)
    }

    /// Finds a live session with its user (one joined query per request) and slides its expiry forward,
    /// at most once a minute to spare writes.
    public func findWithUser(token: String, now: Date) async throws -> (SessionRecord, User)? {
        let hash = Secrets.digest(token)
        guard let row = try await database.sql.raw("""
            SELECT \(unsafeRaw: UserRow.qualifiedColumns("u")), \(unsafeRaw: SessionRow.aliasedColumns("s", prefix: "session_"))
            FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = \(bind: hash)
            """).first() else { return nil }
        guard let record = try await live(try row.decode(model: SessionRow.self, prefix: "session_"), hash: hash, now: now) else { return nil }
        return (record, try UserStore.decode(row))
    }

    func live(_ session: SessionRow, hash: String, now: Date) async throws -> SessionRecord? {
        let expires = UnixTime(seconds: session.expiresAt).date
        let lastSeen = UnixTime(seconds: session.lastSeenAt).date
        guard expires > now else {
            try await delete(tokenHash: hash)
            return nil
        }
        let record = SessionRecord(tokenHash: hash, userID: session.userID, csrfToken: session.csrfToken, expiresAt: expires, lastSeenAt: lastSeen)
        if now.timeIntervalSince(lastSeen) > 60 {
            try await database.sql.update("sessions")
                .set("last_seen_at", to: Int64(saturating: now.timeIntervalSince1970))
                .set("expires_at", to: Int64(saturating: now.addingTimeInterval(lifetime).timeIntervalSince1970))
                .where("token_hash", .equal, hash).run()
        }
        return record
    }

    /// When this session last proved its owner for the diary (password or face), if it has.
    /// Accounts own the sessions table; the diary lock asks through these two methods.
    public func unlockedAt(tokenHash: String) async throws -> Date? {
        let row = try await database.sql.select().column("unlocked_at").from("sessions").where("token_hash", .equal, tokenHash).first()
        return try row?.decode(column: "unlocked_at", as: Int64?.self).map { Date(timeIntervalSince1970: Double($0)) }
    }

    /// Marks the session unlocked at `date`, or locked with nil.
    public func setUnlocked(tokenHash: String, at date: Date?) async throws {
        try await database.sql.update("sessions").set("unlocked_at", to: date.map { Int64(saturating: $0.timeIntervalSince1970) })
            .where("token_hash", .equal, tokenHash).run()
    }

    public func delete(tokenHash: String) async throws {
        try await database.sql.delete(from: "sessions").where("token_hash", .equal, tokenHash).run()
    }

    /// Ends every sign-in of the user but `keep`: sign out everywhere, a password change or reset, a
    /// disabled account. Remembered devices go too, since each one can start a new sign-in with the face,
    /// and so do API tokens: a token made by whoever knew the old password must not outlive it.
    public func deleteAll(userID: String, except keep: String? = nil) async throws {
        var query = database.sql.delete(from: "sessions").where("user_id", .equal, userID)
        if let keep { query = query.where("token_hash", .notEqual, keep) }
        try await query.run()
        try await database.sql.delete(from: "remembered_devices").where("user_id", .equal, userID).run()
        try await database.sql.delete(from: "api_tokens").where("user_id", .equal, userID).run()
    }

    public func deleteExpired(now: Date) async throws {
        try await database.sql.delete(from: "sessions").where("expires_at", .lessThan, Int64(saturating: now.timeIntervalSince1970)).run()
    }
}
