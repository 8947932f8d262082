import Foundation
import Logging

/// Account flows: first-run setup, sign-in with throttling, password changes, admin actions.
public struct AccountService: Sendable {
    let users: UserStore
    let sessions: SessionStore
    let tokens: TokenStore
    let throttle: LoginThrottleStore
    let hasher: PasswordHasher
    let policy: LoginThrottlePolicy
    let logger: Logger
    /// Holding a failed answer back is how sign-ins are slowed; tests may pass a recorder.
    let pause: @Sendable (TimeInterval) async -> Void
    /// A hash of a random secret at the configured cost, checked when the username does not exist.
    let decoyHash: DecoyHash

    public init(users: UserStore, sessions: SessionStore, tokens: TokenStore, throttle: LoginThrottleStore,
                hasher: PasswordHasher, policy: LoginThrottlePolicy, logger: Logger, decoyHash: DecoyHash,
                pause: @escaping @Sendable (TimeInterval) async -> Void = { seconds in
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                }) {
        self.users = users
        self.sessions = sessions
        self.tokens = tokens
        self.throttle = throttle
        self.hasher = hasher
        self.policy = policy
        self.logger = logger
        self.pause = pause
        self.decoyHash = decoyHash
    }

    public func needsSetup() async throws -> Bool {
        try await users.count() == 0
    }

    public func createUser(username rawName: String, displayName: String?, password: String, confirmation: String? = nil,
                           isAdmin: Bool, language: Language?, timeZone: String = "UTC", now: Date) async throws -> User {
        let username = try AccountRules.normalizeUsername(rawName)
        try AccountRules.validatePassword(password, confirmation: confirmation)
        let name = try AccountRules.normalizeDisplayName(displayName, fallback: username)
        let zone = try AccountRules.validateTimeZone(timeZone)
        if try await users.find(username: username) != nil { throw AccountError.usernameTaken }
        let user = User(id: UUID().uuidString.lowercased(), username: username, displayName: name,
                        passwordHash: try await hasher.hash(password), isAdmin: isAdmin, disabled: false,
                        language: language, timeZone: zone, createdAt: now, passwordChangedAt: now)
        try await users.insert(user)
        logger.notice("user created", metadata: ["admin": "\(isAdmin)"])
        return user
    }

    /// The first account is the administrator; once any account exists this path is closed.
    public func setup(username: String, displayName: String?, password: String, confirmation: String?,
                      language: Language?, timeZone: String, now: Date) async throws -> User {
        guard try await needsSetup() else { throw AccountError.setupAlreadyDone }
        return try await createUser(username: username, displayName: displayName, password: password,
                                    confirmation: confirmation, isAdmin: true, language: language, timeZone: timeZone, now: now)
    }

    /// Sign-in with growing delays per account and a hard lock only per (account, address): five wrong
    /// guesses from one address lock that address out of that account, never the owner elsewhere (nor,
    /// behind one proxy, everybody). Each attempt is counted in one statement before bcrypt runs, so
    /// parallel guesses beyond the allowance are refused without costing a hash.
    public func authenticate(username rawName: String, password: String, clientAddress: String, now: Date) async throws -> User {
        // A name no account can have is refused before it is stored anywhere or costs a hash.
        guard let username = AccountRules.signInName(rawName) else { throw AccountError.invalidCredentials }
        let pair = LoginSubjects.pair(username, clientAddress)
        if let remaining = policy.lockRemaining(try await throttle.state(subject: pair), now: now) {
            logger.warning("sign-in refused while locked", metadata: ["client_hash": "\(Self.pseudonym(clientAddress))"])
            throw AccountError.locked(retryAfter: remaining)
        }
        let attempt = try await throttle.reserve(subject: pair, policy: policy, now: now)
        if attempt.failures > policy.lockAfter {
            // A parallel attempt beyond the allowance: the lock may not be written yet, so write it.
            let until = attempt.lockedUntil ?? now.addingTimeInterval(policy.lockDuration)
            if attempt.lockedUntil == nil { try await throttle.lock(subject: pair, until: until) }
            throw AccountError.locked(retryAfter: max(1, Int(saturating: until.timeIntervalSince(now).rounded(.up))))
        }
        // The account as a whole, from every address, is only slowed, before the hash is checked.
        let account = try await throttle.reserve(subject: LoginSubjects.account(username), policy: policy, now: now)
        let delay = policy.delay(afterFailures: account.failures - 1)
        if delay > 0 { await pause(delay) }
        let user = try await users.find(username: username)
        let valid: Bool
        do {
            if let user {
                valid = try await hasher.verify(password, hash: user.passwordHash)
            } else {
                // Each unknown name costs a decoy hash, so each takes a token from its address's bucket first (a
                // flood of fresh names is refused, not hashed). That a refusal names no account is the price: an
                // address that has spent its bucket learns which names exist only at 10 a minute, as before.
                if let wait = try await throttle.takeToken(address: clientAddress, policy: policy, now: now) {
                    logger.warning("sign-in refused: unknown names from one address", metadata: ["client_hash": "\(Self.pseudonym(clientAddress))"])
                    throw AccountError.busy(retryAfter: wait)
                }
                // Spend the same time on unknown names so response times do not reveal which accounts exist.
                _ = try await hasher.verify(password, hash: try await decoyHash.value(), priority: .decoy)
                valid = false
            }
        } catch is PasswordHasher.Busy {
            throw AccountError.busy(retryAfter: 5)
        }
        guard valid, let user else {
            logger.warning("sign-in failed", metadata: ["failures": "\(attempt.failures)", "client_hash": "\(Self.pseudonym(clientAddress))",
                                                        "locked": "\(attempt.failures >= policy.lockAfter)"])
            if attempt.failures >= policy.lockAfter {
                try await throttle.lock(subject: pair, until: now.addingTimeInterval(policy.lockDuration))
                throw AccountError.locked(retryAfter: Int(saturating: policy.lockDuration))
            }
            throw AccountError.invalidCredentials
        }
        guard !user.disabled else { throw AccountError.accountDisabled }
        try await throttle.clear(subject: pair)
        try await throttle.clear(subject: LoginSubjects.account(username))
        return user
    }

