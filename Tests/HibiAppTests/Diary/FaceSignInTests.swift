import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// Face sign-in on a remembered device, driven through the real router with the scripted face engine.
@Suite(.serialized) struct FaceSignInTests {
    typealias Frame = ScriptedFaceAnalyzer.Frame
    let unlock = FaceUnlockTests()

    /// Aiko enrolls face "A", then signs in with her password ticking "remember this device", and signs out.
    func rememberedAndSignedOut(_ browser: Browser) async throws {
        #expect(try await unlock.enroll(browser).status == .created)
        try await browser.signOut()
        try await browser.get("/login")
        let signedIn = try await browser.post("/login", form: ["username": "aiko", "password": Browser.password, "remember_device": "on"])
        #expect(signedIn.status == .found)
        #expect(browser.cookies[Cookies.device] != nil)
        try await browser.get("/")
        try await browser.signOut()
    }

    func challenge(_ browser: Browser) async throws -> (Browser.Page, FaceChallenge?) {
        let page = try await unlock.post(browser, "/api/v1/auth/face/challenge", [String: String]())
        return (page, try? JSONCoding.decoder.decode(FaceChallenge.self, from: Data(page.body.utf8)))
    }

    func signIn(_ browser: Browser, person: String = "A") async throws -> Browser.Page {
        try await unlock.perform(browser, person: person, base: "/api/v1/auth/face")
    }

    @Test func theEnrolledPersonSignsInWithTheirFaceAndFindsTheDiaryOpen() async throws {
        try await unlock.withFaceApp { browser in
            try await rememberedAndSignedOut(browser)
            let login = try await browser.get("/login")
            #expect(login.body.contains("Sign in with your face"))
            #expect(login.body.contains(#"data-verify-url="/api/v1/auth/face/frame""#))
            #expect(try await browser.get("/diary").location?.hasPrefix("/login") == true)

            let done = try await signIn(browser)
            #expect(done.status == .ok, "\(done.body)")
            #expect(done.body.contains(#""done":true"#))
            #expect(browser.cookies[Cookies.session] != nil)
            // Signed in, and the diary opened with the same proof.
            #expect(try await browser.get("/diary").status == .ok)
            let settings = try await browser.get("/settings")
            #expect(settings.body.contains("Remembered devices"))
            #expect(!settings.body.contains("No remembered devices."))
        }
    }

    @Test func anotherFaceOrAReplayedChallengeDoesNotSignIn() async throws {
        try await unlock.withFaceApp { browser in
            try await rememberedAndSignedOut(browser)
            try await browser.get("/login")
            let impostor = try await signIn(browser, person: "B")
            #expect(impostor.status == .unauthorized)
            #expect(impostor.body.contains("face_mismatch"))
            // A spent challenge cannot be used again, not even with the right face.
            let spent = try #require(FaceUnlockTests.decode(try await unlock.post(browser, "/api/v1/auth/face/challenge", [String: String]())))
            _ = try await unlock.post(browser, "/api/v1/auth/face/frame", FaceUnlockTests.FrameBody(
                challengeId: spent.id, frame: ScriptedFaceAnalyzer.image(Frame(person: "B")).base64EncodedString()))
            unlock.time.advance(0.15)
            let replay = try await unlock.post(browser, "/api/v1/auth/face/frame", FaceUnlockTests.FrameBody(
                challengeId: spent.id, frame: ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString()))
            #expect(replay.body.contains("challenge_unknown"))
            #expect(browser.cookies[Cookies.session] == nil)
            #expect(try await browser.get("/diary").location?.hasPrefix("/login") == true)
        }
    }

