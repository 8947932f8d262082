import Foundation
import SQLKit

/// Persists failed sign-in counts so a restart does not reset a lock.
public struct LoginThrottleStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func state(subject: String) async throws -> LoginThrottlePolicy.State? {
        try await LoginFailureRow.select(database.sql).where("subject", .equal, subject).first(decoding: LoginFailureRow.self)?.state()
    }

    public func save(subject: String, state: LoginThrottlePolicy.State) async throws {
        try await database.sql.insert(into: "login_failures")
            .columns("subject", "failures", "last_failure_at", "locked_until")
            .values(SQLBind(subject), SQLBind(Int64(state.failures)), SQLBind(Int64(saturating: state.lastFailureAt.timeIntervalSince1970)),
                    SQLBind(state.lockedUntil.map { Int64(saturating: $0.timeIntervalSince1970) }))
            .onConflict(with: ["subject"]) { $0.set(excludedValueOf: "failures").set(excludedValueOf: "last_failure_at").set(excludedValueOf: "locked_until") }
            .run()
    }

    /// Counts an attempt before its slow work (bcrypt) in one statement, so attempts made at the same
    /// moment each get their own number: the sixth of forty parallel guesses is refused without being
    /// evaluated. Failures older than the window, or from before an expired lock, start again at one.
    /// Returns the subject's state including this attempt.
    public func reserve(subject: String, policy: LoginThrottlePolicy, now: Date) async throws -> LoginThrottlePolicy.State {
        let at = Int64(saturating: now.timeIntervalSince1970)
        let windowStart = at - Int64(saturating: policy.window)
        try await prune(before: at - Int64(saturating: max(policy.window, policy.lockDuration)), now: at)
        let row = try await database.sql.raw("""
            INSERT INTO login_failures (subject, failures, last_failure_at, locked_until) VALUES (\(bind: subject), 1, \(bind: at), NULL)
            ON CONFLICT (subject) DO UPDATE SET
              failures = CASE WHEN login_failures.last_failure_at < \(bind: windowStart)
                                OR (login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= \(bind: at))
                              THEN 1 ELSE login_failures.failures + 1 END,
              locked_until = CASE WHEN login_failures.locked_until IS NOT NULL AND login_failures.locked_until <= \(bind: at)
                                  THEN NULL ELSE login_failures.locked_until END,
              last_failure_at = \(bind: at)
            RETURNING \(unsafeRaw: LoginFailureRow.columnList)
            """).first(decoding: LoginFailureRow.self)
        return row?.state(lastFailure: now) ?? LoginThrottlePolicy.State(failures: 1, lastFailureAt: now, lockedUntil: nil)
    }

    /// Takes one attempt from a client address's bucket for names that do not exist (the generic cell rate
    /// algorithm: one timestamp per address, the moment the bucket is full again, kept in `locked_until`; the
    /// row's `failures` is 1 when this attempt was refused). One statement, so instances sharing the database
    /// and parallel attempts each see the others. Returns the seconds to wait, or nil to go ahead.
    public func takeToken(address: String, policy: LoginThrottlePolicy, now: Date) async throws -> Int? {
        let at = Int64(saturating: now.timeIntervalSince1970)
        let interval = Int64(max(1, policy.unknownNameInterval))
        let tolerance = interval &* Int64(max(0, policy.unknownNameBurst - 1))
        try await prune(before: at - Int64(saturating: max(policy.window, policy.lockDuration)), now: at)
        let row = try await database.sql.raw("""
            INSERT INTO login_failures (subject, failures, last_failure_at, locked_until)
            VALUES (\(bind: LoginSubjects.address(address)), 0, \(bind: at), \(bind: at + interval))
            ON CONFLICT (subject) DO UPDATE SET
              failures = CASE WHEN login_failures.locked_until - \(bind: at) > \(bind: tolerance) THEN 1 ELSE 0 END,
              locked_until = CASE WHEN login_failures.locked_until - \(bind: at) > \(bind: tolerance) THEN login_failures.locked_until
                                  WHEN login_failures.locked_until IS NULL OR login_failures.locked_until < \(bind: at) THEN \(bind: at + interval)
                                  ELSE login_failures.locked_until + \(bind: interval) END,
              last_failure_at = \(bind: at)
            RETURNING \(unsafeRaw: LoginFailureRow.columnList)
            """).first(decoding: LoginFailureRow.self)
        return policy.unknownNameWait(allowedAt: row?.lockedUntil ?? at, refused: row?.failures == 1, now: at)
    }

    /// Pruned on insert rather than by a background job: every instance may run the same DELETE at once
    /// (it is idempotent), so no claim is needed, and rows cannot pile up faster than attempts arrive.
    /// A row whose last failure is older than the window and whose lock (or bucket, `takeToken`) has run out
    /// counts for nothing any more.
    func prune(before cutoff: Int64, now: Int64) async throws {
        try await database.sql.raw("""
            DELETE FROM login_failures WHERE last_failure_at < \(bind: cutoff) AND (locked_until IS NULL OR locked_until < \(bind: now))
            """).run()
    }

    public func lock(subject: String, until: Date) async throws {
        try await database.sql.update("login_failures").set("locked_until", to: Int64(saturating: until.timeIntervalSince1970))
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
    /// The bucket of attempts on unknown names from one client address.
    public static func address(_ address: String) -> String { "addr:" + address }
}
