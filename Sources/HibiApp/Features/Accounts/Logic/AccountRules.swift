import Foundation

public enum AccountRules {
    public static let minimumPasswordLength = 10
    /// The longest username an account can have (`normalizeUsername`); sign-in refuses longer ones first.
    public static let maximumUsernameLength = 32

    /// The name a sign-in form carries, normalized, or nil when no account can have it (longer than any
    /// username). Checked before anything else: 60 kB names used to be stored as throttle subjects.
    public static func signInName(_ raw: String) -> String? {
        // Bytes first: a 60 kB value is refused without trimming or lowercasing it.
        guard raw.utf8.count <= 4 * maximumUsernameLength + 64 else { return nil }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return name.count <= maximumUsernameLength ? name : nil
    }

    /// Usernames compare case-insensitively, so "Aiko" and "aiko" cannot both exist.
    public static func normalizeUsername(_ raw: String) throws(AccountError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (3...maximumUsernameLength).contains(name.count), name.allSatisfy({ allowed.contains($0) }),
              let first = name.first, first.isLetter || first.isNumber else {
            throw .invalidUsername
        }
        return name
    }

    /// bcrypt reads only the first 72 bytes; longer passwords are refused rather than silently truncated.
    public static func validatePassword(_ password: String, confirmation: String? = nil) throws(AccountError) {
        guard password.count >= minimumPasswordLength else { throw .passwordTooShort(minimum: minimumPasswordLength) }
        guard password.utf8.count <= 72 else { throw .passwordTooLong }
        if let confirmation, confirmation != password { throw .passwordsDoNotMatch }
    }

    public static func normalizeDisplayName(_ raw: String?, fallback: String) throws(AccountError) -> String {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { return fallback }
        guard name.count <= 64, !name.contains(where: { $0.isNewline }) else { throw .displayNameInvalid }
        return name
    }

    public static func validateTimeZone(_ identifier: String) throws(AccountError) -> String {
        guard TimeZone(identifier: identifier) != nil else { throw .invalidTimeZone }
        return identifier
    }

    public static func validateTokenName(_ raw: String) throws(AccountError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // PostgreSQL refuses NUL in text; control characters are never a real name.
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .tokenNameInvalid
        }
        return name
    }

    /// A name the user can tell devices apart by in settings ("Firefox · Linux"), from the User-Agent;
    /// nothing finer (versions, models) is kept.
    public static func deviceLabel(userAgent: String?) -> String {
        let agent = userAgent ?? ""
        let browser = agent.contains("Edg/") ? "Edge" : agent.contains("Firefox/") ? "Firefox" : agent.contains("Chrome/") ? "Chrome"
            : agent.contains("Safari/") ? "Safari" : "Browser"
        let system: String? = agent.contains("iPhone") || agent.contains("iPad") ? "iOS" : agent.contains("Android") ? "Android"
            : agent.contains("Mac OS X") ? "macOS" : agent.contains("Windows") ? "Windows" : agent.contains("Linux") ? "Linux" : nil
        return system.map { "\(browser) · \($0)" } ?? browser
    }
}

/// How failed sign-ins are slowed and then locked, per account and per client address.
public struct LoginThrottlePolicy: Sendable, Equatable {
    /// Failures before responses start being slowed.
    public var slowAfter: Int
    /// Failures before the subject is locked.
    public var lockAfter: Int
    public var lockDuration: TimeInterval
    /// Failures older than this are forgotten.
    public var window: TimeInterval
    public var delayPerFailure: TimeInterval
    public var maxDelay: TimeInterval
    /// Attempts on names that do not exist, per client address: a token bucket holding `unknownNameBurst`
    /// attempts, refilled by one every `unknownNameInterval` seconds (10 at once, then 10 a minute). Each
    /// such attempt costs a decoy bcrypt; a person mistyping their name a few times never meets it.
    public var unknownNameBurst: Int = 10
    public var unknownNameInterval: Int = 6

    public static let standard = LoginThrottlePolicy(
        slowAfter: 3, lockAfter: 5, lockDuration: 15 * 60, window: 15 * 60, delayPerFailure: 0.5, maxDelay: 2
    )

    public init(slowAfter: Int, lockAfter: Int, lockDuration: TimeInterval, window: TimeInterval,
                delayPerFailure: TimeInterval, maxDelay: TimeInterval) {
        self.slowAfter = slowAfter
        self.lockAfter = lockAfter
        self.lockDuration = lockDuration
        self.window = window
        self.delayPerFailure = delayPerFailure
        self.maxDelay = maxDelay
    }

    /// The address bucket's verdict from the time its next attempt is allowed (`allowedAt`, Unix seconds, as
    /// `LoginThrottleStore.takeToken` keeps it): nil to go ahead, else the seconds to wait. Pure, for tests.
    public func unknownNameWait(allowedAt: Int64, refused: Bool, now: Int64) -> Int? {
        guard refused else { return nil }
        let tolerance = Int64(unknownNameInterval) &* Int64(max(0, unknownNameBurst - 1))
        return Int(clamping: max(1, allowedAt &- now &- tolerance))
    }

    public struct State: Sendable, Equatable {
        public var failures: Int
        public var lastFailureAt: Date
        public var lockedUntil: Date?

        public init(failures: Int, lastFailureAt: Date, lockedUntil: Date?) {
            self.failures = failures
            self.lastFailureAt = lastFailureAt
            self.lockedUntil = lockedUntil
        }
    }

    /// Seconds until the subject may try again, or nil when it may try now.
    public func lockRemaining(_ state: State?, now: Date) -> Int? {
        guard let until = state?.lockedUntil, until > now else { return nil }
        return Int(saturating: until.timeIntervalSince(now).rounded(.up))
    }

    /// The state after one more failure at `now`.
    public func recordingFailure(_ state: State?, now: Date) -> State {
        var failures = 1
        if let state, now.timeIntervalSince(state.lastFailureAt) < window, state.lockedUntil.map({ $0 > now }) ?? true {
            failures = state.failures + 1
        }
        let lockedUntil = failures >= lockAfter ? now.addingTimeInterval(lockDuration) : nil
        return State(failures: failures, lastFailureAt: now, lockedUntil: lockedUntil)
    }

    /// How long to hold a response after this many recent failures: makes guessing slow before the lock.
    public func delay(afterFailures failures: Int) -> TimeInterval {
        guard failures >= slowAfter else { return 0 }
        return min(maxDelay, Double(failures - slowAfter + 1) * delayPerFailure)
    }
}
