import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// A stand-in engine: each "image" is a JPEG header followed by JSON naming the person, the head's
/// pose and whether the face is frontal and large enough. The five landmarks come from a rigid 3-D
/// head turned by that pose, so they carry what a camera would (the far eye narrows). It lets these
/// tests drive every branch through the router; the real models are tested in FaceEngineTests, the
/// attack suite on real frames (FaceAttackTests) and the browser tests.
struct ScriptedFaceAnalyzer: FaceAnalyzing {
    struct Frame: Codable {
        var person: String
        var yaw: Double = 0
        var pitch: Double = 0
        var shift: Double = 0
        var enrollable: Bool = true
        /// Makes every frame's bytes different, as a camera's are.
        var nonce = UUID().uuidString
    }
    let matchThreshold: Float = 0.4
    /// How the model reads person A at rest: sad-looking, as some faces are.
    static let restingFace: [Mood: Double] = [.sadness: 0.4, .neutral: 0.22, .happiness: 0.08, .anger: 0.08, .fear: 0.08, .surprise: 0.08, .disgust: 0.06]

    /// A whole JPEG (photos are checked whole) with the script after its end, where cameras put trailers.
    static func image(_ frame: Frame) -> Data { TestImages.jpeg + (try! JSONEncoder().encode(frame)) }

    func parse(_ data: Data) throws -> Frame {
        guard let frame = try? JSONDecoder().decode(Frame.self, from: data.dropFirst(TestImages.jpeg.count)) else { throw FaceAuthError.faceLost(frame: 0) }
        return frame
    }

    /// Eye corners and the nose's bottom of a head with 100 px between the eyes, turned by yaw (positive:
    /// the nose goes to the image's left) and pitch (positive: up), seen from the front.
    static func points(yaw: Double, pitch: Double, shift: Double) -> [Double] {
        let model: [(Double, Double, Double)] = [(70, 0, -18), (30, 0, 0), (-70, 0, -18), (-30, 0, 0), (0, 62, 40)]
        let a = -yaw * .pi / 180, b = pitch * .pi / 180
        return model.flatMap { (x, y, z) -> [Double] in
            let x1 = x * cos(a) + z * sin(a), z1 = -x * sin(a) + z * cos(a)
            let y1 = y * cos(b) - z1 * sin(b)
            return [320 + x1 + shift * 100, 200 + y1]
        }
    }

    func observation(_ frame: Frame) -> FaceObservation {
        let base: Float = frame.person == "A" ? 0.1 : 0.3
        let points = Self.points(yaw: frame.yaw, pitch: frame.pitch, shift: frame.shift)
        return FaceObservation(embedding: Array(repeating: base, count: 128), yaw: LivenessTests.yaw(points),
                               landmarks: [0.3 + frame.shift, 0.4, 0.7 + frame.shift, 0.4, 0.5, 0.6, 0.35, 0.8, 0.65, 0.8],
                               points: points, box: [220 + frame.shift * 100, 100, 200, 200], moods: Self.restingFace)
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
    /// The app's clock: the camera below advances it between frames rather than sleeping.
    let time = TestTime()

    /// Reads every photo as person A's resting face.
    struct RestingFaceMoods: MoodEstimating {
        func estimateMood(imageData: Data) async throws -> MoodScores? { MoodScores(ScriptedFaceAnalyzer.restingFace) }
    }

    func withFaceApp(moods: (any MoodEstimating)? = nil, _ body: @escaping @Sendable (Browser) async throws -> Void) async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, face: .given(analyzer: ScriptedFaceAnalyzer(), moods: moods),
                                      clock: time.clock)
        let app = await buildApplication(core: core)
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

    struct FrameBody: Encodable { let challengeId: String; let frame: String }

    static func decode(_ page: Browser.Page) -> FaceChallenge? {
        try? JSONCoding.decoder.decode(FaceChallenge.self, from: Data(page.body.utf8))
    }

