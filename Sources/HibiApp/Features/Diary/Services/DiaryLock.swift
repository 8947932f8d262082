import Foundation
import Hummingbird
import SQLKit

/// The diary locks on every new session and after the user's idle time; it opens with the face or the password.
/// A personal API token is a deliberate grant to a script, so Bearer requests are not asked to unlock.
public struct DiaryLock: Sendable {
    let database: Database
    /// Accounts' sessions hold when each was unlocked; the lock reads and sets that through them.
    let sessions: SessionStore
    public static let defaultLockMinutes = 10

    public init(database: Database, sessions: SessionStore) {
        self.database = database
        self.sessions = sessions
    }

    public func lockMinutes(userID: String) async throws -> Int {
        let row = try await database.sql.select().column("lock_minutes").from("diary_settings").where("user_id", .equal, userID).first()
        return try row.map { Int(try $0.decode(column: "lock_minutes", as: Int64.self)) } ?? Self.defaultLockMinutes
    }

    public func setLockMinutes(userID: String, minutes: Int) async throws {
        guard (1...24 * 60).contains(minutes) else {
            throw RequestError.invalidField("lock_minutes", Text(en: "must be 1-1440 minutes", ja: "1〜1440分にしてください"))
        }
        try await database.sql.insert(into: "diary_settings").columns("user_id", "lock_minutes").values(SQLBind(userID), SQLBind(Int64(minutes)))
            .onConflict(with: ["user_id"]) { $0.set(excludedValueOf: "lock_minutes") }.run()
    }

    /// Passes if the signed-in user's diary is open in this session (sliding the idle timer); otherwise
    /// a redirect to the unlock page for browsers, or `diaryLocked` for scripts. Routes do not call this:
    /// `DiaryLockMiddleware` does, once for each diary route group.
    func check(_ context: HibiRequestContext, _ request: Request) async throws {
        _ = try await require(context, request)
    }

    /// The signed-in user if their diary is open; see `check`. For the few callers outside a diary
    /// route group that serve the diary only in part (the journal's day page asks `isUnlocked` instead).
    public func require(_ context: HibiRequestContext, _ request: Request) async throws -> User {
        let now = context.now
        let user = try context.requireUser()
        if case let .apiToken(_, scopes) = context.identity?.credential {
            guard scopes.contains(.diary) else { throw AccountError.tokenScopeMissing("diary") }
            return user
        }
        guard case let .session(tokenHash, _) = context.identity?.credential else { return user }
        let unlockedAt = try await sessions.unlockedAt(tokenHash: tokenHash)
        let idle = TimeInterval(try await lockMinutes(userID: user.id) * 60)
        if let unlockedAt, now.timeIntervalSince(unlockedAt) < idle {
            if now.timeIntervalSince(unlockedAt) > 15 { try await touch(tokenHash: tokenHash, now: now) }
            return user
        }
        if request.method == .get, !request.uri.path.hasPrefix("/api/") {
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            throw Redirect(to: DiaryPaths.unlock(next: next))
        }
        throw DiaryError.diaryLocked
    }

    /// Whether this browser session has its diary open now (a token never counts: it has scopes instead).
    public func isUnlocked(_ context: HibiRequestContext, now: Date) async throws -> Bool {
        guard let user = context.user, case let .session(tokenHash, _) = context.identity?.credential else { return false }
        guard let unlockedAt = try await sessions.unlockedAt(tokenHash: tokenHash) else { return false }
        return now.timeIntervalSince(unlockedAt) < TimeInterval(try await lockMinutes(userID: user.id) * 60)
    }

    public func unlock(_ context: HibiRequestContext, now: Date) async throws {
        guard case let .session(tokenHash, _) = context.identity?.credential else { return }
        try await touch(tokenHash: tokenHash, now: now)
    }

    /// For a session just created by face sign-in: the face was proven, so the diary opens with it.
    public func unlock(sessionTokenHash: String, now: Date) async throws {
        try await touch(tokenHash: sessionTokenHash, now: now)
    }

    public func lock(_ context: HibiRequestContext) async throws {
        guard case let .session(tokenHash, _) = context.identity?.credential else { return }
        try await sessions.setUnlocked(tokenHash: tokenHash, at: nil)
    }

    func touch(tokenHash: String, now: Date) async throws {
        try await sessions.setUnlocked(tokenHash: tokenHash, at: now)
    }
}
