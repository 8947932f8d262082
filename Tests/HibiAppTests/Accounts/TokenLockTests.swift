import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
@testable import HibiApp

/// The diary lock cannot be bypassed by minting a token, tokens do only what their scopes say, and
/// they end with the password.
@Suite struct TokenLockTests {
    static func apiFromSession(_ browser: Browser, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> Browser.Page {
        var headers: HTTPFields = [.csrfToken: browser.csrf ?? ""]
        if json != nil { headers[.contentType] = "application/json" }
        return try await browser.send(uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    @Test func aLockedSessionCannotMintATokenThatReadsTheDiary() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            // Somebody at an unattended, signed-in browser: the diary is locked.
            try await browser.get("/settings")
            #expect(try await Self.apiFromSession(browser, .get, "/api/v1/diary/entries").body.contains("diary_locked"))
            let minted = try await Self.apiFromSession(browser, .post, "/api/v1/tokens", json: #"{"name":"x","scopes":["read","diary"]}"#)
            #expect(minted.status == .forbidden)
            #expect(minted.body.contains("reauthentication_required"))
            let page = try await browser.post("/settings/tokens", form: ["name": "x", "scope_diary": "on"])
            #expect(page.status == .forbidden)
            #expect(page.body.contains("Enter your password"))
            let wrong = try await browser.post("/settings/tokens", form: ["name": "x", "scope_diary": "on", "password": "not it at all"])
            #expect(wrong.status == .forbidden)
            // With the password, or with the diary unlocked, a token can be made.
            let withPassword = try await Self.apiFromSession(browser, .post, "/api/v1/tokens",
                                                            json: #"{"name":"x","scopes":["read"],"password":"\#(Browser.password)"}"#)
            #expect(withPassword.status == .created)
            try await browser.unlockDiary()
            try await browser.get("/settings")
            let unlocked = try await Self.apiFromSession(browser, .post, "/api/v1/tokens", json: #"{"name":"y","scopes":["read","diary"]}"#)
            #expect(unlocked.status == .created)
        }
    }

    @Test func scopesDecideWhatATokenMayDo() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let readOnly = APIClient(browser: browser, token: try await browser.createToken(name: "r", scopes: [.read]))
            let noDiary = APIClient(browser: browser, token: try await browser.createToken(name: "rw", scopes: .standard))
            let all = APIClient(browser: browser, token: try await browser.createToken(name: "all", scopes: .all))
            #expect(try await readOnly.call(.get, "/api/v1/me").status == .ok)
            let write = try await readOnly.call(.post, "/api/v1/visits", json: VisitTestApp.visit())
            #expect(write.status == .forbidden)
            #expect(write.body.contains("token_scope_missing"))
            #expect(try await noDiary.call(.post, "/api/v1/visits", json: VisitTestApp.visit()).status == .created)
            let diary = try await noDiary.call(.get, "/api/v1/diary/entries")
            #expect(diary.status == .forbidden)
            #expect(diary.body.contains("diary"))
            #expect(try await all.call(.get, "/api/v1/diary/entries").status == .ok)
            // A token cannot give a new token more than it has.
            #expect(try await noDiary.call(.post, "/api/v1/tokens", json: #"{"name":"up","scopes":["read","diary"]}"#).status == .forbidden)
            #expect(try await noDiary.call(.post, "/api/v1/tokens", json: #"{"name":"same","scopes":["read"]}"#).status == .created)
            #expect(try await all.call(.post, "/api/v1/tokens", json: #"{"name":"bad","scopes":["admin"]}"#).status == .badRequest)
            let listed = try await all.call(.get, "/api/v1/tokens")
            #expect(listed.body.contains(#""scopes":["read","write","diary"]"#))
        }
    }

    @Test func tokensEndWithThePasswordAndWithSignOutEverywhere() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            // A password change.
            var api = APIClient(browser: browser, token: try await browser.createToken())
            try await browser.get("/settings")
            let changed = try await browser.post("/settings/password", form: [
                "current_password": Browser.password, "new_password": "another long password", "new_password_confirm": "another long password",
            ])
            #expect(changed.status == .ok)
            #expect(changed.body.contains("revokes every API token"))
            #expect(try await api.call(.get, "/api/v1/me").status == .unauthorized)
            // Signing out everywhere.
            api = APIClient(browser: browser, token: try await browser.createToken(password: "another long password"))
            #expect(try await api.call(.get, "/api/v1/me").status == .ok)
            try await browser.get("/settings")
            try await browser.post("/logout/all", form: [:])
            #expect(try await api.call(.get, "/api/v1/me").status == .unauthorized)
        }
    }

    @Test func aResetOrADisabledAccountEndsItsTokens() async throws {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "ken", displayName: nil, password: "kens password!", isAdmin: false,
                                                      language: nil, now: Date())
        let (first, _) = try await core.tokens.create(userID: user.id, name: "a", scopes: .all, now: Date())
        _ = try await core.accounts.resetPassword(userID: user.id, now: Date())
        #expect(try await core.tokens.authenticate(token: first, now: Date()) == nil)
        let (second, _) = try await core.tokens.create(userID: user.id, name: "b", scopes: .all, now: Date())
        _ = try await core.accounts.setDisabled(userID: user.id, disabled: true, actingUserID: nil)
        #expect(try await core.tokens.authenticate(token: second, now: Date()) == nil)
        await core.database.shutdown()
    }
}

/// `next` only ever leads to a path on this site, however it is written.
struct RedirectTests {
    @Test func nextStaysOnThisSite() {
        for hostile in ["/\t/evil.example/x", "/\n/evil.example", "//evil.example", "/\\evil.example", "\\\\evil.example", "https://evil.example",
                        " //evil.example", "/\r\n/evil.example", "\t//evil.example", "/%2F/evil.example\\x", "javascript:alert(1)", ""] {
            #expect(LocalRedirect.path(hostile) == "/", "\(hostile.debugDescription)")
        }
        #expect(LocalRedirect.path("/diary?page=2") == "/diary?page=2")
        #expect(LocalRedirect.path(nil, fallback: "/diary") == "/diary")
        // Percent-encoded slashes stay encoded in a path: the browser does not turn %2F into a host.
        #expect(LocalRedirect.path("/%2F/evil.example") == "/%2F/evil.example")
    }

    @Test func signInWithATabbedNextStaysHere() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.signOut()
            try await browser.get("/login?next=/%09/evil.example/x")
            let page = try await browser.post("/login", form: ["username": "aiko", "password": Browser.password, "next": "/\t/evil.example/x"])
            #expect(page.status == .found)
            #expect(page.location == "/")
            let already = try await browser.get("/login?next=/%09/evil.example/x")
            #expect(already.location.map { !$0.contains("evil") } ?? true)
        }
    }
}

/// Login CSRF: a token the server did not issue is not accepted before sign-in.
struct PreSessionCSRFTests {
    @Test func aCookiePlantedByAnotherSiteDoesNotSignAnyoneIn() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.signOut()
            let planted = String(repeating: "a", count: 32)
            browser.setCookie(Cookies.csrf, planted)
            let forged = try await browser.post("/login", form: ["username": "aiko", "password": Browser.password, "_csrf": planted])
            #expect(forged.status == .forbidden)
            // The page hands out a signed token of its own instead, and that one works.
            try await browser.get("/login")
            #expect(browser.cookies[Cookies.csrf] != planted)
            #expect(try await browser.post("/login", form: ["username": "aiko", "password": Browser.password]).status == .found)
        }
    }
}
