import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

@Suite(.serialized) struct AccountAPITests {
    @Test func bearerTokenReadsTheOwnersProfile() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let page = try await api.call(.get, "/api/v1/me")
            #expect(page.status == .ok)
            let me = try APIClient.decode(MeResponse.self, page)
            #expect(me.username == "aiko")
            #expect(me.timeZone == "Asia/Tokyo")
            #expect(me.isAdmin)
        }
    }

    @Test func tokensAreListedWithoutSecretsAndRevokedTokensStopWorking() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let token = try await browser.createToken(name: "backup script")
            let api = APIClient(browser: browser, token: token)
            let created = try await api.call(.post, "/api/v1/tokens", json: #"{"name":"second"}"#)
            #expect(created.status == .created)
            let second = try APIClient.decode(TokenResponse.self, created)
            #expect(second.token?.hasPrefix("hibi_") == true)
            let list = try APIClient.decode([TokenResponse].self, try await api.call(.get, "/api/v1/tokens"))
            #expect(Set(list.map(\.name)) == ["backup script", "second"])
            #expect(list.allSatisfy { $0.token == nil })
            #expect(try await api.call(.delete, "/api/v1/tokens/\(second.id)").status == .noContent)
            let revoked = APIClient(browser: browser, token: second.token)
            #expect(try await revoked.call(.get, "/api/v1/me").status == .unauthorized)
        }
    }

    @Test func anotherUsersTokenIdIsNotFound() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/admin/users")
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let aikoAPI = APIClient(browser: browser, token: try await browser.createToken())
            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken's", password: "kens password!"))
            let kenTokens = try APIClient.decode([TokenResponse].self, try await kenAPI.call(.get, "/api/v1/tokens"))
            let kenTokenID = try #require(kenTokens.first?.id)

            let attempt = try await aikoAPI.call(.delete, "/api/v1/tokens/\(kenTokenID)")
            #expect(attempt.status == .notFound)
            #expect(try await aikoAPI.call(.delete, "/api/v1/tokens/made-up-id").status == .notFound)
            // Ken's token still works and Aiko's list does not show it.
            #expect(try await kenAPI.call(.get, "/api/v1/me").status == .ok)
            let aikoTokens = try APIClient.decode([TokenResponse].self, try await aikoAPI.call(.get, "/api/v1/tokens"))
            #expect(!aikoTokens.contains { $0.id == kenTokenID })
        }
    }

    @Test func badInputGetsAClearFourHundred() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())

            let malformed = try await api.call(.post, "/api/v1/tokens", json: #"{"name": "#)
            #expect(malformed.status == .badRequest)
            #expect(malformed.body.contains("\"code\":\"malformed_json\""))

            let missing = try await api.call(.post, "/api/v1/tokens", json: "{}")
            #expect(missing.status == .badRequest)
            #expect(missing.body.contains(#"The field \"name\" is required"#))

            let wrongType = try await api.call(.post, "/api/v1/tokens", json: #"{"name": 5}"#)
            #expect(wrongType.status == .badRequest)

            let empty = try await api.call(.post, "/api/v1/tokens", json: #"{"name": "   "}"#)
            #expect(empty.status == .badRequest)
            #expect(empty.body.contains("invalid_token_name"))

            let zone = try await api.call(.patch, "/api/v1/me", json: #"{"timeZone": "Mars/Olympus"}"#)
            #expect(zone.status == .badRequest)

            let nul = try await api.call(.post, "/api/v1/tokens", json: #"{"name": "a\u0000b"}"#)
            #expect(nul.status == .badRequest)
            #expect(nul.body.contains("NUL"))

            let notJSON = try await api.call(.post, "/api/v1/tokens", json: "name=x", contentType: "text/plain")
            #expect(notJSON.status == .unsupportedMediaType)

            let huge = String(repeating: "x", count: 3 * 1024 * 1024)
            let tooLarge = try await api.call(.post, "/api/v1/tokens", json: #"{"name": "\#(huge)"}"#)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.body.contains("body_too_large"))

            let unknown = try await api.call(.get, "/api/v1/nothing-here")
            #expect(unknown.status == .notFound)
            #expect(unknown.body.contains("\"error\""))

            let wrongMethod = try await api.call(.put, "/api/v1/me", json: "{}")
            #expect([.notFound, .methodNotAllowed].contains(wrongMethod.status))
        }
    }

    @Test func errorsFollowTheUsersLanguage() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.patch, "/api/v1/me", json: #"{"language": "ja"}"#)
            let page = try await api.call(.patch, "/api/v1/me", json: #"{"timeZone": "Nowhere"}"#)
            #expect(page.body.contains("不明なタイムゾーン"))
        }
    }

    @Test func sessionCallsToTheAPINeedTheCSRFHeader() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let page = try await browser.get("/settings")
            let csrf = try #require(Browser.csrfToken(in: page.body))
            let without = try await browser.send("/api/v1/tokens", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"name":"x"}"#))
            #expect(without.status == .forbidden)
            let with = try await browser.send("/api/v1/tokens", method: .post,
                                              headers: [.contentType: "application/json", HTTPField.Name("X-CSRF-Token")!: csrf],
                                              body: ByteBuffer(string: #"{"name":"x","password":"\#(Browser.password)"}"#))
            #expect(with.status == .created)
        }
    }

    @Test func healthMetricsAndOpenAPIAreServed() async throws {
        try await TestApp.run { browser in
            let health = try await browser.get("/healthz")
            #expect(health.status == .ok)
            #expect(health.body.contains("\"database\":\"reachable\""))
            try await browser.get("/api/v1/nope")
            let metrics = try await browser.get("/metrics")
            #expect(metrics.body.contains(#"hibi_http_requests_total{method="GET",status="404"}"#))
            let css = try await browser.get("/static/app.css")
            #expect(css.status == .ok)
            #expect(css.body.contains("--hibi-accent"))
            let traversal = try await browser.get("/static/../Package.swift")
            #expect(!traversal.body.contains("swift-tools-version"), "status \(traversal.status)")
            let spec = try await browser.get("/api/v1/openapi.json")
            let object = try JSONSerialization.jsonObject(with: Data(spec.body.utf8)) as? [String: Any]
            #expect(object?["openapi"] as? String == "3.1.0")
        }
    }
}

@Suite(.serialized) struct StorageTests {
    @Test func aDatabaseFromANewerHibiIsRefused() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        let migrator = Migrator(database: database, logger: TestApp.quietLogger)
        try await migrator.migrate()
        try await database.sql.raw("INSERT INTO hibi_schema (version, name, applied_at) VALUES (999, 'future', 0)").run()
        await #expect(throws: DatabaseError.self) { try await migrator.migrate() }
        await database.shutdown()
    }

    @Test func migrationsRunOnceAndRecordTheirVersion() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        let migrator = Migrator(database: database, logger: TestApp.quietLogger)
        #expect(try await migrator.migrate() == Schema.all.map(\.version))
        #expect(try await migrator.migrate() == [])
        #expect(try await migrator.currentVersion() == migrator.latestVersion)
        await database.shutdown()
    }

    @Test func aMigrationThatLandedLaterIsStillApplied() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        let first = Migration(version: 1, name: "one") { sql, _ in try await sql.raw("CREATE TABLE t1 (x BIGINT)").run() }
        let third = Migration(version: 3, name: "three") { sql, _ in try await sql.raw("CREATE TABLE t3 (x BIGINT)").run() }
        let second = Migration(version: 2, name: "two") { sql, _ in try await sql.raw("CREATE TABLE t2 (x BIGINT)").run() }
        #expect(try await Migrator(database: database, migrations: [first, third], logger: TestApp.quietLogger).migrate() == [1, 3])
        #expect(try await Migrator(database: database, migrations: [first, second, third], logger: TestApp.quietLogger).migrate() == [2])
        try await database.sql.raw("SELECT x FROM t2").run()
        await database.shutdown()
    }

    @Test func aChangedDataKeyStopsStartUpInsteadOfReadingGarbage() async throws {
        var config = try await TestApp.config()
        let path = config.dataDirectory + "/shared.sqlite"
        config.database = TestApp.postgresURL == nil ? .sqliteFile(path: path) : config.database
        let first = try await AppCore.open(config, logger: TestApp.quietLogger)
        await first.database.shutdown()
        config.masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        await #expect(throws: EncryptionError.wrongKey) { _ = try await AppCore.open(config, logger: TestApp.quietLogger) }
    }

    @Test func sqliteRunsInWALMode() async throws {
        let config = try await TestApp.config(database: .sqliteFile(path: NSTemporaryDirectory() + "hibi-wal-\(UUID().uuidString).sqlite"))
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        let row = try await database.sql.raw("PRAGMA journal_mode").first()
        #expect(try row?.decode(column: "journal_mode", as: String.self) == "wal")
        await database.shutdown()
    }
}

@Suite(.serialized) struct SessionStoreTests {
    @Test func expiredSessionsAreClearedWhenSomeoneSignsIn() async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: nil, password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let longAgo = Date().addingTimeInterval(-2 * config.sessionLifetime)
        _ = try await core.sessions.create(userID: user.id, now: longAgo)
        _ = try await core.sessions.create(userID: user.id, now: Date())
        let row = try? await core.database.sql.raw("SELECT COUNT(*) AS n FROM sessions").first()
        await core.database.shutdown()
        let count = try row?.decode(column: "n", as: Int.self)
        #expect(count == 1)
    }
}
