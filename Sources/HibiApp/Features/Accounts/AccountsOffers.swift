import Foundation

// Accounts' side of the protocols in Shared/Offers/Offers+Accounts.swift.
extension SessionStore: SessionUnlocks {}
extension LoginThrottleStore: LoginAttempts {}
extension AccountService: PasswordCheck {}
extension UserStore: PeopleDirectory {}
extension TokenStore: TokenCheck {}
extension SetupState: SetupCheck {}

/// Who a token or a session cookie names, for the identity middleware (`IdentityLookup`): the token store's
/// and the session store's own checks (expiry, revocation, the session's sliding lifetime).
struct AccountIdentities: IdentityLookup {
    let sessions: SessionStore
    let tokens: TokenStore

    func identity(bearerToken token: String, now: Date) async throws -> Identity? {
        guard let (tokenID, scopes, user) = try await tokens.authenticate(token: token, now: now) else { return nil }
        return Identity(user: user, credential: .apiToken(id: tokenID, scopes: scopes))
    }

    func identity(sessionCookie cookie: String, now: Date) async throws -> Identity? {
        guard let (session, user) = try await sessions.findWithUser(token: cookie, now: now) else { return nil }
        return Identity(user: user, credential: .session(tokenHash: session.tokenHash, csrfToken: session.csrfToken))
    }
}
