import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// A stand-in engine: each "image" is a JPEG header followed by JSON naming the person, the yaw and
/// whether the face is frontal and large enough. It lets these tests drive every branch of enrollment
/// and unlock; the real models are tested in FaceEngineTests and the browser tests.
struct ScriptedFaceAnalyzer: FaceAnalyzing {
    struct Frame: Codable { var person: String; var yaw: Double = 0; var shift: Double = 0; var enrollable: Bool = true }
    let matchThreshold: Float = 0.4

    static func image(_ frame: Frame) -> Data { TestImages.jpeg.prefix(4) + (try! JSONEncoder().encode(frame)) }

    func parse(_ data: Data) throws -> Frame {
        guard let frame = try? JSONDecoder().decode(Frame.self, from: data.dropFirst(4)) else { throw FaceAuthError.faceLost(frame: 0) }
        return frame
    }

    func observation(_ frame: Frame) -> FaceObservation {
        let base: Float = frame.person == "A" ? 0.1 : 0.3
        return FaceObservation(embedding: Array(repeating: base, count: 128), yaw: frame.yaw,
                               landmarks: [0.3 + frame.shift, 0.4, 0.7 + frame.shift, 0.4, 0.5, 0.6, 0.35, 0.8, 0.65, 0.8])
    }

    func enrollmentObservation(imageData: Data) async throws -> FaceObservation {
        let frame = try parse(imageData)
        guard frame.enrollable else { throw RequestError.invalidField("photo", Text(en: "face is not frontal", ja: "正面を向いていません")) }
        return observation(frame)
    }

    func observation(imageData: Data) async throws -> FaceObservation {
        observation(try parse(imageData))
    }
}

@Suite(.serialized) struct FaceUnlockTests {
    typealias Frame = ScriptedFaceAnalyzer.Frame

