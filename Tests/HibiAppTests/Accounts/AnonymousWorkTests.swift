import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

/// Issue 28, items 6 and 7: anonymous sign-ins can neither fill the database nor take the CPU from the owner.
@Suite(.serialized) struct AnonymousWorkTests {
    static func attempt(_ client: any TestClientProtocol, csrf: String, cookie: String, username: String, password: String = "wrong guess",
                        from address: String, language: String = "en") async throws -> TestResponse {
        let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: cookie, .xForwardedFor: address,
                                   .acceptLanguage: language]
        let body = "_csrf=\(csrf)&username=\(username.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            + "&password=\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        return try await client.executeRequest(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func withSignedOutBrowser(clock: WallClock = .system,
                                     _ body: @escaping @Sendable (AppCore, any TestClientProtocol, String, String) async throws -> Void) async throws {
        let core = try await AppCore.open(try await ThrottleTests.fileConfig(), logger: TestApp.quietLogger, clock: clock)
        let app = await buildApplication(core: core)
        try await app.test(.live) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            try await browser.signOut()
            try await browser.get("/login")
            let csrf = try #require(browser.csrf)
            try await body(core, client, csrf, browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        await core.database.shutdown()
    }

    static func rows(_ core: AppCore) async throws -> (count: Int, longest: Int) {
        struct Row: Decodable { let subject: String }
        let all = try await core.database.sql.raw("SELECT subject FROM login_failures").all(decoding: Row.self)
        return (all.count, all.map(\.subject.utf8.count).max() ?? 0)
    }

    @Test func fortyAnonymousSignInsWithHugeNamesStoreNothing() async throws {
        try await Self.withSignedOutBrowser { core, client, csrf, cookie in
            let before = try await Self.rows(core)
            let huge = String(repeating: "a", count: 60_000)
            for i in 0..<40 {
                let answer = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: huge + "\(i)", from: "198.51.100.\(i)")
                #expect(answer.status == .unauthorized)
            }
            let after = try await Self.rows(core)
            #expect(after.count == before.count, "rows added: \(after.count - before.count)")
            // Every subject a sign-in can store holds at most a 32-character name and an address.
            #expect(after.longest < 200)
            let owner = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "aiko", password: Browser.password, from: "203.0.113.5")
            #expect(owner.status == .found)
        }
    }

    @Test func oldFailuresArePrunedWhenTheNextIsCounted() async throws {
        try await Self.withSignedOutBrowser { core, client, csrf, cookie in
            let old = Int64(Date().timeIntervalSince1970) - 3 * 3600
            try await core.database.sql.raw("""
                INSERT INTO login_failures (subject, failures, last_failure_at, locked_until) VALUES ('pair:old|198.51.100.1', 3, \(bind: old), NULL),
                ('acct:old', 2, \(bind: old), \(bind: old + 900))
                """).run()
            _ = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "nobody", from: "198.51.100.2")
            struct Row: Decodable { let subject: String }
            let subjects = try await core.database.sql.raw("SELECT subject FROM login_failures").all(decoding: Row.self).map(\.subject)
            #expect(!subjects.contains("pair:old|198.51.100.1") && !subjects.contains("acct:old"), "\(subjects)")
            #expect(subjects.contains("pair:nobody|198.51.100.2"))
        }
    }

    @Test func freshNamesFromOneAddressAreRefusedAfterTheBucketWhileTheOwnerSignsIn() async throws {
        // Time stands still: on a loaded machine the ten attempts took longer than the 6 s that refills one.
        let start = Date()
        try await Self.withSignedOutBrowser(clock: WallClock { start }) { _, client, csrf, cookie in
            let burst = LoginThrottlePolicy.standard.unknownNameBurst
            for i in 0..<burst {
                let answer = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "fresh\(i)", from: "198.51.100.77")
                #expect(answer.status == .unauthorized, "attempt \(i)")
            }
            let refused = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "fresh-more", from: "198.51.100.77")
            #expect(refused.status == .tooManyRequests)
            let wait = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...LoginThrottlePolicy.standard.unknownNameInterval).contains(wait))
            #expect(String(buffer: refused.body).contains("Too many sign-in attempts from your network"))
            let japanese = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "fresh-ja", from: "198.51.100.77", language: "ja")
            #expect(japanese.status == .tooManyRequests && String(buffer: japanese.body).contains("サインインの試行が多すぎます"))
            // Known names are not counted in the bucket: the owner signs in from the same address, and from another.
            let owner = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "aiko", password: Browser.password, from: "198.51.100.77")
            #expect(owner.status == .found)
            let elsewhere = try await Self.attempt(client, csrf: csrf, cookie: cookie, username: "someone", from: "198.51.100.78")
            #expect(elsewhere.status == .unauthorized)
        }
    }

    @Test func theBcryptGateRunsAccountsBeforeDecoysAndRefusesBeyondItsQueue() async throws {
        actor Log {
            var order: [String] = []
            var release: CheckedContinuation<Void, Never>?
            func add(_ s: String) { order.append(s) }
            func hold() async { await withCheckedContinuation { release = $0 } }
            func open() { release?.resume(); release = nil }
            var holding: Bool { release != nil }
        }
        let gate = BcryptGate(slots: 1, accountQueue: 4, decoyQueue: 1)
        let log = Log()
        let first = Task { await gate.run(.account) { await log.hold(); await log.add("first") } }
        while await !(log.holding) { try await Task.sleep(for: .milliseconds(5)) }
        let decoy = Task { await gate.run(.decoy) { await log.add("decoy") } }
        try await Task.sleep(for: .milliseconds(50))
        // The decoy queue (one place) is full: refused at once, nothing ran.
        #expect(await gate.run(.decoy) { await log.add("refused") } == nil)
        let account = Task { await gate.run(.account) { await log.add("account") } }
        try await Task.sleep(for: .milliseconds(50))
        await log.open()
        _ = await (first.value, decoy.value, account.value)
        #expect(await log.order == ["first", "account", "decoy"])
    }
}