    @Test func withoutALiveDeviceCookieFaceSignInIsNotOffered() async throws {
        try await unlock.withFaceApp { browser in
            try await rememberedAndSignedOut(browser)
            let remembered = try #require(browser.cookies[Cookies.device])

            // No cookie: nothing offered, and the endpoints refuse.
            browser.setCookie(Cookies.device, nil)
            #expect(!(try await browser.get("/login")).body.contains("Sign in with your face"))
            #expect(try await challenge(browser).0.body.contains("device_not_remembered"))
            #expect(try await unlock.post(browser, "/api/v1/auth/face/frame", FaceUnlockTests.FrameBody(challengeId: "x", frame: "")).status == .unauthorized)

            // A made-up cookie is no better.
            browser.setCookie(Cookies.device, "not-a-real-device-token")
            #expect(!(try await browser.get("/login")).body.contains("Sign in with your face"))
            #expect(try await challenge(browser).0.status == .unauthorized)

            // The device cookie is an ambient credential, so a request from another site (no CSRF token) is refused.
            browser.setCookie(Cookies.device, remembered)
            let forged = try await browser.send("/api/v1/auth/face/challenge", method: .post, headers: [.contentType: "application/json"], body: .init(string: "{}"))
            #expect(forged.status == .forbidden)

            // Forgotten from settings: the same cookie stops working.
            _ = try await browser.signIn(username: "aiko")
            try await browser.unlockDiary()
            let settings = try await browser.get("/settings")
            let id = try #require(settings.body.range(of: #"data-device=""#).map { String(settings.body[$0.upperBound...].prefix(36)) })
            #expect(try await browser.post("/settings/devices/\(id)/revoke", form: [:]).status == .found)
            #expect(try await browser.get("/settings").body.contains("No remembered devices."))
            try await browser.signOut()
            browser.setCookie(Cookies.device, remembered)
            #expect(!(try await browser.get("/login")).body.contains("Sign in with your face"))
            #expect(try await challenge(browser).0.body.contains("device_not_remembered"))
        }
    }

    @Test func changingThePasswordForgetsRememberedDevices() async throws {
        try await unlock.withFaceApp { browser in
            try await rememberedAndSignedOut(browser)
            let remembered = try #require(browser.cookies[Cookies.device])
            try await browser.get("/login")
            #expect(try await challenge(browser).0.status == .created)
            _ = try await browser.signIn(username: "aiko")
            try await browser.get("/settings")
            let changed = try await browser.post("/settings/password", form: [
                "current_password": Browser.password, "new_password": "a brand new password", "new_password_confirm": "a brand new password",
            ])
            #expect(changed.status == .ok)
            #expect(changed.body.contains("No remembered devices."))
            try await browser.signOut()
            browser.setCookie(Cookies.device, remembered)
            #expect(!(try await browser.get("/login")).body.contains("Sign in with your face"))
            #expect(try await challenge(browser).0.body.contains("device_not_remembered"))
        }
    }

    @Test func oneUsersDeviceCannotSignInAsAnother() async throws {
        try await unlock.withFaceApp { aiko in
            #expect(try await unlock.enroll(aiko).status == .created)
            try await aiko.get("/admin/users")
            try await aiko.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            try await aiko.signOut()
            try await aiko.get("/login")
            _ = try await aiko.post("/login", form: ["username": "aiko", "password": Browser.password, "remember_device": "on"])
            try await aiko.get("/")
            try await aiko.signOut()
            try await aiko.get("/login")
            let aikosChallenge = try #require(try await challenge(aiko).1)

            let ken = Browser(client: aiko.client)
            try await ken.get("/login")
            _ = try await ken.post("/login", form: ["username": "ken", "password": "kens password!", "remember_device": "on"])
            try await ken.get("/settings")
            // Ken revokes nothing of Aiko's: her device id is not found under his account.
            let aikoSettingsID = "00000000-0000-0000-0000-000000000000"
            #expect(try await ken.post("/settings/devices/\(aikoSettingsID)/revoke", form: [:]).status == .notFound)
            try await ken.signOut()
            // Ken's device names Ken: Aiko's face and Aiko's challenge do not make it sign in as Aiko.
            #expect(!(try await ken.get("/login")).body.contains("Sign in with your face"))
            #expect(try await challenge(ken).0.body.contains("face_not_enrolled"))
            let stolen = try await unlock.post(ken, "/api/v1/auth/face/frame", FaceUnlockTests.FrameBody(
                challengeId: aikosChallenge.id, frame: ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString()))
            #expect(stolen.body.contains("challenge_unknown"))
            #expect(ken.cookies[Cookies.session] == nil)
            // Aiko's device still signs her in with her face.
            #expect(try await signIn(aiko).status == .ok)
        }
    }

    @Test func deviceLabelsNameTheBrowserAndSystemOnly() {
        #expect(AccountRules.deviceLabel(userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36") == "Chrome · Linux")
        #expect(AccountRules.deviceLabel(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile Safari/604.1") == "Safari · iOS")
        #expect(AccountRules.deviceLabel(userAgent: nil) == "Browser")
    }
}
