import Foundation
import Hummingbird

struct AccountAPIRoutes: Sendable {
    let accounts: AccountService
    let tokens: TokenStore
    let bodyLimit: Int
    let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get("me") { _, context in
            JSONBody(context.user.me)
        }
        api.patch("me") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(UpdateMeRequest.self, limit: bodyLimit)
            let updated = try await accounts.updateProfile(user: user, displayName: body.displayName, language: body.language, timeZone: body.timeZone)
            return JSONBody(updated.me)
        }
        api.get("tokens") { _, context in
            let user = context.user
            return JSONBody(try await tokens.list(userID: user.id).map(Self.response))
        }
        api.post("tokens") { request, context in
            let user = context.user
            var request = request
            let body = try await request.json(CreateTokenRequest.self, limit: bodyLimit)
            let scopes = try body.scopes.map { try TokenScopes(names: $0) } ?? .standard
            let (secret, record) = try await accounts.createToken(user: user, credential: context.identity?.credential, name: body.name,
                                                                  scopes: scopes, password: body.password,
                                                                  diaryUnlocked: try await diaryUnlocked(context.base), now: context.now)
            return JSONBody(Self.response(record, secret: secret), status: .created)
        }
        api.delete("tokens/:id") { _, context in
            let user = context.user
            guard try await tokens.revoke(id: try context.parameters.require("id"), userID: user.id) else {
                throw AccountError.tokenNotFound
            }
            return Response(status: .noContent)
        }
    }

    static func response(_ token: APIToken) -> TokenResponse {
        response(token, secret: nil)
    }

    static func response(_ token: APIToken, secret: String?) -> TokenResponse {
        TokenResponse(id: token.id, name: token.name, prefix: token.prefix, createdAt: token.createdAt,
                      lastUsedAt: token.lastUsedAt, scopes: token.scopes.names, token: secret)
    }
}
