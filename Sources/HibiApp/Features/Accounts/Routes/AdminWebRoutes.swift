import Foundation
import Hummingbird

struct AdminWebRoutes: Sendable {
    let accounts: AccountService
    let users: UserStore
    let mapTiles: MapTileServer

    func register(on router: some RouterMethods<AdminContext>) {
        router.get(RouterPath(AccountPaths.adminUsers), use: usersPage)
        router.post(RouterPath(AccountPaths.adminUsers), use: addUser)
        router.post(RouterPath(AccountPaths.setUserDisabled(":id", action: "disable")), use: disableUser)
        router.post(RouterPath(AccountPaths.setUserDisabled(":id", action: "enable")), use: enableUser)
        router.post(RouterPath(AccountPaths.resetUser(":id")), use: reset)
        router.get(RouterPath(AccountPaths.adminMap), use: mapPage)
        router.post(RouterPath(AccountPaths.adminMap), use: chooseMapTiles)
    }

    @Sendable func usersPage(_ request: Request, context: AdminContext) async throws -> HTMLPage {
        let me = context.user
        return HTMLPage(AccountViews.admin(context: context.base, users: try await users.all(), me: me))
    }

    @Sendable func mapPage(_ request: Request, context: AdminContext) async throws -> HTMLPage {
        HTMLPage(AccountViews.adminMap(context: context.base, tileURL: await mapTiles.current(now: context.now)))
    }

    @Sendable func chooseMapTiles(_ request: Request, context: AdminContext) async throws -> Response {
        var request = request
        let entered = try await request.form()["tile_url"] ?? ""
        do {
            let url = try await mapTiles.choose(entered, now: context.now)
            return try HTMLPage(AccountViews.adminMap(context: context.base, tileURL: url, notice: (AdminMapStrings.saved(context.language), .success)))
                .response(from: request, context: context.base)
        } catch MapTileError.invalid {
            return try HTMLPage(AccountViews.adminMap(context: context.base, tileURL: await mapTiles.current(now: context.now),
                                                      notice: (AdminMapStrings.invalid(context.language), .error), entered: entered),
                                status: .badRequest)
                .response(from: request, context: context.base)
        }
    }

    @Sendable func addUser(_ request: Request, context: AdminContext) async throws -> Response {
        let me = context.user
        var request = request
        let form = try await request.form()
        let notice: (String, Layout.NoticeKind)
        var status = HTTPResponse.Status.created
        do {
            _ = try await accounts.createUser(username: form["username"] ?? "", displayName: form["display_name"],
                                              password: form["password"] ?? "", isAdmin: form.bool("is_admin"),
                                              language: nil, timeZone: me.timeZone, now: context.now)
            notice = (CommonStrings.userAdded(context.language), .success)
        } catch let error as AccountError {
            notice = (error.message(context.language), .error)
            status = error.status
        }
        return try HTMLPage(AccountViews.admin(context: context.base, users: try await users.all(), me: me, notice: notice), status: status)
            .response(from: request, context: context.base)
    }

    @Sendable func disableUser(_ request: Request, context: AdminContext) async throws -> Response {
        try await setDisabled(context, true)
    }

    @Sendable func enableUser(_ request: Request, context: AdminContext) async throws -> Response {
        try await setDisabled(context, false)
    }

    func setDisabled(_ context: AdminContext, _ disabled: Bool) async throws -> Response {
        let me = context.user
        _ = try await accounts.setDisabled(userID: try context.parameters.require("id"), disabled: disabled, actingUserID: me.id)
        return .redirect(to: AccountPaths.adminUsers, type: .found)
    }

    @Sendable func reset(_ request: Request, context: AdminContext) async throws -> Response {
        let me = context.user
        let (user, temporary) = try await accounts.resetPassword(userID: try context.parameters.require("id"), now: context.now)
        if user.id == me.id {
            // Resetting your own password signed you out everywhere, this browser included.
            return .redirect(to: AccountPaths.login, type: .found)
        }
        return try HTMLPage(AccountViews.admin(context: context.base, users: try await users.all(), me: me, temporary: (user.username, temporary)))
            .response(from: request, context: context.base)
    }
}
