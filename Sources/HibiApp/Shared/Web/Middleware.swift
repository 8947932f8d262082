import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// Outermost: one JSON log line per request (path without query), metrics, and a last-resort 500.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext
    let metrics: HTTPMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Errors should have been mapped inside; reaching here means an internal fault.
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error).prefix(500))"])
            response = ErrorRenderer.render(status: .internalServerError, code: "internal_error",
                                            message: CommonStrings.errorTitle(context.language), path: request.uri.path,
                                            context: context)
        }
        let elapsed = ContinuousClock.now - start
        metrics.record(method: request.method.rawValue, status: response.status.code, elapsed: elapsed)
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "path": "\(LogRedaction.path(request.uri.path))",
            "status": "\(response.status.code)",
            "ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000))",
        ])
        return response
    }
}

/// Works out who is asking (session cookie or Bearer token) and in which language to answer.
struct IdentityMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext
    /// Who a token or a session cookie names (Accounts' stores, through `IdentityLookup`).
    let identities: any IdentityLookup
    let secureCookies: Bool
    var trustedProxies: [IPRange] = []
    /// Signs the pre-session CSRF token, so only a token this server issued counts (a cookie planted by
    /// another site or a sibling subdomain would otherwise let it forge a sign-in into its own account).
    let box: SealedBoxService
    let clock: WallClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.now = clock.now()
        // Assets are the same for everyone: no session lookup for them.
        if request.uri.path.hasPrefix("/static/") || request.uri.path.hasPrefix("/vendor/") {
            return try await next(request, context)
        }
        context.clientAddress = ClientAddress.resolve(peer: context.clientAddress, forwardedFor: request.headers[.xForwardedFor],
                                                      forwarded: request.headers[.forwarded], trusted: trustedProxies)
        let now = context.now
        // A wrong or revoked Bearer token must not fall back to a session cookie: the caller meant the token.
        var bearerFailed = false
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer",
               let identity = try await identities.identity(bearerToken: String(parts[1]), now: now), !identity.user.disabled {
                context.identity = identity
            } else {
                bearerFailed = true
            }
        }
        if context.identity == nil, !bearerFailed, let cookie = request.cookies[Cookies.session]?.value,
           let identity = try await identities.identity(sessionCookie: cookie, now: now), !identity.user.disabled {
            context.identity = identity
        }
        let languageCookie = request.cookies[Cookies.language].flatMap { Language(rawValue: $0.value) }
        context.language = context.user?.language ?? languageCookie ?? Language.negotiate(acceptLanguage: request.headers[.acceptLanguage])
        if case let .session(_, csrf) = context.identity?.credential {
            context.csrfToken = csrf
        }
        var newCSRFCookie: String?
        if context.csrfToken.isEmpty {
            let cookieName = PreSessionCSRF.cookieName(secure: secureCookies)
            let cookie: String
            if let existing = request.cookies[cookieName]?.value, PreSessionCSRF.isIssued(existing, box: box) {
                cookie = existing
                context.preSessionCSRFCookie = existing
            } else {
                cookie = PreSessionCSRF.newCookie(box: box)
                newCSRFCookie = cookie
            }
            context.csrfToken = PreSessionCSRF.token(cookie: cookie, now: now, box: box)
        }
        var response = try await next(request, context)
        if let newCSRFCookie {
            response.setCookie(Cookie(name: PreSessionCSRF.cookieName(secure: secureCookies), value: newCSRFCookie, path: "/",
                                      secure: secureCookies, httpOnly: true, sameSite: .strict))
        }
        return response
    }
}

/// Headers every answer carries. Pages may run only Hibi's own scripts (no inline script, no eval), be
/// framed by nobody, and leak no URL to other sites; a browser must take each type as declared.
/// Images may also come from the map tile server an administrator chose (none until one is chosen).
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext
    let mapTiles: MapTileServer

    static func contentSecurityPolicy(mapTileURL: String) -> String {
        var images = "'self' data: blob:"
        let tileSource = MapTileServer.imageSource(mapTileURL)
        if !tileSource.isEmpty { images += " " + tileSource }
        return [
            "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src \(images)",
            "media-src 'self' blob:", "connect-src 'self'", "font-src 'self' data:", "worker-src 'self'", "manifest-src 'self'",
            "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy(mapTileURL: await mapTiles.current(now: context.now))
        response.headers[.contentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }
}

/// A query string holding NUL is refused for every route: PostgreSQL cannot compare text with it
/// (`?tag=%00` was a 500), and no real link carries one.
struct QueryGuardMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let query = request.uri.query, query.contains("\u{0}") || query.range(of: "%00", options: .caseInsensitive) != nil {
            throw RequestError.invalidParameter("query", Text(en: "must not contain the NUL character", ja: "NUL 文字を含められません"))
        }
        return try await next(request, context)
    }
}