    func withFaceApp(_ body: @escaping @Sendable (Browser) async throws -> Void) async throws {
        let config = try await TestApp.config()
        var core = try await AppCore.open(config, logger: TestApp.quietLogger)
        core.faceAnalyzer = ScriptedFaceAnalyzer()
        let app = buildApplication(core: core)
        try await app.test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            try await browser.unlockDiary()
            let page = try await browser.get("/diary/settings")
            #expect(page.body.contains("Face unlock is not set up"))
            try await body(browser)
        }
    }

    func post(_ browser: Browser, _ path: String, _ body: some Encodable) async throws -> Browser.Page {
        try await browser.send(path, method: .post, headers: [.contentType: "application/json", HTTPField.Name("X-CSRF-Token")!: browser.csrf ?? ""],
                               body: .init(data: try JSONEncoder().encode(body)))
    }

    func enroll(_ browser: Browser, person: String = "A") async throws -> Browser.Page {
        let photos = (0..<3).map { ScriptedFaceAnalyzer.image(Frame(person: person, shift: Double($0) / 100)).base64EncodedString() }
        return try await post(browser, "/api/v1/diary/face/enroll", ["photos": photos])
    }

    func frames(_ person: String, steps: [HeadTurn]) -> [String] {
        var frames = [Frame(person: person), Frame(person: person, shift: 0.001)]
        for (index, step) in steps.enumerated() {
            for k in 0..<3 {
                frames.append(Frame(person: person, yaw: (step == .left ? -1 : 1) * Double(18 + k * 3), shift: Double(index * 3 + k) / 50))
            }
        }
        return frames.map { ScriptedFaceAnalyzer.image($0).base64EncodedString() }
    }

    func challenge(_ browser: Browser) async throws -> FaceChallenge {
        let page = try await post(browser, "/api/v1/diary/face/challenge", [String: String]())
        #expect(page.status == .created)
        return try JSONCoding.decoder.decode(FaceChallenge.self, from: Data(page.body.utf8))
    }

    struct UnlockBody: Encodable { let challengeId: String; let frames: [String] }

    @Test func enrollmentNeedsThreeGoodPhotos() async throws {
        try await withFaceApp { browser in
            let two = (0..<2).map { _ in ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString() }
            let few = try await post(browser, "/api/v1/diary/face/enroll", ["photos": two])
            #expect(few.status == .badRequest)
            #expect(few.body.contains("too_few_photos"))
            let turned = try await post(browser, "/api/v1/diary/face/check", ["photo": ScriptedFaceAnalyzer.image(Frame(person: "A", enrollable: false)).base64EncodedString()])
            #expect(turned.status == .badRequest)
            #expect(turned.body.contains("not frontal"))
            let mixed = [Frame(person: "A"), Frame(person: "B"), Frame(person: "A")].map { ScriptedFaceAnalyzer.image($0).base64EncodedString() }
            #expect(try await post(browser, "/api/v1/diary/face/enroll", ["photos": mixed]).status == .unauthorized)
            #expect(try await enroll(browser).status == .created)
            #expect(try await browser.get("/diary/settings").body.contains("Enrolled with 3 photos"))
        }
    }

    @Test func theEnrolledPersonUnlocksOthersAndStillImagesDoNot() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.post("/diary/lock", form: [:])
            #expect(try await browser.get("/diary").status == .found)

            let other = try await challenge(browser)
            let impostor = try await post(browser, "/api/v1/diary/face/unlock", UnlockBody(challengeId: other.id, frames: frames("B", steps: other.steps)))
            #expect(impostor.status == .unauthorized)
            #expect(impostor.body.contains("face_mismatch"))

            let still = try await challenge(browser)
            let photo = ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString()
            let stillPage = try await post(browser, "/api/v1/diary/face/unlock", UnlockBody(challengeId: still.id, frames: Array(repeating: photo, count: 10)))
            #expect(stillPage.body.contains("still_image"))

            let wrongOrder = try await challenge(browser)
            let reversed = try await post(browser, "/api/v1/diary/face/unlock",
                                          UnlockBody(challengeId: wrongOrder.id, frames: frames("A", steps: wrongOrder.steps.map { $0 == .left ? .right : .left })))
            #expect(reversed.body.contains("challenge_not_followed"))
            #expect(try await browser.get("/diary").status == .found)

            let good = try await challenge(browser)
            let unlocked = try await post(browser, "/api/v1/diary/face/unlock", UnlockBody(challengeId: good.id, frames: frames("A", steps: good.steps)))
            #expect(unlocked.status == .ok)
            #expect(try await browser.get("/diary").status == .ok)

            // The same challenge and frames again: a replay is refused.
            try await browser.post("/diary/lock", form: [:])
            let replay = try await post(browser, "/api/v1/diary/face/unlock", UnlockBody(challengeId: good.id, frames: frames("A", steps: good.steps)))
            #expect(replay.body.contains("challenge_unknown"))
        }
    }

    @Test func repeatedFailuresPauseFaceUnlockButNotThePassword() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.post("/diary/lock", form: [:])
            for _ in 0..<5 {
                let c = try await challenge(browser)
                _ = try await post(browser, "/api/v1/diary/face/unlock", UnlockBody(challengeId: c.id, frames: frames("B", steps: c.steps)))
            }
            let paused = try await post(browser, "/api/v1/diary/face/challenge", [String: String]())
            #expect(paused.status == .tooManyRequests)
            #expect(paused.body.contains("face_unlock_paused"))
            try await browser.unlockDiary()
            #expect(try await browser.get("/diary").status == .ok)
        }
    }

    @Test func deletingFaceDataTurnsFaceUnlockOff() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.get("/diary/settings")
            try await browser.post("/diary/face/delete", form: [:])
            #expect(try await browser.get("/diary/settings").body.contains("Face unlock is not set up"))
            let page = try await post(browser, "/api/v1/diary/face/challenge", [String: String]())
            #expect(page.body.contains("face_not_enrolled"))
        }
    }
}
