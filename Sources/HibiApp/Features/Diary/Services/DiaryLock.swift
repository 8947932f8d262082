import Foundation
import Hummingbird
import SQLKit

/// The diary locks on every new session and after the user's idle time; it opens with the face or the password.
/// A personal API token is a deliberate grant to a script, so Bearer requests are not asked to unlock.
public struct DiaryLock: Sendable {
    let database: Database
    /// Accounts' sessions hold when each was unlocked; the lock reads and sets that through them.
    let sessions: any SessionUnlocks
    public static let defaultLockMinutes = 10

    public init(database: Database, sessions: any SessionUnlocks) {
        self.database = database
        self.sessions = sessions
    }

    public func lockMinutes(userID: String) async throws -> Int {
        let row = try await DiarySettingsRow.select(database.sql).where("user_id", .equal, userID).first(decoding: DiarySettingsRow.self)
        return row.map { Int(clamping: $0.lockMinutes) } ?? Self.defaultLockMinutes
    }

    public func setLockMinutes(userID: String, minutes: Int) async throws {
        guard (1...24 * 60).contains(minutes) else {
            throw RequestError.invalidField("lock_minutes", Text(en: "must be 1-1440 minutes", ja: "1〜1440分にしてください"))
        }
        try await DiarySettingsRow.insert([DiarySettingsRow(userID: userID, lockMinutes: Int64(minutes))], into: database.sql)
            .onConflict(with: ["user_id"]) { $0.set(excludedValueOf: "lock_minutes") }.run()
    }

    /// Whether this request may read the diary: a token by its `diary` scope (refused with a clear
    /// error without it), a browser session while it is unlocked (each use slides the idle timer).
    /// What a locked request is answered (the unlock page, or `diary_locked`) is the web's concern:
    /// `DiaryLockMiddleware` decides it.
    func admits(_ context: SignedInContext) async throws -> Bool {
        switch context.identity?.credential {
        case let .apiToken(_, scopes)?:
            guard scopes.contains(.diary) else { throw TokenScopeMissing("diary") }
            return true
        case let .session(tokenHash, _)?:
            let now = context.now
            guard let unlockedAt = try await sessions.unlockedAt(tokenHash: tokenHash),
                  now.timeIntervalSince(unlockedAt) < TimeInterval(try await lockMinutes(userID: context.user.id) * 60) else { return false }
            if now.timeIntervalSince(unlockedAt) > 15 { try await touch(tokenHash: tokenHash, now: now) }
            return true
        case nil:
            return false
        }
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