    /// A new personal API token. From a browser session it needs the password again or an unlocked
    /// diary, so a session left open (diary locked) cannot mint a token that reads everything; from a
    /// token, only scopes that token has.
    public func createToken(user: User, credential: Identity.Credential?, name rawName: String, scopes: TokenScopes,
                            password: String?, diaryUnlocked: Bool, now: Date) async throws -> (token: String, record: APIToken) {
        let name = try AccountRules.validateTokenName(rawName)
        switch credential {
        case let .apiToken(_, own):
            guard own.isSuperset(of: scopes) else { throw AccountError.tokenScopeEscalation }
        case .session, nil:
            if !diaryUnlocked {
                guard let password, !password.isEmpty, try await hasher.verify(password, hash: user.passwordHash) else {
                    throw AccountError.reauthenticationRequired
                }
            }
        }
        let made = try await tokens.create(userID: user.id, name: name, scopes: scopes, now: now)
        logger.notice("api token created", metadata: ["scopes": "\(scopes.text)"])
        return made
    }

    public func changePassword(user: User, current: String, new: String, confirmation: String?, keepSession: String?, now: Date) async throws {
        guard try await hasher.verify(current, hash: user.passwordHash) else { throw AccountError.currentPasswordWrong }
        try AccountRules.validatePassword(new, confirmation: confirmation)
        var updated = user
        updated.passwordHash = try await hasher.hash(new)
        updated.passwordChangedAt = now
        try await users.update(updated)
        try await sessions.deleteAll(userID: user.id, except: keepSession)
        logger.notice("password changed")
    }

    /// Returns a generated temporary password and signs the user out everywhere.
    public func resetPassword(userID: String, now: Date) async throws -> (User, String) {
        guard var user = try await users.find(id: userID) else { throw AccountError.userNotFound }
        let temporary = Secrets.randomToken(bytes: 12)
        user.passwordHash = try await hasher.hash(temporary)
        user.passwordChangedAt = now
        try await users.update(user)
        try await sessions.deleteAll(userID: user.id)
        try await throttle.clear(account: user.username)
        logger.notice("password reset by administrator")
        return (user, temporary)
    }

    public func setPassword(userID: String, password: String, now: Date) async throws {
        guard var user = try await users.find(id: userID) else { throw AccountError.userNotFound }
        try AccountRules.validatePassword(password)
        user.passwordHash = try await hasher.hash(password)
        user.passwordChangedAt = now
        try await users.update(user)
        try await sessions.deleteAll(userID: user.id)
        try await throttle.clear(account: user.username)
    }

    public func setDisabled(userID: String, disabled: Bool, actingUserID: String?) async throws -> User {
        if disabled, userID == actingUserID { throw AccountError.cannotDisableYourself }
        guard var user = try await users.find(id: userID) else { throw AccountError.userNotFound }
        user.disabled = disabled
        try await users.update(user)
        if disabled { try await sessions.deleteAll(userID: user.id) }
        logger.notice("user \(disabled ? "disabled" : "enabled")")
        return user
    }

    public func updateProfile(user: User, displayName: String?, language: String?, timeZone: String?) async throws -> User {
        var updated = user
        if let displayName { updated.displayName = try AccountRules.normalizeDisplayName(displayName, fallback: user.username) }
        if let language {
            if language.isEmpty {
                updated.language = nil
            } else {
                guard let parsed = Language(rawValue: language) else { throw AccountError.invalidLanguage }
                updated.language = parsed
            }
        }
        if let timeZone { updated.timeZone = try AccountRules.validateTimeZone(timeZone) }
        try await users.update(updated)
        return updated
    }

    /// A stable short stand-in for a client address: lets an operator correlate failures without logging the address.
    static func pseudonym(_ value: String) -> String {
        String(Secrets.digest("hibi-client:" + value).prefix(12))
    }

}

/// The decoy bcrypt hash, made on first use. It costs a quarter second, which a one-off CLI command
/// (that never signs anyone in) should not pay; the server makes it at start (`AppCore.open`), so the
/// first unknown-name sign-in takes no longer than the later ones.
public actor DecoyHash {
    private let hasher: PasswordHasher
    private var hash: String?

    public init(hasher: PasswordHasher) {
        self.hasher = hasher
    }

    public func value() async throws -> String {
        if let hash { return hash }
        let made = try await hasher.hash(Secrets.randomToken())
        // Another caller may have finished first while this one hashed: keep the first.
        let kept = hash ?? made
        hash = kept
        return kept
    }
}
