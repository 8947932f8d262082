import Foundation
import Hummingbird

/// `GET`/`PATCH /api/v1/me` and the personal API tokens.
struct AccountAPIRoutes: Sendable {
    let accounts: AccountService
    let tokens: TokenStore
    let bodyLimit: Int
    let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(AccountAPIPaths.me), use: me)
        api.patch(RouterPath(AccountAPIPaths.me), use: updateMe)
        api.get(RouterPath(AccountAPIPaths.tokens), use: listTokens)
        api.post(RouterPath(AccountAPIPaths.tokens), use: createToken)
        api.delete(RouterPath(AccountAPIPaths.token(":id")), use: revokeToken)
    }

    @Sendable func me(_ request: Request, context: SignedInContext) async throws -> JSONBody<MeResponse> {
        JSONBody(context.user.me)
    }

    @Sendable func updateMe(_ request: Request, context: SignedInContext) async throws -> JSONBody<MeResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(UpdateMeRequest.self, limit: bodyLimit)
        let updated = try await accounts.updateProfile(user: user, displayName: body.displayName, language: body.language, timeZone: body.timeZone)
        return JSONBody(updated.me)
    }

    @Sendable func listTokens(_ request: Request, context: SignedInContext) async throws -> JSONBody<[TokenResponse]> {
        let user = context.user
        return JSONBody(try await tokens.list(userID: user.id).map(Self.response))
    }

    @Sendable func createToken(_ request: Request, context: SignedInContext) async throws -> JSONBody<TokenResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(CreateTokenRequest.self, limit: bodyLimit)
        let scopes = try body.scopes.map { try TokenScopes(names: $0) } ?? .standard
        let (secret, record) = try await accounts.createToken(user: user, credential: context.identity?.credential, name: body.name,
                                                              scopes: scopes, password: body.password,
                                                              diaryUnlocked: try await diaryUnlocked(context.base), now: context.now)
        return JSONBody(Self.response(record, secret: secret), status: .created)
    }

    @Sendable func revokeToken(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await tokens.revoke(id: try context.parameters.require("id"), userID: user.id) else {
            throw AccountError.tokenNotFound
        }
        return Response(status: .noContent)
    }

    static func response(_ token: APIToken) -> TokenResponse {
        response(token, secret: nil)
    }

    static func response(_ token: APIToken, secret: String?) -> TokenResponse {
        TokenResponse(id: token.id, name: token.name, prefix: token.prefix, createdAt: token.createdAt,
                      lastUsedAt: token.lastUsedAt, scopes: token.scopes.names, token: secret)
    }
}
