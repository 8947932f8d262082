import Foundation
import SQLKit

// The Accounts tables' rows as they are stored (`TableRow`), each mapped to the model the feature works with in one
// place. Times stay the stored Unix seconds; secrets are stored as their hashes.

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

/// A row of `users`.
struct UserRow: TableRow {
    static let table = "users"
    var id: String
    var username: String
    var displayName: String
    var passwordHash: String
    var isAdmin: Bool
    var disabled: Bool
    var language: String?
    var timeZone: String
    var createdAt: Int64
    var passwordChangedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, username, displayName = "display_name", passwordHash = "password_hash", isAdmin = "is_admin", disabled, language,
             timeZone = "time_zone", createdAt = "created_at", passwordChangedAt = "password_changed_at"
    }
}

extension UserRow {
    init(_ user: User) {
        self.init(id: user.id, username: user.username, displayName: user.displayName, passwordHash: user.passwordHash,
                  isAdmin: user.isAdmin, disabled: user.disabled, language: user.language?.rawValue, timeZone: user.timeZone,
                  createdAt: UnixTime(user.createdAt).seconds, passwordChangedAt: UnixTime(user.passwordChangedAt).seconds)
    }

    var user: User {
        User(id: id, username: username, displayName: displayName, passwordHash: passwordHash, isAdmin: isAdmin, disabled: disabled,
             language: language.flatMap(Language.init(rawValue:)), timeZone: timeZone,
             createdAt: UnixTime(seconds: createdAt).date, passwordChangedAt: UnixTime(seconds: passwordChangedAt).date)
    }
}

/// A row of `sessions`.
struct SessionRow: TableRow {
    static let table = "sessions"
    var tokenHash: String
    var userID: String
    var csrfToken: String
    var createdAt: Int64
    var lastSeenAt: Int64
    var expiresAt: Int64
    var unlockedAt: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case tokenHash = "token_hash", userID = "user_id", csrfToken = "csrf_token", createdAt = "created_at", lastSeenAt = "last_seen_at",
             expiresAt = "expires_at", unlockedAt = "unlocked_at"
    }
}

/// A row of `remembered_devices`.
struct RememberedDeviceRow: TableRow {
    static let table = "remembered_devices"
    var id: String
    var userID: String
    var tokenHash: String
    var label: String
    var createdAt: Int64
    var lastUsedAt: Int64?
    var expiresAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", tokenHash = "token_hash", label, createdAt = "created_at", lastUsedAt = "last_used_at", expiresAt = "expires_at"
    }
}

extension RememberedDeviceRow {
    var device: RememberedDevice {
        RememberedDevice(id: id, userID: userID, label: label, createdAt: UnixTime(seconds: createdAt).date,
                         lastUsedAt: lastUsedAt.map { UnixTime(seconds: $0).date })
    }
}

/// A row of `api_tokens`.
struct APITokenRow: TableRow {
    static let table = "api_tokens"
    var id: String
    var userID: String
    var name: String
    var tokenHash: String
    var prefix: String
    var createdAt: Int64
    var lastUsedAt: Int64?
    var scopes: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", name, tokenHash = "token_hash", prefix, createdAt = "created_at", lastUsedAt = "last_used_at", scopes
    }
}

extension APITokenRow {
    var token: APIToken {
        APIToken(id: id, userID: userID, name: name, prefix: prefix, createdAt: UnixTime(seconds: createdAt).date,
                 lastUsedAt: lastUsedAt.map { UnixTime(seconds: $0).date }, scopes: TokenScopes(stored: scopes))
    }
}
