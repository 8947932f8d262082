import Foundation
import Testing
@testable import HibiApp

@Suite struct AccountRulesTests {
    @Test func usernamesAreNormalisedAndValidated() throws {
        #expect(try AccountRules.normalizeUsername("  Aiko ") == "aiko")
        #expect(throws: AccountError.invalidUsername) { try AccountRules.normalizeUsername("ai") }
        #expect(throws: AccountError.invalidUsername) { try AccountRules.normalizeUsername("-aiko") }
        #expect(throws: AccountError.invalidUsername) { try AccountRules.normalizeUsername("aiko tanaka") }
        #expect(throws: AccountError.invalidUsername) { try AccountRules.normalizeUsername(String(repeating: "a", count: 33)) }
    }

    @Test func passwordsNeedLengthAndMatchingConfirmation() throws {
        #expect(throws: AccountError.passwordTooShort(minimum: 10)) { try AccountRules.validatePassword("short") }
        #expect(throws: AccountError.passwordsDoNotMatch) { try AccountRules.validatePassword("long enough pw", confirmation: "long enough pX") }
        // bcrypt ignores bytes past 72: such passwords are refused instead of silently truncated.
        #expect(throws: AccountError.passwordTooLong) { try AccountRules.validatePassword(String(repeating: "あ", count: 25)) }
        try AccountRules.validatePassword("long enough pw", confirmation: "long enough pw")
    }

    @Test func timeZonesMustExist() throws {
        #expect(try AccountRules.validateTimeZone("Asia/Tokyo") == "Asia/Tokyo")
        #expect(throws: AccountError.invalidTimeZone) { try AccountRules.validateTimeZone("Mars/Olympus") }
    }
}

@Suite struct LoginThrottlePolicyTests {
    let policy = LoginThrottlePolicy.standard
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func locksAfterTheFifthFailureForFifteenMinutes() {
        var state: LoginThrottlePolicy.State?
        for attempt in 1...4 {
            state = policy.recordingFailure(state, now: start.addingTimeInterval(Double(attempt)))
            #expect(policy.lockRemaining(state, now: start.addingTimeInterval(Double(attempt))) == nil)
        }
        state = policy.recordingFailure(state, now: start.addingTimeInterval(5))
        #expect(policy.lockRemaining(state, now: start.addingTimeInterval(6)) == 15 * 60 - 1)
        #expect(policy.lockRemaining(state, now: start.addingTimeInterval(5 + 15 * 60)) == nil)
    }

    @Test func slowsDownBeforeLocking() {
        #expect(policy.delay(afterFailures: 2) == 0)
        #expect(policy.delay(afterFailures: 3) == 0.5)
        #expect(policy.delay(afterFailures: 4) == 1.0)
        #expect(policy.delay(afterFailures: 40) == policy.maxDelay)
    }

    @Test func oldFailuresAndExpiredLocksAreForgotten() {
        let old = LoginThrottlePolicy.State(failures: 4, lastFailureAt: start, lockedUntil: nil)
        #expect(policy.recordingFailure(old, now: start.addingTimeInterval(policy.window + 1)).failures == 1)
        let expired = LoginThrottlePolicy.State(failures: 5, lastFailureAt: start, lockedUntil: start.addingTimeInterval(60))
        #expect(policy.recordingFailure(expired, now: start.addingTimeInterval(61)).failures == 1)
    }
}