/// A personal API token does only what its scopes allow: reading needs `read`, anything else `write`
/// (the diary's own scope is checked by the diary lock).
struct TokenScopeMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if case let .apiToken(_, scopes) = context.identity?.credential {
            let reading = [.get, .head, .options].contains(request.method)
            guard scopes.contains(reading ? .read : .write) else { throw TokenScopeMissing(reading ? "read" : "write") }
        }
        return try await next(request, context)
    }
}

/// Every state-changing request is checked before its body is read: who is asking, and, for a
/// browser session, that the request came from Hibi's own page (forms carry `_csrf`, scripts send
/// `X-CSRF-Token`). Only after that does a route read the body, with its own limit. An anonymous
/// client may write only to the few paths that sign in, and only small bodies; everything else is
/// answered before a byte of the body is kept (a 262 MB anonymous upload used to be parsed whole).
/// Bearer-token API calls carry no ambient credential and need no CSRF token.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext
    /// Form bodies (sign-in, settings) are small; a larger one is refused.
    let formLimit: Int
    /// How much of a multipart body may be read to find its leading `_csrf` part.
    var leadingPartLimit = 16 * 1024
    /// Checks pre-session tokens (see `PreSessionCSRF`).
    let box: SealedBoxService
    /// Paths an anonymous client may write to: sign-in, first-run setup, the language switch.
    var anonymousWebPaths: Set<String> = [SitePage.signIn.path, SitePage.setup.path, SitePage.signOut.path, SitePage.language.path]
    /// API paths that a remembered device may call before anyone is signed in (face sign-in).
    var deviceAPIPaths: Set<String> = ["/api/v1/auth/face/challenge", "/api/v1/auth/face/frame",
                                       // Phones sending their position with HTTP Basic (username and API token), checked by the route.
                                       "/api/v1/locations/owntracks", "/api/v1/locations/overland"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard ![.get, .head, .options].contains(request.method) else { return try await next(request, context) }
        if case .apiToken = context.identity?.credential { return try await next(request, context) }
        let path = request.uri.path
        let isAPI = path.hasPrefix("/api/")
        if context.identity == nil {
            if isAPI {
                guard deviceAPIPaths.contains(path) else { throw RequestError.unauthenticated }
                // Face sign-in checks the device cookie before it reads a byte of the body. Without the cookie
                // there is no ambient credential to forge; with it, the page must prove its origin (below).
                if request.cookies[Cookies.device] == nil { return try await next(request, context) }
            } else {
                guard anonymousWebPaths.contains(path) else { throw RequestError.unauthenticated }
                // No anonymous page takes an upload.
                guard !request.isMultipart else { throw RequestError.unauthenticated }
            }
        }
        var request = request
        var presented = request.headers[.csrfToken]
        if presented == nil, !isAPI,
           request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            presented = try await request.form(limit: formLimit)["_csrf"]
        } else if presented == nil, !isAPI, request.isMultipart {
            if case let .field("_csrf", value) = try await request.multipartLeadingField(limit: leadingPartLimit) {
                presented = value
            }
        }
        guard let presented else { throw RequestError.csrfFailed }
        if case .session = context.identity?.credential {
            guard !context.csrfToken.isEmpty, Secrets.constantTimeEquals(presented, context.csrfToken) else {
                throw RequestError.csrfFailed
            }
        } else {
            switch PreSessionCSRF.verify(presented, cookie: context.preSessionCSRFCookie, now: context.now, box: box) {
            case .valid: break
            case .expired: throw RequestError.formExpired
            case .invalid: throw RequestError.csrfFailed
            }
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    // Literal names made of token characters always parse, so these unwraps cannot trap.
    static let csrfToken = HTTPField.Name("X-CSRF-Token")! // trap-check: literal header name
    static let fileName = HTTPField.Name("X-Filename")! // trap-check: literal header name
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")! // trap-check: literal header name
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")! // trap-check: literal header name
    static let forwarded = HTTPField.Name("Forwarded")! // trap-check: literal header name
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")! // trap-check: literal header name
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")! // trap-check: literal header name
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")! // trap-check: literal header name
}

