import Foundation

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