    /// Plays a head in front of a camera: starts a challenge, then sends one frame at a time, 100 ms
    /// apart on the app's clock, moving smoothly towards whatever step the last answer named. `pose` may change what the
    /// head does for a step (an attacker's idea of it). Returns the last answer.
    func perform(_ browser: Browser, person: String = "A", base: String = "/api/v1/diary/face",
                 pose: (String) -> (yaw: Double, pitch: Double) = FaceUnlockTests.target) async throws -> Browser.Page {
        let start = try await post(browser, base + "/challenge", [String: String]())
        guard let challenge = Self.decode(start) else { return start }
        var step = challenge.step
        var current = (yaw: 0.0, pitch: 0.0)
        var last = start
        for _ in 0..<60 {
            let target = pose(step)
            for k in 1...4 {
                let t = Double(k) / 4
                let frame = Frame(person: person, yaw: current.yaw + (target.yaw - current.yaw) * t,
                                  pitch: current.pitch + (target.pitch - current.pitch) * t)
                time.advance(0.1)
                last = try await post(browser, base + "/frame", FrameBody(challengeId: challenge.id, frame: ScriptedFaceAnalyzer.image(frame).base64EncodedString()))
                guard last.status == .ok, let answer = Self.decode(last) else { return last }
                if answer.done { return last }
                if answer.step != step {
                    current = (frame.yaw, frame.pitch)
                    step = answer.step
                    break
                }
                if k == 4 { current = target }
            }
        }
        return last
    }

    static func target(_ step: String) -> (yaw: Double, pitch: Double) {
        switch step {
        case "left": (-22, 0)
        case "right": (22, 0)
        case "up": (0, 16)
        case "down": (0, -16)
        default: (0, 0)
        }
    }

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

            let impostor = try await perform(browser, person: "B")
            #expect(impostor.status == .unauthorized)
            #expect(impostor.body.contains("face_mismatch"))

            // The challenge tells only the step to do now; the turns after it stay on the server.
            let started = try await post(browser, "/api/v1/diary/face/challenge", [String: String]())
            #expect(started.body.contains(#""step":"straight""#))
            #expect(!started.body.contains("left") && !started.body.contains("right") && !started.body.contains("steps"))

            // A head that always turns the wrong way never performs the step it is asked for.
            let contrary = try await perform(browser) { step in
                let (yaw, pitch) = FaceUnlockTests.target(step)
                return (-yaw, -pitch)
            }
            #expect(contrary.status == .unauthorized)
            #expect(contrary.body.contains("step_timed_out"))
            #expect(try await browser.get("/diary").status == .found)

