import Foundation
import Hummingbird

/// Pages: list + map, form, detail with history and photos, verify, places, import/export.
struct VisitWebRoutes: Sendable {
    let visits: VisitService
    let signer: VisitSigner
    /// Read per page: an administrator may choose or drop the tile server at any time.
    let tiles: MapTileServer

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(VisitPaths.list), use: list)
        router.get(RouterPath(VisitPaths.new), use: newPage)
        router.post(RouterPath(VisitPaths.list), use: create)
        router.get(RouterPath(VisitPaths.verify), use: verify)
        router.get(RouterPath(VisitPaths.places), use: places)
        router.get(RouterPath(VisitPaths.transfer), use: transfer)
        router.post(RouterPath(VisitPaths.webhook), use: saveWebhook)
        router.post(RouterPath(VisitPaths.webhookSend), use: sendHead)
        router.get(RouterPath(VisitPaths.visit(":id")), use: visit)
        router.get(RouterPath(VisitPaths.edit(":id")), use: editPage)
        router.post(RouterPath(VisitPaths.visit(":id")), use: update)
        router.post(RouterPath(VisitPaths.delete(":id")), use: delete)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let query = VisitRequestReading.query(request)
        let filter: VisitFilter
        do {
            filter = try VisitQuery.parse(query, timeZone: VisitRequestReading.zone(user))
        } catch {
            return HTMLPage(VisitViews.index(context: context.base, user: user, visits: [], query: query, notice: nil, tileURL: await tiles.current(now: context.now))
                .withError(error.message(context.language)), status: .badRequest)
        }
        let notice = request.uri.formQuery.get("deleted") != nil ? VisitStrings.deleted(context.language) : nil
        let list = try await visits.list(userID: user.id, filter: filter)
        return HTMLPage(VisitViews.index(context: context.base, user: user, visits: list, query: query, notice: notice, tileURL: await tiles.current(now: context.now),
                                         routesURL: VisitViews.workoutRoutesURL(from: filter.from, to: filter.to)))
    }

    @Sendable func newPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        return HTMLPage(VisitViews.form(context: context.base, visit: nil, values: VisitFormValues(), error: nil, tileURL: await tiles.current(now: context.now)))
    }

    @Sendable func create(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        var request = request
        let values = VisitFormValues(form: try await request.form())
        let now = context.now
        do {
            let visit = try await visits.create(userID: user.id, fields: values.fields(timeZone: VisitRequestReading.zone(user), now: now, language: context.language), now: now)
            return Response.redirect(to: VisitPaths.saved(visit.id), type: .found)
        } catch let error as VisitError {
            return try HTMLPage(VisitViews.form(context: context.base, visit: nil, values: values, error: error.message(context.language),
                                                tileURL: await tiles.current(now: context.now)), status: error.status == .notFound ? .notFound : .badRequest)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func verify(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let report = try await visits.verify(userID: user.id)
        return HTMLPage(VisitViews.verify(context: context.base, report: report, publicKey: try await signer.publicKeyBase64()))
    }

    @Sendable func places(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(VisitViews.places(context: context.base, stats: try await visits.stats(userID: user.id, timeZone: VisitRequestReading.zone(user))))
    }

    @Sendable func transfer(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(VisitViews.transfer(context: context.base, user: user, webhook: try await visits.webhookSettings(userID: user.id), notice: nil))
    }

    @Sendable func saveWebhook(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            let settings = try await visits.setWebhook(userID: user.id, url: form["url"])
            return HTMLPage(VisitViews.transfer(context: context.base, user: user, webhook: settings, notice: (CommonStrings.saved(context.language), .success)))
        } catch let error as VisitError {
            let settings = try await visits.webhookSettings(userID: user.id)
            return HTMLPage(VisitViews.transfer(context: context.base, user: user, webhook: settings,
                                                notice: (error.message(context.language), .error)), status: .badRequest)
        }
    }

    @Sendable func sendHead(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        try await visits.sendHead(userID: user.id, now: context.now)
        let settings = try await visits.webhookSettings(userID: user.id)
        return HTMLPage(VisitViews.transfer(context: context.base, user: user, webhook: settings, notice: nil))
    }

    @Sendable func visit(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        let visit: Visit
        do {
            visit = try await visits.get(userID: user.id, id: id)
        } catch VisitError.notFound {
            // The map names a visit by the shortest prefix of its id that is unique for this person.
            guard let full = try await visits.visitID(userID: user.id, prefix: id) else { throw VisitError.notFound }
            return Response.redirect(to: VisitPaths.visit(full), type: .found)
        }
        let history = try await visits.history(userID: user.id, visitID: id)
        let notice = request.uri.formQuery.get("saved") != nil ? VisitStrings.saved(context.language) : nil
        return try HTMLPage(VisitViews.detail(context: context.base, user: user, visit: visit, history: history, notice: notice, tileURL: await tiles.current(now: context.now)))
            .response(from: request, context: context.base)
    }

    @Sendable func editPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let visit = try await visits.get(userID: user.id, id: try context.parameters.require("id"))
        let values = VisitFormValues(visit: visit, timeZone: VisitRequestReading.zone(user), language: context.language)
        return HTMLPage(VisitViews.form(context: context.base, visit: visit, values: values, error: nil, tileURL: await tiles.current(now: context.now)))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        let existing = try await visits.get(userID: user.id, id: id)
        var request = request
        let values = VisitFormValues(form: try await request.form())
        do {
            let fields = try values.fields(timeZone: VisitRequestReading.zone(user), now: existing.fields.visitedAt, language: context.language)
            _ = try await visits.update(userID: user.id, id: id, fields: fields, now: context.now)
            return Response.redirect(to: VisitPaths.saved(id), type: .found)
        } catch let error as VisitError where error != .notFound {
            return try HTMLPage(VisitViews.form(context: context.base, visit: existing, values: values, error: error.message(context.language),
                                                tileURL: await tiles.current(now: context.now)), status: .badRequest)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await visits.delete(userID: user.id, id: try context.parameters.require("id"), now: context.now)
        return Response.redirect(to: VisitPaths.deleted, type: .found)
    }
}

extension Node {
    /// Puts an error notice at the top of a page's main content.
    func withError(_ message: String) -> Node {
        guard case let .element(tag, attributes, children) = self else { return self }
        if tag == "main" { return .element(tag, attributes, [Layout.notice(message, kind: .error)] + children) }
        return .element(tag, attributes, children.map { $0.withError(message) })
    }
}
