import Foundation
import Hummingbird

/// The "Saved places" page: list (paged), log a visit at one, remove one.
struct SavedPlaceWebRoutes: Sendable {
    let visits: VisitService

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(VisitPaths.savedPlaces), use: list)
        router.post(RouterPath(VisitPaths.savedPlaceVisit(":id")), use: logVisit)
        router.post(RouterPath(VisitPaths.deleteSavedPlace(":id")), use: delete)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let page = PageRequest.web(page: request.uri.formQuery.get("page"), perPage: SavedPlaceViews.perPage)
        let (places, total) = try await visits.savedPlaces(userID: user.id, page: page)
        let notice = request.uri.formQuery.get("deleted") != nil ? (VisitStrings.savedPlaceDeleted(context.language), Layout.NoticeKind.success) : nil
        return HTMLPage(SavedPlaceViews.list(context: context.base, user: user, places: places, total: total, page: page, now: context.now, notice: notice))
    }

    @Sendable func logVisit(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        _ = try await visits.savedPlace(userID: user.id, id: id)
        var request = request
        let form = try await request.form()
        let text = form["visitedAt"] ?? ""
        let zone = VisitRequestReading.zone(user)
        do {
            let at: Date
            if text.isEmpty {
                at = context.now
            } else if let parsed = VisitViews.parseLocalInput(text, timeZone: zone) {
                at = parsed
            } else {
                throw VisitViews.yearIsOutOfRange(text) ? VisitError.yearOutOfRange(field: "visitedAt") : VisitError.invalidDate(field: "visitedAt")
            }
            let visit = try await visits.logVisit(userID: user.id, savedPlaceID: id, at: at, notes: nil, now: context.now)
            return Response.redirect(to: VisitPaths.saved(visit.id), type: .found)
        } catch let error as VisitError where error != .savedPlaceNotFound {
            let page = PageRequest.web(page: nil, perPage: SavedPlaceViews.perPage)
            let (places, total) = try await visits.savedPlaces(userID: user.id, page: page)
            return try HTMLPage(SavedPlaceViews.list(context: context.base, user: user, places: places, total: total, page: page, now: context.now,
                                                     notice: (error.message(context.language), .error)), status: .badRequest)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await visits.deleteSavedPlace(userID: user.id, id: try context.parameters.require("id"))
        return Response.redirect(to: VisitPaths.savedPlaceDeleted, type: .found)
    }
}

/// `/api/v1/visits/saved-places`: list, read, delete, and log a visit at one.
struct SavedPlaceAPIRoutes: Sendable {
    let visits: VisitService

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(VisitAPIPaths.savedPlaces), use: list)
        api.get(RouterPath(VisitAPIPaths.savedPlace(":id")), use: place)
        api.delete(RouterPath(VisitAPIPaths.savedPlace(":id")), use: delete)
        api.post(RouterPath(VisitAPIPaths.savedPlaceVisits(":id")), use: logVisit)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> JSONBody<SavedPlaceListResponse> {
        let user = context.user
        let query = request.uri.formQuery
        let page = try PageRequest.api(page: query.get("page"), perPage: query.get("perPage"), defaultPerPage: 100, maxPerPage: 1000)
        let (places, total) = try await visits.savedPlaces(userID: user.id, page: page)
        return JSONBody(SavedPlaceListResponse(places: places.map(SavedPlaceResponse.init), total: total, page: page.page, perPage: page.perPage))
    }

    @Sendable func place(_ request: Request, context: SignedInContext) async throws -> JSONBody<SavedPlaceResponse> {
        let user = context.user
        return JSONBody(SavedPlaceResponse(try await visits.savedPlace(userID: user.id, id: try context.parameters.require("id"))))
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        try await visits.deleteSavedPlace(userID: user.id, id: try context.parameters.require("id"))
        return Response(status: .noContent)
    }

    @Sendable func logVisit(_ request: Request, context: SignedInContext) async throws -> JSONBody<VisitResponse> {
        let user = context.user
        let id = try context.parameters.require("id")
        // The place is looked up before the body is read: another person's id is a 404 whatever is sent.
        _ = try await visits.savedPlace(userID: user.id, id: id)
        var request = request
        let body = try await request.json(SavedPlaceVisitRequest.self, limit: 16 * 1024)
        let visit = try await visits.logVisit(userID: user.id, savedPlaceID: id, at: body.visitedAt ?? context.now, notes: body.notes, now: context.now)
        return JSONBody(VisitResponse(visit, language: context.language), status: .created)
    }
}
