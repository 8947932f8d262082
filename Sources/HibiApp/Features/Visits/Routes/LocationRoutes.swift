import Foundation
import Hummingbird
import NIOCore

/// The "Detected stays" page and its forms.
struct LocationWebRoutes: Sendable {
    let locations: LocationService
    /// HIBI_PUBLIC_URL, if set: the address phones reach this server at (else the request's own host).
    let publicURL: URL?

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(VisitPaths.stays), use: staysPage)
        router.post(RouterPath(VisitPaths.staySettings), use: saveSettings)
        router.post(RouterPath(VisitPaths.confirmStay(":id")), use: confirm)
        router.post(RouterPath(VisitPaths.dismissStay(":id")), use: dismiss)
    }

    @Sendable func staysPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let query = request.uri.formQuery
        let notice: (String, Layout.NoticeKind)? = query.get("confirmed") != nil ? (LocationStrings.confirmed(context.language), .success)
            : query.get("dismissed") != nil ? (LocationStrings.dismissed(context.language), .success) : nil
        return try await page(user: user, request: request, context: context.base, notice: notice)
    }

    @Sendable func saveSettings(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            // "1,000" metres is a thousand; what does not read as one number falls to the range check's message.
            let typed = NumberInput.Source.typed(context.language)
            let distance = (try? NumberInput.parse(form["distance"], typed)).flatMap { $0 } ?? .nan
            let minutes = (try? NumberInput.parse(form["duration"], typed)).flatMap { $0 }.flatMap { Int(exactly: $0) } ?? -1
            let settings = StaySettings(distanceMeters: distance, durationMinutes: minutes)
            _ = try await locations.setSettings(userID: user.id, settings)
            return try await page(user: user, request: request, context: context.base, notice: (LocationStrings.saved(context.language), .success))
        } catch let error as LocationError {
            return try await page(user: user, request: request, context: context.base, notice: (error.message(context.language), .error), status: .badRequest)
        }
    }

    @Sendable func confirm(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let form = try await request.form()
        do {
            _ = try await locations.confirm(userID: user.id, id: id, name: form["name"], now: context.now)
            return Response.redirect(to: VisitPaths.stayConfirmed, type: .found)
        } catch let error as VisitError where error != .notFound {
            return try await page(user: user, request: request, context: context.base, notice: (error.message(context.language), .error), status: .badRequest)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func dismiss(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        _ = try await locations.dismiss(userID: user.id, id: try context.parameters.require("id"), now: context.now)
        return Response.redirect(to: VisitPaths.stayDismissed, type: .found)
    }

    private func page(user: User, request: Request, context: HibiRequestContext, notice: (String, Layout.NoticeKind)?,
                      status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let open = try await locations.stays(userID: user.id, status: .open)
        let decided = try await locations.stays(userID: user.id, status: nil, limit: 50).filter { $0.status != .open }
        let settings = try await locations.settings(userID: user.id)
        let hasHistory = try await locations.hasPoints(userID: user.id)
        return HTMLPage(LocationViews.stays(context: context, user: user, open: open, decided: decided, settings: settings, hasHistory: hasHistory,
                                            origin: PublicOrigin.of(configured: publicURL, host: request.head.authority), notice: notice), status: status)
    }
}

/// The location API: imports, stays (list, confirm, dismiss), settings, and the two phone endpoints.
struct LocationAPIRoutes: Sendable {
    let locations: LocationService
    let tokens: any TokenCheck
    let heavyWork: HeavyWork
    static let importLimit = 64 * 1024 * 1024
    /// OwnTracks sends one small message per request.
    static let ownTracksLimit = 64 * 1024
    /// Overland batches up to a few hundred points by default; 10,000 fit well inside this.
    static let overlandLimit = 8 * 1024 * 1024

    /// `signedIn` carries the person's own routes; `api` the two device endpoints, which authenticate
    /// themselves (HTTP Basic with a token, as OwnTracks sends it, or a Bearer token).
    func register(on api: some RouterMethods<HibiRequestContext>, signedIn: some RouterMethods<SignedInContext>) {
        signedIn.post(RouterPath(VisitAPIPaths.locationImport), use: importFile)
        signedIn.get(RouterPath(VisitAPIPaths.stays), use: stays)
        signedIn.post(RouterPath(VisitAPIPaths.confirmStay(":id")), use: confirm)
        signedIn.post(RouterPath(VisitAPIPaths.dismissStay(":id")), use: dismiss)
        signedIn.get(RouterPath(VisitAPIPaths.staySettings), use: settings)
        signedIn.put(RouterPath(VisitAPIPaths.staySettings), use: saveSettings)
        api.post(RouterPath(VisitAPIPaths.ownTracks), use: ownTracks)
        api.post(RouterPath(VisitAPIPaths.overland), use: overland)
    }

    @Sendable func importFile(_ request: Request, context: SignedInContext) async throws -> JSONBody<LocationImportResponse> {
        let user = context.user
        var request = request
        let data = try await Self.collect(&request, limit: Self.importLimit, tooLarge: .importTooLarge(limitBytes: Self.importLimit))
        let now = context.now
        let result = try await heavyWork.exclusive(userID: user.id) {
            try await locations.importFile(userID: user.id, stream: MemoryByteStream(Array(data)), now: now)
        }
        return JSONBody(LocationImportResponse(result, language: context.language), status: .created)
    }

    @Sendable func stays(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        let raw = request.uri.formQuery.get("status") ?? "open"
        let status: StayStatus?
        if raw == "all" { status = nil } else {
            guard let parsed = StayStatus(rawValue: raw) else { throw LocationError.invalidStatus }
            status = parsed
        }
        let limit = try QueryNumber.strict(request.uri.formQuery.get("limit"), name: "limit", range: 1...1000) ?? 500
        return JSONBody(try await locations.stays(userID: user.id, status: status, limit: limit))
    }

    @Sendable func confirm(_ request: Request, context: SignedInContext) async throws -> JSONBody<ConfirmStayResponse> {
        let user = context.user
        var request = request
        // The body is optional: {"name": "..."} renames the place before it is signed.
        let buffer = try await request.collectBody(limit: 16 * 1024)
        var name: String?
        if buffer.readableBytes > 0 {
            name = try JSONCoding.decode(ConfirmStayRequest.self, from: Data(buffer: buffer)).name
        }
        let (stay, visit) = try await locations.confirm(userID: user.id, id: try context.parameters.require("id"), name: name, now: context.now)
        return JSONBody(ConfirmStayResponse(stay: stay, visit: VisitResponse(visit, language: context.language)), status: .created)
    }

    @Sendable func dismiss(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await locations.dismiss(userID: user.id, id: try context.parameters.require("id"), now: context.now))
    }

    @Sendable func settings(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await locations.settings(userID: user.id))
    }

    @Sendable func saveSettings(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        var request = request
        let body = try await request.json(StaySettings.self, limit: 16 * 1024)
        return JSONBody(try await locations.setSettings(userID: user.id, body))
    }

    @Sendable func ownTracks(_ request: Request, context: HibiRequestContext) async throws -> JSONBody<[String]> {
        let user = try await deviceUser(request, context: context)
        var request = request
        let data = try await Self.collect(&request, limit: Self.ownTracksLimit, tooLarge: .bodyTooLarge(limitBytes: Self.ownTracksLimit))
        let parsed: (points: [LocationPoint], report: ImportReport)
        do { parsed = try LiveLocation.ownTracks(data) } catch { throw Self.invalid(error) }
        try await locations.receive(userID: user.id, points: parsed.points, report: parsed.report, source: "owntracks", now: context.now)
        // OwnTracks reads the answer as a list of messages for the phone (friends, commands): none.
        return JSONBody([String]())
    }

    @Sendable func overland(_ request: Request, context: HibiRequestContext) async throws -> JSONBody<[String: String]> {
        let user = try await deviceUser(request, context: context)
        var request = request
        let data = try await Self.collect(&request, limit: Self.overlandLimit, tooLarge: .bodyTooLarge(limitBytes: Self.overlandLimit))
        let parsed: (points: [LocationPoint], report: ImportReport)
        do { parsed = try LiveLocation.overland(data) } catch { throw Self.invalid(error) }
        try await locations.receive(userID: user.id, points: parsed.points, report: parsed.report, source: "overland", now: context.now)
        // Overland deletes its sent points only when it reads exactly this.
        return JSONBody(["result": "ok"])
    }

    static func invalid(_ failure: LiveLocation.Failure) -> LocationError {
        switch failure {
        case .notJSON: .payloadInvalid(reason: Text(en: "not valid JSON", ja: "正しい JSON ではありません"))
        case let .wrongShape(what): .payloadInvalid(reason: Text(en: what, ja: what))
        case .tooMany: .payloadInvalid(reason: Text(en: "more than \(LiveLocation.maxBatch) points", ja: "\(LiveLocation.maxBatch) 件を超えています"))
        }
    }

    /// The signed-in person (a Bearer token, checked by the middleware like any API call), or HTTP
    /// Basic with the username and a personal API token as the password, as OwnTracks sends it.
    func deviceUser(_ request: Request, context: HibiRequestContext) async throws -> User {
        if let user = context.user { return user }
        guard let header = request.headers[.authorization] else { throw LocationError.deviceUnauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: String(parts[1])),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
            throw LocationError.deviceUnauthorized
        }
        let username = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let token = String(text[text.index(after: colon)...])
        guard let (_, scopes, user) = try await tokens.authenticate(token: token, now: context.now), !user.disabled,
              user.username == username, scopes.contains(.write) else {
            throw LocationError.deviceUnauthorized
        }
        return user
    }

    static func collect(_ request: inout Request, limit: Int, tooLarge: LocationError) async throws -> Data {
        do {
            return Data(buffer: try await request.collectBody(upTo: limit))
        } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }
}

public struct ConfirmStayRequest: Codable, Sendable {
    public var name: String?
}

public struct ConfirmStayResponse: Codable, Sendable {
    public var stay: DetectedStay
    public var visit: VisitResponse
}

/// What the import answers: the result, and `imported` (new points) as the visits import names it.
public struct LocationImportResponse: Codable, Sendable, Equatable {
    public var imported: Int
    public var pointsStored: Int
    public var pointDuplicates: Int
    public var visitsImported: Int
    public var staysOffered: Int
    public var shape: String
    public var report: ImportReport
    public var summary: [String]

    init(_ result: LocationImportResult, language: Language) {
        imported = result.pointsStored
        pointsStored = result.pointsStored
        pointDuplicates = result.pointDuplicates
        visitsImported = result.visitsImported
        staysOffered = result.staysOffered
        shape = result.shape
        report = result.report
        summary = LocationStrings.summary(result, language)
    }
}
