import Foundation

public struct APIToken: Sendable, Equatable {
    public let id: String
    public let userID: String
    public let name: String
    public let prefix: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    public var scopes: TokenScopes = .standard
}

extension TokenScopes {
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
