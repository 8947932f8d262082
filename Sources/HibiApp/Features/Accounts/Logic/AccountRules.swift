import Foundation

public enum AccountRules {
    public static let minimumPasswordLength = 10

    /// Usernames compare case-insensitively, so "Aiko" and "aiko" cannot both exist.
    public static func normalizeUsername(_ raw: String) throws(AccountError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (3...32).contains(name.count), name.allSatisfy({ allowed.contains($0) }),
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
        return Int(until.timeIntervalSince(now).rounded(.up))
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