/// Maps every error to the right status: JSON `{error: {code, message}}` under /api, a friendly page elsewhere.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = HibiRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let redirect as Redirect {
            return .redirect(to: redirect.location, type: .found)
        } catch let error as any UserFacingError {
            if error.status.code >= 500 {
                context.logger.error("request failed", metadata: ["code": "\(error.code)"])
            }
            var response = ErrorRenderer.render(status: error.status, code: error.code, message: error.message(context.language),
                                                path: request.uri.path, context: context)
            if let retryAfter = error.retryAfter {
                response.headers[.retryAfter] = String(retryAfter)
            }
            // A browser without a session asking for a page goes to sign-in instead of a bare 401 page.
            if case RequestError.unauthenticated = error, !request.uri.path.hasPrefix("/api/"), request.method == .get {
                let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return .redirect(to: SitePage.signIn.path + "?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"), type: .found)
            }
            return response
        } catch let error as any HTTPResponseError {
            let mapped: RequestError? = switch error.status {
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .contentTooLarge: .bodyTooLarge(limitBytes: context.maxUploadSize)
            case .unauthorized: .unauthenticated
            default: nil
            }
            if let mapped {
                return ErrorRenderer.render(status: mapped.status, code: mapped.code, message: mapped.message(context.language),
                                            path: request.uri.path, context: context)
            }
            if error.status.code >= 500 {
                context.logger.error("request failed", metadata: ["status": "\(error.status.code)"])
                return ErrorRenderer.render(status: error.status, code: "internal_error", message: CommonStrings.errorTitle(context.language),
                                            path: request.uri.path, context: context)
            }
            return ErrorRenderer.render(status: error.status, code: "bad_request",
                                        message: Text(en: "The request could not be processed.", ja: "リクエストを処理できませんでした。")(context.language),
                                        path: request.uri.path, context: context)
        } catch is NIOTooManyBytesError {
            let mapped = RequestError.bodyTooLarge(limitBytes: context.maxUploadSize)
            return ErrorRenderer.render(status: mapped.status, code: mapped.code, message: mapped.message(context.language),
                                        path: request.uri.path, context: context)
        } catch is EncryptionError {
            context.logger.critical("encrypted data could not be opened; check the data key")
            return ErrorRenderer.render(status: .internalServerError, code: "data_key_mismatch",
                                        message: Text(en: "Stored data could not be decrypted. The administrator must check the data key.",
                                                      ja: "保存データを復号できませんでした。管理者はデータキーを確認してください。")(context.language),
                                        path: request.uri.path, context: context)
        }
    }
}

struct APIErrorBody: Codable, Sendable {
    struct Detail: Codable, Sendable {
        let code: String
        let message: String
    }
    let error: Detail
}

enum ErrorRenderer {
    static func render(status: HTTPResponse.Status, code: String, message: String, path: String, context: HibiRequestContext) -> Response {
        if path.hasPrefix("/api/") || path == "/healthz" {
            let body = (try? JSONCoding.encoder.encode(APIErrorBody(error: .init(code: code, message: message)))) ?? Data()
            return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        let page = Layout.page(title: status == .notFound ? CommonStrings.notFoundTitle(context.language) : CommonStrings.errorTitle(context.language),
                               context: context) {
            el("article", .class("error-page")) {
                el("h1") { status == .notFound ? CommonStrings.notFoundTitle(context.language) : CommonStrings.errorTitle(context.language) }
                el("p", .class("error-message"), .role("alert")) { message }
                el("p", .class("muted")) { "HTTP \(status.code)" }
                // An expired sign-in or setup form: the same page again, with a fresh token.
                if code == RequestError.formExpired.code, [SitePage.signIn.path, SitePage.setup.path].contains(path) {
                    el("a", .href(path), .role("button")) { CommonStrings.freshForm(context.language) }
                } else {
                    el("a", .href("/"), .role("button")) { CommonStrings.backHome(context.language) }
                }
            }
        }
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: "<!doctype html>" + page.render())))
    }
}
