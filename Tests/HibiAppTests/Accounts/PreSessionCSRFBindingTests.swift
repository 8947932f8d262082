import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// Login CSRF (issue 28, item 10): a pre-session form token is bound to the browser's own CSRF cookie
/// and expires, so a token read from one browser's sign-in page cannot sign another browser in.
struct PreSessionCSRFBindingTests {
    @Test func aTokenIssuedToBrowserASignsInOnlyBrowserA() async throws {
        try await TestApp.run { a in
            try await a.setUp()
            try await a.signOut()
            try await a.get("/login")
            let tokenA = try #require(a.csrf)
            #expect(a.cookies[Cookies.csrf] != nil)
            #expect(a.cookies[Cookies.csrf] != tokenA, "the form token is derived from the cookie, not the cookie itself")

            // Browser B has a cookie of its own: A's token does not fit it.
            let b = Browser(client: a.client)
            try await b.get("/login")
            #expect(b.cookies[Cookies.csrf] != nil && b.cookies[Cookies.csrf] != a.cookies[Cookies.csrf])
            let withOwnCookie = try await b.post("/login", form: ["username": "aiko", "password": Browser.password, "_csrf": tokenA])
            #expect(withOwnCookie.status == .forbidden)
            #expect(b.cookies[Cookies.session] == nil)
            #expect(try await b.get("/").status == .found, "B is still signed out")

            // Browser C has no cookie at all.
            let c = Browser(client: a.client)
            let withoutCookie = try await c.post("/login", form: ["username": "aiko", "password": Browser.password, "_csrf": tokenA])
            #expect(withoutCookie.status == .forbidden)
            #expect(c.cookies[Cookies.session] == nil)

            // A's own token with A's cookie signs A in.
            let signedIn = try await a.post("/login", form: ["username": "aiko", "password": Browser.password, "_csrf": tokenA])
            #expect(signedIn.status == .found)
            #expect(a.cookies[Cookies.session] != nil)
            #expect(try await a.get("/").status == .ok)
        }
    }

    @Test func anExpiredSignInFormSaysSoAndTheNextFormWorks() async throws {
        let time = AssemblyTests.ManualTime()
        try await TestApp.run(clock: time.clock) { browser in
            try await browser.setUp()
            try await browser.signOut()
            try await browser.get("/login")
            time.advance(PreSessionCSRF.lifetime - 60)
            // Still valid just before the limit: a page left open for a while works.
            browser.acceptLanguage = "ja"
            #expect(try await browser.post("/login", form: ["username": "aiko", "password": "wrong password"]).status != .forbidden)

            try await browser.get("/login")
            time.advance(PreSessionCSRF.lifetime + 60)
            let expired = try await browser.post("/login", form: ["username": "aiko", "password": Browser.password])
            #expect(expired.status == .forbidden)
            #expect(expired.body.contains("このページの有効期限が切れました"))
            #expect(expired.body.contains(#"href="/login""#) && expired.body.contains("新しいフォームを開く"))
            #expect(browser.cookies[Cookies.session] == nil)

            browser.acceptLanguage = "en"
            try await browser.get("/login")
            let again = try await browser.post("/login", form: ["username": "aiko", "password": "wrong"])
            #expect(again.status != .forbidden)
            try await browser.get("/login")
            time.advance(PreSessionCSRF.lifetime + 1)
            let expiredEnglish = try await browser.post("/login", form: ["username": "aiko", "password": Browser.password])
            #expect(expiredEnglish.body.contains("This page expired") && expiredEnglish.body.contains("Open a fresh form"))

            // The next request is served, and its fresh form signs in.
            let fresh = try await browser.get("/login")
            #expect(fresh.status == .ok)
            #expect(try await browser.post("/login", form: ["username": "aiko", "password": Browser.password]).status == .found)
            #expect(try await browser.get("/").status == .ok)
        }
    }

    @Test func overHTTPSTheCookieIsHostPrefixedStrictAndHttpOnly() async throws {
        var config = try await TestApp.config()
        config.publicURL = URL(string: "https://hibi.example")
        try await TestApp.run(config: config) { browser in
            let page = try await browser.get("/setup")
            let cookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("__Host-" + Cookies.csrf + "=") })
            #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Domain="))
            // The unprefixed name, which a sibling subdomain could set, is not read.
            let b = Browser(client: browser.client)
            b.setCookie(Cookies.csrf, browser.cookies["__Host-" + Cookies.csrf])
            let form = ["username": "aiko", "password": Browser.password, "password_confirm": Browser.password,
                        "display_name": "Aiko", "time_zone": "Asia/Tokyo", "_csrf": try #require(browser.csrf)]
            #expect(try await b.post("/setup", form: form).status == .forbidden)
            #expect(try await browser.post("/setup", form: form).status == .found)
        }
    }
}
