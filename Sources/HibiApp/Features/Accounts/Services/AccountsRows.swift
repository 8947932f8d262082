import Foundation
import SQLKit

// The Accounts tables' rows as they are stored (`TableRow`). The rows of `users`, `sessions`, `api_tokens` and
// `remembered_devices` sit beside their stores (UserStore.swift, SessionStore.swift, TokenStore.swift, DeviceStore.swift).

/// A row of `login_failures`: the failed sign-ins counted under one subject (`LoginSubjects`), and the lock they led to.
/// For an address's bucket of attempts on unknown names (`takeToken`), `locked_until` is when the bucket is full again
/// and `failures` is 1 when the last attempt was refused.
struct LoginFailureRow: TableRow {
    static let table = "login_failures"
    var subject: String
    var failures: Int64
    var lastFailureAt: Int64
    var lockedUntil: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case subject, failures, lastFailureAt = "last_failure_at", lockedUntil = "locked_until"
    }

    /// The columns as a raw statement's RETURNING names them.
    static var columnList: String { CodingKeys.allCases.map(\.stringValue).joined(separator: ", ") }

    /// The throttle's state, with the last failure at `lastFailure` when the caller knows it more exactly than the stored second.
    func state(lastFailure: Date? = nil) -> LoginThrottlePolicy.State {
        LoginThrottlePolicy.State(failures: Int(clamping: failures), lastFailureAt: lastFailure ?? UnixTime(seconds: lastFailureAt).date,
                                  lockedUntil: lockedUntil.map { UnixTime(seconds: $0).date })
    }
}
