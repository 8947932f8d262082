import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// `login_failures` read as its row type (issue 30, item 3) on the test's engine: a subject without a lock reads a NULL
/// `locked_until` as no lock, a lock reads back to the second, and the unknown-name bucket's RETURNING row refuses the
/// attempt after the burst.
@Suite(.serialized) struct AccountsRowsTests {
    @Test func failuresLocksAndTheBucketReadBackFromTheRow() async throws {
        try await TestApp.withTwoPeople { core, _, _ in
            let store = LoginThrottleStore(database: core.database)
            let policy = LoginThrottlePolicy.standard
            let now = Date(timeIntervalSince1970: 1_714_550_400.75)
            #expect(try await store.state(subject: "acct:aiko") == nil)
            let first = try await store.reserve(subject: "acct:aiko", policy: policy, now: now)
            #expect(first == LoginThrottlePolicy.State(failures: 1, lastFailureAt: now, lockedUntil: nil))
            let second = try await store.reserve(subject: "acct:aiko", policy: policy, now: now.addingTimeInterval(1))
            #expect(second.failures == 2 && second.lockedUntil == nil)
            // Stored in whole seconds.
            #expect(try await store.state(subject: "acct:aiko")
                == LoginThrottlePolicy.State(failures: 2, lastFailureAt: Date(timeIntervalSince1970: 1_714_550_401), lockedUntil: nil))
            try await store.lock(subject: "acct:aiko", until: now.addingTimeInterval(900))
            #expect(try await store.state(subject: "acct:aiko")?.lockedUntil == Date(timeIntervalSince1970: 1_714_551_300))

            // Ten attempts on unknown names go ahead, the eleventh waits one interval.
            for _ in 0..<policy.unknownNameBurst {
                #expect(try await store.takeToken(address: "192.0.2.7", policy: policy, now: now) == nil)
            }
            #expect(try await store.takeToken(address: "192.0.2.7", policy: policy, now: now) == policy.unknownNameInterval)
        }
    }
}
