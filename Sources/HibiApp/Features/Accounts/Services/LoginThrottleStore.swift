import Foundation
import SQLKit

/// Persists failed sign-in counts so a restart does not reset a lock.
public struct LoginThrottleStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func state(subject: String) async throws -> LoginThrottlePolicy.State? {
        guard let row = try await database.sql.select().columns("failures", "last_failure_at", "locked_until")
            .from("login_failures").where("subject", .equal, subject).first() else { return nil }
        return LoginThrottlePolicy.State(
            failures: Int(try row.decode(column: "failures", as: Int64.self)),
            lastFailureAt: try row.date("last_failure_at"),
            lockedUntil: try row.optionalDate("locked_until")
        )
    }

    public func save(subject: String, state: LoginThrottlePolicy.State) async throws {
        try await database.sql.insert(into: "login_failures")
            .columns("subject", "failures", "last_failure_at", "locked_until")
            .values(SQLBind(subject), SQLBind(Int64(state.failures)), SQLBind(Int64(state.lastFailureAt.timeIntervalSince1970)),
                    SQLBind(state.lockedUntil.map { Int64($0.timeIntervalSince1970) }))
            .onConflict(with: ["subject"]) { $0.set(excludedValueOf: "failures").set(excludedValueOf: "last_failure_at").set(excludedValueOf: "locked_until") }
            .run()
    }

    /// Counts an attempt before its slow work (bcrypt) in one statement, so attempts made at the same
    /// moment each get their own number: the sixth of forty parallel guesses is refused without being
    /// evaluated. Failures older than the window, or from before an expired lock, start again at one.
    /// Returns the subject's state including this attempt.
    public func reserve(subject: String, policy: LoginThrottlePolicy, now: Date) async throws -> LoginThrottlePolicy.State {
        let at = Int64(now.timeIntervalSince1970)
        let windowStart = at - Int64(policy.window)
        let row = try await database.sql.raw("""
            INSERT INTO login_failures (subject, failures, last_failure_at, locked_until) VALUES (\(bind: subject), 1, \(bind: at), NULL)
            ON CONFLICT (subject) DO UPDATE SET
              failures = CASE WHEN login_failures.last_failure_at < \(bind: windowStart)
                                OR (login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= \(bind: at))
                              THEN 1 ELSE login_failures.failures + 1 END,
              locked_until = CASE WHEN login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= \(bind: at)
                                  THEN NULL ELSE login_failures.locked_until END,
              last_failure_at = \(bind: at)
            RETURNING failures, locked_until
            """).first()
        return LoginThrottlePolicy.State(
            failures: Int(try row?.decode(column: "failures", as: Int64.self) ?? 1), lastFailureAt: now,
            lockedUntil: try row?.decode(column: "locked_until", as: Int64?.self).map { Date(timeIntervalSince1970: Double($0)) })
    }

    public func lock(subject: String, until: Date) async throws {
        try await database.sql.update("login_failures").set("locked_until", to: Int64(until.timeIntervalSince1970))
            .where("subject", .equal, subject).run()
    }

    /// Every subject of one account: the account's own and each (account, address) pair.
    public func clear(account username: String) async throws {
        try await database.sql.delete(from: "login_failures").where("subject", .equal, LoginSubjects.account(username))
            .run()
        // A range rather than LIKE: usernames may hold '_', a LIKE wildcard. '}' follows '|' in ASCII.
        try await database.sql.delete(from: "login_failures")
            .where("subject", .greaterThan, "pair:\(username)|").where("subject", .lessThan, "pair:\(username)}").run()
    }

    public func clear(subject: String) async throws {
        try await database.sql.delete(from: "login_failures").where("subject", .equal, subject).run()
    }
}

/// The names failures are counted under. The hard lock is per (account, address), so nobody can lock an
/// account for its owner from elsewhere (and, behind one proxy address, for everyone); the account as a
/// whole only slows down.
public enum LoginSubjects {
    public static func account(_ username: String) -> String { "acct:" + username }
    public static func pair(_ username: String, _ address: String) -> String { "pair:\(username)|\(address)" }
}
