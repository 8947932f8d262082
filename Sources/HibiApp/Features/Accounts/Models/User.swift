import Foundation

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

public struct APIToken: Sendable, Equatable {
    public let id: String
    public let userID: String
    public let name: String
    public let prefix: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    public var scopes: TokenScopes = .standard
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

    /// Reads "read,write" or a list of names; an unknown name is an error, not silently dropped.
    public init(names list: [String]) throws(AccountError) {
        var scopes: TokenScopes = []
        for raw in list {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty { continue }
            guard let scope = Self.names.first(where: { $0.0 == name })?.1 else { throw .invalidTokenScope(raw) }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw .invalidTokenScope("") }
        self = scopes
    }

    /// The stored form; anything unreadable in the database counts as the narrowest (read).
    init(stored text: String) {
        self = (try? TokenScopes(names: text.split(separator: ",").map(String.init))) ?? .read
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

// MARK: API shapes

public struct MeResponse: Codable, Sendable {
    public let id: String
    public let username: String
    public let displayName: String
    public let isAdmin: Bool
    public let language: String?
    public let timeZone: String
}

public struct UpdateMeRequest: Codable, Sendable {
    public var displayName: String?
    public var language: String?
    public var timeZone: String?
}

public struct CreateTokenRequest: Codable, Sendable {
    public var name: String
    /// "read", "write", "diary"; read and write when absent.
    public var scopes: [String]?
    /// The account's password, needed from a session whose diary is locked.
    public var password: String?
}

public struct TokenResponse: Codable, Sendable {
    public let id: String
    public let name: String
    public let prefix: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let scopes: [String]
    /// Present only in the answer to creation: the secret is never stored, so it cannot be shown later.
    public let token: String?
}

extension User {
    var me: MeResponse {
        MeResponse(id: id, username: username, displayName: displayName, isAdmin: isAdmin,
                   language: language?.rawValue, timeZone: timeZone)
    }
}
