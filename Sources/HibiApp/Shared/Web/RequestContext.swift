import Foundation
import Hummingbird
import NIOCore

public struct HibiRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: Identity?
    public var language: Language = .en
    /// Token every form on the page carries back; bound to the session, or to a pre-session cookie.
    public var csrfToken: String = ""
    /// The signed pre-session CSRF cookie this request brought, if any (what its form token must be bound to).
    var preSessionCSRFCookie: String?
    /// The peer's address, or the client's behind a trusted proxy (set by `IdentityMiddleware`).
    public var clientAddress: String
    /// The request's one "now", read from the app's injected clock by `IdentityMiddleware`, so handlers
    /// never call `Date()` and tests can move time.
    public var now: Date = Date()

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "local"
    }

    public var user: User? { identity?.user }

    /// The signed-in user, or the 401/redirect the route should give instead.
    public func requireUser() throws -> User {
        guard let user = identity?.user else { throw RequestError.unauthenticated }
        return user
    }

    public func requireAdmin() throws -> User {
        let user = try requireUser()
        guard user.isAdmin else { throw RequestError.forbidden }
        return user
    }
}

public enum Cookies {
    public static let session = "hibi_session"
    public static let csrf = "hibi_csrf"
    public static let language = "hibi_lang"
    /// A remembered device (long-lived, HttpOnly): lets this browser offer face sign-in.
    public static let device = "hibi_device"
}
