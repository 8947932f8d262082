import Foundation
import Hummingbird

/// The "Saved places" page: list (paged), log a visit at one, remove one.
struct SavedPlaceWebRoutes: Sendable {
    let visits: VisitService

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(VisitPaths.savedPlaces)) { request, context in
            let user = context.user
            let page = PageRequest.web(page: request.uri.formQuery.get("page"), perPage: SavedPlaceViews.perPage)
            let (places, total) = try await visits.savedPlaces(userID: user.id, page: page)
            let notice = request.uri.formQuery.get("deleted") != nil ? (VisitStrings.savedPlaceDeleted(context.language), Layout.NoticeKind.success) : nil
            return HTMLPage(SavedPlaceViews.list(context: context.base, user: user, places: places, total: total, page: page, now: context.now, notice: notice))
        }
        router.post(RouterPath(VisitPaths.savedPlaceVisit(":id"))) { request, context in
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
        router.post(RouterPath(VisitPaths.deleteSavedPlace(":id"))) { _, context in
            let user = context.user
            try await visits.deleteSavedPlace(userID: user.id, id: try context.parameters.require("id"))
            return Response.redirect(to: VisitPaths.savedPlaceDeleted, type: .found)
        }
    }
}

/// `/api/v1/visits/saved-places`: list, read, delete, and log a visit at one.
struct SavedPlaceAPIRoutes: Sendable {
    let visits: VisitService

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get("visits/saved-places") { request, context in
            let user = context.user
            let query = request.uri.formQuery
            let page = try PageRequest.api(page: query.get("page"), perPage: query.get("perPage"), defaultPerPage: 100, maxPerPage: 1000)
            let (places, total) = try await visits.savedPlaces(userID: user.id, page: page)
            return JSONBody(SavedPlaceListResponse(places: places.map(SavedPlaceResponse.init), total: total, page: page.page, perPage: page.perPage))
        }
        api.get("visits/saved-places/:id") { _, context in
            let user = context.user
            return JSONBody(SavedPlaceResponse(try await visits.savedPlace(userID: user.id, id: try context.parameters.require("id"))))
        }
        api.delete("visits/saved-places/:id") { _, context in
            let user = context.user
            try await visits.deleteSavedPlace(userID: user.id, id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        api.post("visits/saved-places/:id/visits") { request, context in
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
}
