import Foundation
import HTTPTypes

/// The signed-in person every request context carries and every feature reads (their id, language and time
/// zone); Accounts stores and changes them, the platform hands them out.
public struct User: Sendable, Equatable {
    public let id: String
    public var username: String
    public var displayName: String
    public var passwordHash: String
    public var isAdmin: Bool
    public var disabled: Bool
    public var language: Language?
    public var timeZone: String
    public var createdAt: Date
    public var passwordChangedAt: Date
}

/// What a personal API token may do: read (GET), write (everything else), and the diary, which is
/// separate because a diary is locked even inside a signed-in session.
public struct TokenScopes: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let read = TokenScopes(rawValue: 1)
    public static let write = TokenScopes(rawValue: 2)
    public static let diary = TokenScopes(rawValue: 4)
    /// What a token gets when nobody says otherwise (and what tokens made before scopes keep).
    public static let standard: TokenScopes = [.read, .write]
    public static let all: TokenScopes = [.read, .write, .diary]

    static let names: [(String, TokenScopes)] = [("read", .read), ("write", .write), ("diary", .diary)]

    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }
    /// Stored form, e.g. "read,write".
    public var text: String { names.joined(separator: ",") }
}

/// A personal API token used for what its scopes do not allow (the platform's read/write check, the diary's lock).
public struct TokenScopeMissing: UserFacingError, Equatable {
    public let scope: String
    public init(_ scope: String) { self.scope = scope }
    public var status: HTTPResponse.Status { .forbidden }
    public var code: String { "token_scope_missing" }
    public func message(_ language: Language) -> String {
        Text(en: "This API token does not have the \"\(scope)\" scope. Make a token with it in Settings → API tokens.",
             ja: "この API トークンには「\(scope)」の権限がありません。設定 → API トークンで権限付きのトークンを作ってください。")(language)
    }
}

/// Who a request is acting for, and how it proved it.
public struct Identity: Sendable {
    public enum Credential: Sendable, Equatable {
        case session(tokenHash: String, csrfToken: String)
        case apiToken(id: String, scopes: TokenScopes)
    }
    public let user: User
    public let credential: Credential
}
