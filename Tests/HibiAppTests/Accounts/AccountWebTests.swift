import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// Serialized: every test builds its own app, but bcrypt and the SQLite pool share two cores.
@Suite(.serialized) struct AccountWebTests {
    @Test func firstRunShowsSetupThenSignsTheAdminIn() async throws {
        try await TestApp.run { browser in
            let home = try await browser.get("/")
            #expect(home.status == .found)
            #expect(home.location == "/setup")
            let login = try await browser.get("/login")
            #expect(login.location == "/setup")
            try await browser.setUp()
            let today = try await browser.get("/")
            #expect(today.status == .ok)
            #expect(today.body.contains("Hello, Aiko"))
            #expect(today.body.contains("/admin/users"))
            // Setup is closed once an account exists.
            let again = try await browser.get("/setup")
            #expect(again.location == "/")
        }
    }

    @Test func setupRefusesBadInputAndKeepsWhatWasTyped() async throws {
        try await TestApp.run { browser in
            try await browser.get("/setup")
            let page = try await browser.post("/setup", form: ["username": "aiko", "display_name": "Aiko T",
                                                               "password": "short", "password_confirm": "short"])
            #expect(page.status == .badRequest)
            #expect(page.body.contains("at least 10 characters"))
            #expect(page.body.contains(#"value="Aiko T""#))
            let mismatch = try await browser.post("/setup", form: ["username": "aiko", "password": "long enough one",
                                                                   "password_confirm": "long enough two"])
            #expect(mismatch.body.contains("do not match"))
        }
    }

