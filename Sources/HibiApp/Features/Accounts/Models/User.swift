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
}

/// Who a request is acting for, and how it proved it.
public struct Identity: Sendable {
    public enum Credential: Sendable, Equatable {
        case session(tokenHash: String, csrfToken: String)
        case apiToken(id: String)
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
}

public struct TokenResponse: Codable, Sendable {
    public let id: String
    public let name: String
    public let prefix: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    /// Present only in the answer to creation: the secret is never stored, so it cannot be shown later.
    public let token: String?
}

extension User {
    var me: MeResponse {
        MeResponse(id: id, username: username, displayName: displayName, isAdmin: isAdmin,
                   language: language?.rawValue, timeZone: timeZone)
    }
}
