import Foundation
import Hummingbird

struct DiaryUnlockRoutes: Sendable {
    let lock: DiaryLock
    let accounts: any PasswordCheck
    let faces: FaceTemplateStore
    let faceAvailable: Bool

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(DiaryPaths.unlock)) { request, context in
            let user = context.user
            let next = LocalRedirect.path(request.uri.formQuery.get("next"), fallback: DiaryPaths.list)
            return HTMLPage(UnlockViews.unlock(context: context.base, next: next, enrolled: try await faces.count(userID: user.id) > 0,
                                               faceAvailable: faceAvailable))
        }
        router.post(RouterPath(DiaryPaths.unlock)) { request, context in
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
        router.post(RouterPath(DiaryPaths.lock)) { _, context in
            try await lock.lock(context.base)
            return Response.redirect(to: DiaryPaths.unlock, type: .found)
        }
    }
}