    @Test func wrongPasswordIsExplainedInTheUsersLanguage() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.signOut()
            browser.acceptLanguage = "ja,en;q=0.5"
            let page = try await browser.signIn(username: "aiko", password: "not the password")
            #expect(page.status == .unauthorized)
            #expect(page.body.contains("ユーザー名またはパスワードが違います"))
            #expect(page.body.contains(#"<html lang="ja""#))
            let ok = try await browser.signIn(username: "AIKO")
            #expect(ok.status == .found)
        }
    }

    @Test func repeatedFailuresLockTheAccountEvenWithTheRightPassword() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.signOut()
            for _ in 1...4 {
                let page = try await browser.signIn(username: "aiko", password: "guess guess guess")
                #expect(page.status == .unauthorized)
            }
            let fifth = try await browser.signIn(username: "aiko", password: "guess guess guess")
            #expect(fifth.status == .tooManyRequests)
            #expect(fifth.headers[.retryAfter] != nil)
            #expect(fifth.body.contains("Too many failed sign-ins"))
            let right = try await browser.signIn(username: "aiko")
            #expect(right.status == .tooManyRequests)
        }
    }

    @Test func formsWithoutTheCSRFTokenAreRefused() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let page = try await browser.post("/settings/tokens", form: ["name": "x", "_csrf": "forged-token-value-123456"])
            #expect(page.status == .forbidden)
            #expect(page.body.contains("Reload the page"))
            let missing = try await browser.post("/logout", form: [:], includeCSRF: false)
            #expect(missing.status == .forbidden)
            // Still signed in: the forged sign-out did nothing.
            #expect(try await browser.get("/settings").status == .ok)
        }
    }

    @Test func forgedOrExpiredSessionCookiesSendTheBrowserToSignIn() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            browser.setCookie(Cookies.session, "forged-session-token")
            let page = try await browser.get("/settings")
            #expect(page.status == .found)
            #expect(page.location?.hasPrefix("/login?next=") == true)
            let api = try await browser.get("/api/v1/me")
            #expect(api.status == .unauthorized)
            #expect(api.body.contains("\"code\":\"unauthenticated\""))
        }
    }

    @Test func sessionCookieIsHttpOnlyAndSameSite() async throws {
        try await TestApp.run { browser in
            try await browser.get("/setup")
            let page = try await browser.post("/setup", form: ["username": "aiko", "password": Browser.password,
                                                               "password_confirm": Browser.password])
            let cookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("hibi_session=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(!cookie.contains("Secure"))
        }
    }

    @Test func secureCookiesWhenThePublicURLIsHTTPS() async throws {
        var config = try await TestApp.config()
        config.publicURL = URL(string: "https://diary.example.org")
        try await TestApp.run(config: config) { browser in
            try await browser.get("/setup")
            let page = try await browser.post("/setup", form: ["username": "aiko", "password": Browser.password,
                                                               "password_confirm": Browser.password])
            let cookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("hibi_session=") })
            #expect(cookie.contains("Secure"))
        }
    }

    @Test func passwordChangeSignsOutOtherDevicesButNotThisOne() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let phone = Browser(client: browser.client)
            #expect(try await phone.signIn(username: "aiko").status == .found)
            try await browser.get("/settings")
            let page = try await browser.post("/settings/password", form: [
                "current_password": Browser.password, "new_password": "a brand new secret", "new_password_confirm": "a brand new secret",
            ])
            #expect(page.body.contains("Your password was changed"))
            #expect(try await browser.get("/settings").status == .ok)
            #expect(try await phone.get("/settings").status == .found)
            #expect(try await phone.signIn(username: "aiko", password: "a brand new secret").status == .found)
        }
    }

    @Test func signOutEverywhereEndsAllSessions() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let phone = Browser(client: browser.client)
            _ = try await phone.signIn(username: "aiko")
            try await browser.get("/settings")
            try await browser.post("/logout/all", form: [:])
            #expect(try await phone.get("/settings").status == .found)
            #expect(try await browser.get("/settings").status == .found)
        }
    }

    @Test func languageSwitchPersistsForTheUser() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.post("/language", form: ["language": "ja"])
            let page = try await browser.get("/settings")
            #expect(page.body.contains("設定"))
            // The choice is stored with the account, so another device gets it too.
            let other = Browser(client: browser.client)
            _ = try await other.signIn(username: "aiko")
            #expect(try await other.get("/").body.contains(#"lang="ja""#))
        }
    }

    @Test func adminAddsDisablesAndResetsUsers() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/admin/users")
            let added = try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            #expect(added.status == .created)
            #expect(added.body.contains(#"data-username="ken""#))
            let duplicate = try await browser.post("/admin/users", form: ["username": "Ken", "password": "kens password!"])
            #expect(duplicate.status == .conflict)

            let ken = Browser(client: browser.client)
            #expect(try await ken.signIn(username: "ken", password: "kens password!").status == .found)
            // Ken is not an admin.
            #expect(try await ken.get("/admin/users").status == .forbidden)

            let admin = try await browser.get("/admin/users")
            let kenID = try #require(Self.userID(of: "ken", in: admin.body))
            try await browser.post("/admin/users/\(kenID)/disable", form: [:])
            #expect(try await ken.get("/settings").status == .found)
            #expect(try await ken.signIn(username: "ken", password: "kens password!").status == .forbidden)

            try await browser.post("/admin/users/\(kenID)/enable", form: [:])
            let reset = try await browser.post("/admin/users/\(kenID)/reset", form: [:])
            let temporary = try #require(Self.between(reset.body, #"<code id="temporary-password" class="token">"#, "</code>"))
            #expect(try await ken.signIn(username: "ken", password: temporary).status == .found)
        }
    }

    /// Maps are private until an administrator chooses a tile server: the visit pages name no tile URL and
    /// the policy allows images from this host only; the choice takes effect at once and can be undone.
    @Test func mapTilesAreOffUntilAnAdministratorChoosesAServer() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let visits = try await browser.get("/visits")
            #expect(visits.body.contains(#"data-tile-url="""#))
            #expect(visits.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("img-src 'self' data: blob:;") == true)
            let page = try await browser.get("/admin/map")
            #expect(page.body.contains("No tile server is chosen"))
            #expect(page.body.contains("A tile server learns which areas each person looks at"))

            // Not a template, or one that would break out of the policy: refused, nothing stored.
            for bad in ["javascript:alert(1)", "https://tiles.example.org/a.png", "https://x.example/{z}/{x}/{y}.png; script-src *"] {
                let refused = try await browser.post("/admin/map", form: ["tile_url": bad])
                #expect(refused.status == .badRequest)
                #expect(refused.body.contains("That is not a tile URL"))
            }
            #expect(try await browser.get("/visits").body.contains(#"data-tile-url="""#))

            let saved = try await browser.post("/admin/map", form: ["tile_url": "https://{s}.tiles.example.org/{z}/{x}/{y}.png"])
            #expect(saved.status == .ok)
            #expect(saved.body.contains("Maps load tiles from *.tiles.example.org"))
            let withTiles = try await browser.get("/visits")
            #expect(withTiles.body.contains(#"data-tile-url="https://{s}.tiles.example.org/{z}/{x}/{y}.png""#))
            #expect(withTiles.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("img-src 'self' data: blob: https://*.tiles.example.org;") == true)

            // Someone who is not an administrator cannot choose one.
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let ken = Browser(client: browser.client)
            try await ken.signIn(username: "ken", password: "kens password!")
            #expect(try await ken.post("/admin/map", form: ["tile_url": ""]).status == .forbidden)

            try await browser.post("/admin/map", form: ["tile_url": ""])
            let cleared = try await browser.get("/visits")
            #expect(cleared.body.contains(#"data-tile-url="""#))
            #expect(cleared.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("tiles.example.org") == false)
        }
    }

    static func userID(of username: String, in html: String) -> String? {
        guard let row = html.range(of: #"data-username="\#(username)""#) else { return nil }
        return between(String(html[row.upperBound...]), "/admin/users/", "/")
    }

    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let a = text.range(of: start), let b = text[a.upperBound...].range(of: end) else { return nil }
        return String(text[a.upperBound..<b.lowerBound])
    }
}
