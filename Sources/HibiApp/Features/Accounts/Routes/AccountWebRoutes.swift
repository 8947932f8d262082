import Foundation
import Synchronization
import Hummingbird

/// Pages for setup, sign-in/out, settings and language. Each handler decodes the form,
/// calls AccountService, and renders; validation errors re-render the form with the message.
struct AccountWebRoutes: Sendable {
    let accounts: AccountService
    let sessions: SessionStore
    let tokens: TokenStore
    let devices: DeviceStore
    /// What to offer a remembered device: the face box when its user can sign in with their face.
    let faceSignIn: FaceSignInRoutes
    let setupState: SetupState
    let secureCookies: Bool
    let sessionLifetime: TimeInterval
    /// Whether this session's diary is open: then a token may be made without the password again.
    let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool
    /// The uploaded video files a takeout would carry, so the settings page gives the size before the download.
    let takeoutVideos: @Sendable (String) async throws -> (count: Int, bytes: Int64)

    /// `router` serves everyone (sign-in, setup); `signedIn` is a group whose handlers get their user from it.
    /// `/` is the journal's: today's page (JournalOverviewRoutes).
    func register(on router: some RouterMethods<HibiRequestContext>, signedIn: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(AccountPaths.setup), use: setupPage)
        router.post(RouterPath(AccountPaths.setup), use: setup)
        router.get(RouterPath(AccountPaths.login), use: loginPage)
        router.post(RouterPath(AccountPaths.login), use: login)
        router.post(RouterPath(AccountPaths.logout), use: logout)
        router.post(RouterPath(AccountPaths.logoutEverywhere), use: logoutEverywhere)
        router.post(RouterPath(AccountPaths.language), use: language)
        signedIn.get(RouterPath(AccountPaths.settings), use: settings)
        signedIn.post(RouterPath(AccountPaths.profile), use: profile)
        signedIn.post(RouterPath(AccountPaths.password), use: password)
        signedIn.post(RouterPath(AccountPaths.tokens), use: createToken)
        signedIn.post(RouterPath(AccountPaths.revokeToken(":id")), use: revokeToken)
        signedIn.post(RouterPath(AccountPaths.revokeDevice(":id")), use: revokeDevice)
    }

    @Sendable func setupPage(_ request: Request, context: HibiRequestContext) async throws -> Response {
        guard try await setupState.needsSetup() else { return .redirect(to: context.user == nil ? AccountPaths.login : "/", type: .found) }
        return try HTMLPage(AccountViews.setup(context: context)).response(from: request, context: context)
    }

    @Sendable func setup(_ request: Request, context: HibiRequestContext) async throws -> Response {
        var request = request
        let form = try await request.form()
        let username = form["username"] ?? ""
        do {
            let user = try await accounts.setup(
                username: username, displayName: form["display_name"], password: form["password"] ?? "",
                confirmation: form["password_confirm"] ?? "", language: nil,
                timeZone: form["time_zone"].flatMap { TimeZone(identifier: $0) }?.identifier ?? "UTC", now: context.now
            )
            setupState.markDone()
            return try await signedIn(user: user, redirect: "/", context: context)
        } catch let error as AccountError {
            if error == .setupAlreadyDone { return .redirect(to: AccountPaths.login, type: .found) }
            return try HTMLPage(AccountViews.setup(context: context, error: error.message(context.language), username: username,
                                                   displayName: form["display_name"] ?? ""), status: error.status)
                .response(from: request, context: context)
        }
    }

    @Sendable func loginPage(_ request: Request, context: HibiRequestContext) async throws -> Response {
        if try await setupState.needsSetup() { return .redirect(to: AccountPaths.setup, type: .found) }
        let next = LocalRedirect.path(request.uri.formQuery.get("next"))
        if context.user != nil { return .redirect(to: next, type: .found) }
        return try HTMLPage(AccountViews.login(context: context, next: next, face: try await faceBox(request, context, next: next)))
            .response(from: request, context: context)
    }

    func faceBox(_ request: Request, _ context: HibiRequestContext, next: String) async throws -> Node? {
        guard let token = request.cookies[Cookies.device]?.value else { return nil }
        return try await faceSignIn.offer(deviceToken: token, context: context, next: next)
    }

    @Sendable func settings(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        HTMLPage(try await settingsView(context.base, user: context.user))
    }

    @Sendable func revokeDevice(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await devices.revoke(id: try context.parameters.require("id"), userID: user.id) else { throw AccountError.deviceNotFound }
        return Response.redirect(to: AccountPaths.settings(section: "devices"), type: .found)
    }

    func settingsView(_ context: HibiRequestContext, user: User, notices: AccountViews.SettingsNotices = .init()) async throws -> Node {
        AccountViews.settings(context: context, user: user, tokens: try await tokens.list(userID: user.id),
                              devices: try await devices.list(userID: user.id, now: context.now), notices: notices,
                              takeoutVideos: try await takeoutVideos(user.id))
    }

    @Sendable func login(_ request: Request, context: HibiRequestContext) async throws -> Response {
        var request = request
        let form = try await request.form()
        let username = form["username"] ?? ""
        let next = LocalRedirect.path(form["next"])
        do {
            let user = try await accounts.authenticate(username: username, password: form["password"] ?? "",
                                                       clientAddress: context.clientAddress, now: context.now)
            var response = try await signedIn(user: user, redirect: next, context: context)
            if form.bool("remember_device") {
                // One device row per browser and user: a browser already remembered for this user keeps its token.
                let old = request.cookies[Cookies.device]?.value
                var current: User?
                if let old { current = try await devices.find(token: old, now: context.now)?.user }
                if current?.id != user.id {
                    if let old { try await devices.revoke(token: old) }
                    let token = try await devices.create(userID: user.id, label: AccountRules.deviceLabel(userAgent: request.headers[.userAgent]), now: context.now)
                    response.setCookie(Cookie(name: Cookies.device, value: token, maxAge: Int(saturating: DeviceStore.lifetime), path: "/",
                                              secure: secureCookies, httpOnly: true, sameSite: .lax))
                }
            }
            return response
        } catch let error as AccountError {
            var response = try HTMLPage(AccountViews.login(context: context, error: error.message(context.language), username: username, next: next,
                                                           face: try await faceBox(request, context, next: next)),
                                        status: error.status).response(from: request, context: context)
            if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        }
    }

    func signedIn(user: User, redirect: String, context: HibiRequestContext) async throws -> Response {
        let (token, _) = try await sessions.create(userID: user.id, now: context.now)
        var response = Response.redirect(to: redirect, type: .found)
        for cookie in SessionCookies.signedIn(token: token, user: user, lifetime: sessionLifetime, secure: secureCookies) { response.setCookie(cookie) }
        return response
    }

    @Sendable func logout(_ request: Request, context: HibiRequestContext) async throws -> Response {
        try await signOut(context, everywhere: false)
    }

    @Sendable func logoutEverywhere(_ request: Request, context: HibiRequestContext) async throws -> Response {
        try await signOut(context, everywhere: true)
    }

    func signOut(_ context: HibiRequestContext, everywhere: Bool) async throws -> Response {
        if let identity = context.identity, case let .session(hash, _) = identity.credential {
            if everywhere {
                try await sessions.deleteAll(userID: identity.user.id)
            } else {
                try await sessions.delete(tokenHash: hash)
            }
        }
        var response = Response.redirect(to: AccountPaths.login, type: .found)
        response.setCookie(Cookie(name: Cookies.session, value: "", maxAge: 0, path: "/", secure: secureCookies, httpOnly: true, sameSite: .lax))
        return response
    }

    @Sendable func language(_ request: Request, context: HibiRequestContext) async throws -> Response {
        var request = request
        let form = try await request.form()
        guard let language = Language(rawValue: form["language"] ?? "") else { throw AccountError.invalidLanguage }
        if let user = context.user {
            _ = try await accounts.updateProfile(user: user, displayName: nil, language: language.rawValue, timeZone: nil)
        }
        let back = LocalRedirect.path(request.headers[.referer].flatMap { URL(string: $0) }.map { url in
            url.path + (url.query.map { "?" + $0 } ?? "")
        })
        var response = Response.redirect(to: back, type: .found)
        response.setCookie(SessionCookies.language(language, secure: secureCookies))
        return response
    }

    @Sendable func profile(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        var context = context.base
        var request = request
        let form = try await request.form()
        do {
            let updated = try await accounts.updateProfile(user: user, displayName: form["display_name"] ?? user.displayName,
                                                           language: form["language"], timeZone: form["time_zone"])
            if let language = updated.language { context.language = language }
            if let credential = context.identity?.credential { context.identity = Identity(user: updated, credential: credential) }
            var response = try HTMLPage(try await settingsView(context, user: updated, notices: .init(profile: (CommonStrings.saved(context.language), .success))))
                .response(from: request, context: context)
            if let language = updated.language { response.setCookie(SessionCookies.language(language, secure: secureCookies)) }
            return response
        } catch let error as AccountError {
            return try HTMLPage(try await settingsView(context, user: user, notices: .init(profile: (error.message(context.language), .error))), status: error.status)
                .response(from: request, context: context)
        }
    }

    @Sendable func password(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let context = context.base
        var request = request
        let form = try await request.form()
        var keep: String?
        if case let .session(hash, _) = context.identity?.credential { keep = hash }
        let notice: (String, Layout.NoticeKind)
        var status = HTTPResponse.Status.ok
        do {
            try await accounts.changePassword(user: user, current: form["current_password"] ?? "", new: form["new_password"] ?? "",
                                              confirmation: form["new_password_confirm"] ?? "", keepSession: keep, now: context.now)
            notice = (CommonStrings.passwordChanged(context.language), .success)
        } catch let error as AccountError {
            notice = (error.message(context.language), .error)
            status = error.status
        }
        return try HTMLPage(try await settingsView(context, user: user, notices: .init(password: notice)), status: status)
            .response(from: request, context: context)
    }

    @Sendable func createToken(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let context = context.base
        var request = request
        let form = try await request.form()
        do {
            var scopes: TokenScopes = [.read]
            if form["scope_write"] != nil { scopes.insert(.write) }
            if form["scope_diary"] != nil { scopes.insert(.diary) }
            let (secret, _) = try await accounts.createToken(user: user, credential: context.identity?.credential, name: form["name"] ?? "",
                                                             scopes: scopes, password: form["password"],
                                                             diaryUnlocked: try await diaryUnlocked(context), now: context.now)
            return try HTMLPage(try await settingsView(context, user: user, notices: .init(newToken: secret)), status: .created)
                .response(from: request, context: context)
        } catch let error as AccountError {
            return try HTMLPage(try await settingsView(context, user: user, notices: .init(tokens: (error.message(context.language), .error))), status: error.status)
                .response(from: request, context: context)
        }
    }

    @Sendable func revokeToken(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let context = context.base
        let id = try context.parameters.require("id")
        guard try await tokens.revoke(id: id, userID: user.id) else { throw AccountError.tokenNotFound }
        return .redirect(to: AccountPaths.settings(section: "tokens"), type: .found)
    }
}

/// Whether the first account exists yet. Once true it never goes back, so it is cached
/// and costs no query per request after setup.
public final class SetupState: Sendable {
    private let done = Mutex(false)
    let users: UserStore

    init(users: UserStore) {
        self.users = users
    }

    public func needsSetup() async throws -> Bool {
        if done.withLock({ $0 }) { return false }
        let needs = try await users.count() == 0
        if !needs { markDone() }
        return needs
    }

    func markDone() {
        done.withLock { $0 = true }
    }
}
