import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import HibiApp

/// Issue 13, item 10: authorization by construction. A handler in a signed-in group gets its user from
/// the group's context; a handler in a diary group can only run after the lock middleware passed. Each
/// test builds the groups on a bare router and sends requests as the attacks would.
@Suite(.serialized) struct AuthorizedContextTests {
    /// How many times a handler ran.
    final class Calls: Sendable {
        let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Sets the identity from a test header, as the real identity middleware does from a cookie or token.
    struct TestIdentity: RouterMiddleware {
        typealias Context = HibiRequestContext
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var context = context
            let user = User(id: "u1", username: "aiko", displayName: "Aiko", passwordHash: "", isAdmin: false, disabled: false,
                            language: nil, timeZone: "UTC", createdAt: Date(), passwordChangedAt: Date())
            switch request.headers[HTTPField.Name("X-Test-As")!] {
            case "diary-token": context.identity = Identity(user: user, credential: .apiToken(id: "t1", scopes: .all))
            case "read-token": context.identity = Identity(user: user, credential: .apiToken(id: "t2", scopes: [.read]))
            default: break
            }
            return try await next(request, context)
        }
    }

    func withRouter(_ body: (Router<HibiRequestContext>, DiaryLock, Calls) -> Void,
                    _ test: @escaping @Sendable (any TestClientProtocol, Calls) async throws -> Void) async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        do {
            let router = Router(context: HibiRequestContext.self)
            router.add(middleware: ErrorMiddleware())
            router.add(middleware: TestIdentity())
            let calls = Calls()
            body(router, core.features.diary.lock, calls)
            try await Application(router: router).test(.router) { client in try await test(client, calls) }
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    @Test func aSignedInGroupAnswers401BeforeItsHandlerRuns() async throws {
        try await withRouter({ router, _, calls in
            router.signedIn().post("/probe") { _, context in
                calls.add()
                return context.user.username
            }
        }) { client, calls in
            #expect(try await client.execute(uri: "/probe", method: .post, body: ByteBuffer(string: "x")).status == .unauthorized)
            #expect(calls.value == 0)
            let signedIn = try await client.execute(uri: "/probe", method: .post, headers: [HTTPField.Name("X-Test-As")!: "read-token"])
            #expect(signedIn.status == .ok)
            #expect(String(buffer: signedIn.body) == "aiko")
        }
    }

    @Test func aDiaryGroupRunsItsHandlerOnlyAfterTheLockPassed() async throws {
        try await withRouter({ router, lock, calls in
            router.diary(lock).post("/api/v1/diary-probe") { request, context in
                calls.add()
                var request = request
                _ = try await request.collectBody(upTo: 1 << 20)
                return context.user.username
            }
        }) { client, calls in
            let header = HTTPField.Name("X-Test-As")!
            // A token without the diary scope is refused before the handler (and before the body is read).
            let refused = try await client.execute(uri: "/api/v1/diary-probe", method: .post, headers: [header: "read-token"], body: ByteBuffer(string: "secret"))
            #expect(refused.status == .forbidden)
            #expect(String(buffer: refused.body).contains("token_scope"))
            #expect(try await client.execute(uri: "/api/v1/diary-probe", method: .post).status == .unauthorized)
            #expect(calls.value == 0)
            #expect(try await client.execute(uri: "/api/v1/diary-probe", method: .post, headers: [header: "diary-token"]).status == .ok)
            #expect(calls.value == 1)
        }
    }

    @Test func aDiaryGroupThatForgotTheLockMiddlewareRefusesEveryone() async throws {
        try await withRouter({ router, _, calls in
            router.signedIn().group(context: DiaryContext.self).get("/api/v1/forgot") { _, _ in
                calls.add()
                return "diary"
            }
        }) { client, calls in
            let page = try await client.execute(uri: "/api/v1/forgot", method: .get, headers: [HTTPField.Name("X-Test-As")!: "diary-token"])
            #expect(page.status == .forbidden)
            #expect(String(buffer: page.body).contains("diary_locked"))
            #expect(calls.value == 0)
        }
    }
}