            let unlocked = try await perform(browser)
            #expect(unlocked.status == .ok, "\(unlocked.body)")
            #expect(unlocked.body.contains(#""done":true"#))
            #expect(try await browser.get("/diary").status == .ok)
        }
    }

    @Test func framesSentAtOnceOrAgainAreRefused() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.post("/diary/lock", form: [:])
            // A burst: frames posted together rather than one by one as a camera sends them.
            let challenge = try #require(Self.decode(try await post(browser, "/api/v1/diary/face/challenge", [String: String]())))
            let frames = (0..<6).map { _ in ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString() }
            let pages = try await withThrowingTaskGroup(of: Browser.Page.self) { group in
                for frame in frames {
                    group.addTask { try await self.post(browser, "/api/v1/diary/face/frame", FrameBody(challengeId: challenge.id, frame: frame)) }
                }
                return try await group.reduce(into: [Browser.Page]()) { $0.append($1) }
            }
            #expect(pages.contains { $0.body.contains("frames_too_fast") }, "\(pages.map(\.body))")
            let after = try await post(browser, "/api/v1/diary/face/frame", FrameBody(challengeId: challenge.id, frame: frames[0]))
            #expect(after.status != .ok)

            // A frame of an earlier attempt, byte for byte, is a recording.
            let next = try #require(Self.decode(try await post(browser, "/api/v1/diary/face/challenge", [String: String]())))
            let seen = ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString()
            #expect(try await post(browser, "/api/v1/diary/face/frame", FrameBody(challengeId: next.id, frame: seen)).status == .ok)
            time.advance(0.15)
            let replay = try await post(browser, "/api/v1/diary/face/frame", FrameBody(challengeId: next.id, frame: seen))
            #expect(replay.body.contains("replayed_frame"))
            #expect(try await browser.get("/diary").status == .found)
        }
    }

    /// The pacing runs on the app's clock: a frame arriving longer after the last answer than the rules allow
    /// ends the attempt (a camera that stopped, or a client preparing frames), however fast the machine is.
    @Test func aFrameAfterALongPauseEndsTheAttempt() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.post("/diary/lock", form: [:])
            let challenge = try #require(Self.decode(try await post(browser, "/api/v1/diary/face/challenge", [String: String]())))
            func frame() -> FrameBody { FrameBody(challengeId: challenge.id, frame: ScriptedFaceAnalyzer.image(Frame(person: "A")).base64EncodedString()) }
            time.advance(0.1)
            let first = try await post(browser, "/api/v1/diary/face/frame", frame())
            #expect(first.status == .ok, "\(first.body)")
            time.advance(Double(Liveness.maximumGap) / 1000 + 0.1)
            let late = try await post(browser, "/api/v1/diary/face/frame", frame())
            #expect(late.status == .unauthorized)
            #expect(late.body.contains("frames_interrupted"), "\(late.body)")
            #expect(try await browser.get("/diary").status == .found)
        }
    }

    @Test func repeatedFailuresPauseFaceUnlockButNotThePassword() async throws {
        try await withFaceApp { browser in
            _ = try await enroll(browser)
            try await browser.post("/diary/lock", form: [:])
            for _ in 0..<5 {
                let c = try #require(Self.decode(try await post(browser, "/api/v1/diary/face/challenge", [String: String]())))
                _ = try await post(browser, "/api/v1/diary/face/frame",
                                   FrameBody(challengeId: c.id, frame: ScriptedFaceAnalyzer.image(Frame(person: "B")).base64EncodedString()))
            }
            let paused = try await post(browser, "/api/v1/diary/face/challenge", [String: String]())
            #expect(paused.status == .tooManyRequests)
            #expect(paused.body.contains("face_unlock_paused"))
            try await browser.unlockDiary()
            #expect(try await browser.get("/diary").status == .ok)
        }
    }

    @Test func moodsAreReadAgainstTheRestingFaceUnlessTurnedOff() async throws {
        try await withFaceApp(moods: RestingFaceMoods()) { browser in
            func estimate() async throws -> String? {
                let page = try await post(browser, "/api/v1/diary/mood-estimate", ["photo": TestImages.jpeg.base64EncodedString()])
                return (try? JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])?["suggestedMood"] as? String
            }
            // Before enrollment there is no baseline: the resting face reads as sad.
            #expect(try await estimate() == "sadness")
            #expect(try await enroll(browser).status == .created)
            #expect(try await browser.get("/diary/settings").body.contains(#"id="mood-baseline" checked"#))
            // The same face, read against itself: nothing beyond the resting face, so calm.
            #expect(try await estimate() == "neutral")
            try await browser.post("/diary/settings/mood-baseline", form: [:])
            #expect(!(try await browser.get("/diary/settings").body.contains(#"id="mood-baseline" checked"#)))
            #expect(try await estimate() == "sadness")
            try await browser.post("/diary/settings/mood-baseline", form: ["enabled": "on"])
            #expect(try await estimate() == "neutral")
            // Deleting face data deletes the baseline too.
            try await browser.post("/diary/face/delete", form: [:])
            #expect(!(try await browser.get("/diary/settings").body.contains("mood-baseline")))
            #expect(try await estimate() == "sadness")
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
