import Foundation
import Hummingbird

/// The diary's lock screen and its lock button: signed-in routes, since a locked diary is what they open.
struct DiaryUnlockRoutes: Sendable {
    let lock: DiaryLock
    let accounts: any PasswordCheck
    let faces: FaceTemplateStore
    let faceAvailable: Bool

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(DiaryPaths.unlock), use: unlockPage)
        router.post(RouterPath(DiaryPaths.unlock), use: unlock)
        router.post(RouterPath(DiaryPaths.lock), use: lockDiary)
    }

    @Sendable func unlockPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let next = LocalRedirect.path(request.uri.formQuery.get("next"), fallback: DiaryPaths.list)
        return HTMLPage(UnlockViews.unlock(context: context.base, next: next, enrolled: try await faces.count(userID: user.id) > 0,
                                           faceAvailable: faceAvailable))
    }

    @Sendable func unlock(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        let next = LocalRedirect.path(form["next"], fallback: DiaryPaths.list)
        do {
            // Same throttling as sign-in: the password path must not become a way around the lockout.
            _ = try await accounts.authenticate(username: user.username, password: form["password"] ?? "",
                                                clientAddress: context.clientAddress, now: context.now)
            try await lock.unlock(context.base, now: context.now)
            return Response.redirect(to: next, type: .found)
        } catch let error as any UserFacingError {
            return try HTMLPage(UnlockViews.unlock(context: context.base, next: next, enrolled: try await faces.count(userID: user.id) > 0,
                                                   faceAvailable: faceAvailable, error: error.message(context.language)),
                                status: error.status).response(from: request, context: context.base)
        }
    }

    @Sendable func lockDiary(_ request: Request, context: SignedInContext) async throws -> Response {
        try await lock.lock(context.base)
        return Response.redirect(to: DiaryPaths.unlock, type: .found)
    }
}
