import FaceEngine
import Foundation
import Testing

@Suite("Face engine on real images")
struct FaceEngineTests {
    @Test("Frames of the same man's video verify against his photo")
    func samePersonVerifies() async throws {
        let reference = try await Fixtures.face("feat/single_face.jpg")
        #expect(reference.embedding.count == 128)
        for index in [0, 15, 30, 45, 60, 71] {
            let frame = try await Fixtures.face(String(format: "frames/single_face/%04d.jpg", index))
            let result = FaceEngine.compare(reference.embedding, frame.embedding)
            #expect(result.isMatch, "frame \(index): distance \(result.distance)")
        }
        let other = try await Fixtures.face("frames/face_noface/0000.jpg")
        #expect(FaceEngine.compare(reference.embedding, other.embedding).isMatch)
    }

    @Test("Different people do not match")
    func differentPeopleDoNotMatch() async throws {
        let man = try await Fixtures.face("feat/single_face.jpg")
        let astronaut = try await Fixtures.face("skimage/astronaut.png")
        let woman = try await Fixtures.face("frames/wolfgang/0400.jpg")
        #expect(!FaceEngine.compare(man.embedding, astronaut.embedding).isMatch)
        #expect(!FaceEngine.compare(man.embedding, woman.embedding).isMatch)
        #expect(!FaceEngine.compare(astronaut.embedding, woman.embedding).isMatch)

        let group = try await Fixtures.faces("feat/multi_face.jpg")
        #expect(group.count >= 4)
        for i in group.indices {
            #expect(!FaceEngine.compare(group[i].embedding, man.embedding).isMatch)
            for j in group.indices where j > i {
                let result = FaceEngine.compare(group[i].embedding, group[j].embedding)
                #expect(!result.isMatch, "group faces \(i) and \(j): distance \(result.distance)")
            }
        }
    }

    @Test("Faces come back complete: box, 5 landmarks, quality, moods summing to 1")
    func faceIsComplete() async throws {
        let faces = try await Fixtures.faces("feat/multi_face.jpg")
        let areas = faces.map { $0.box.width * $0.box.height }
        #expect(areas == areas.sorted(by: >), "largest first")
        for face in faces {
            #expect(face.landmarks.count == 5)
            #expect(face.embedding.count == 128)
            #expect(Set(face.emotions.keys) == Set(Emotion.allCases))
            #expect(abs(face.emotions.values.reduce(0, +) - 1) < 1e-4)
            #expect(face.quality.size > 0 && face.quality.brightness > 0 && face.quality.brightness <= 1)
            for p in face.landmarks {
                #expect(Double(face.box.x) - 0.5 * Double(face.box.width) < p.x && p.x < Double(face.box.x) + 1.5 * Double(face.box.width))
            }
        }
    }

    @Test("An image without a face gives no faces and the no-face error")
    func noFace() async throws {
        let engine = try Fixtures.engine()
        let data = try Fixtures.data("feat/free-mountain-vector-01.jpg")
        #expect(try await engine.analyze(imageData: data).isEmpty)
        await #expect(throws: FaceEngineError.noFace) {
            try await engine.analyzeSingle(imageData: data, requirements: .unlockFrame)
        }
    }

    @Test("Several people where one is required")
    func multipleFaces() async throws {
        let engine = try Fixtures.engine()
        await #expect(throws: FaceEngineError.multipleFaces(count: 4)) {
            try await engine.analyzeSingle(imageData: try Fixtures.data("feat/multi_face.jpg"), requirements: .unlockFrame)
        }
    }

    @Test("A good photo passes enrollment; a tiny copy is too small")
    func enrollment() async throws {
        let engine = try Fixtures.engine()
        let face = try await engine.analyzeSingle(imageData: try Fixtures.data("feat/single_face.jpg"), requirements: .enrollment)
        #expect(abs(face.yaw) < 20)
        var strict = FaceRequirements.enrollment
        strict.minFaceSize = 2000
        await #expect(throws: FaceEngineError.faceTooSmall) {
            try await engine.analyzeSingle(imageData: try Fixtures.data("feat/single_face.jpg"), requirements: strict)
        }
    }

    @Test("Truncated, garbage, empty and oversized images give clear errors")
    func badImages() async throws {
        let engine = try Fixtures.engine()
        await #expect(throws: FaceEngineError.unreadableImage) {
            try await engine.analyze(imageData: try Fixtures.data("truncated.jpg"))
        }
        await #expect(throws: FaceEngineError.imageTooLarge(width: 30000, height: 30000)) {
            try await engine.analyze(imageData: try Fixtures.data("bomb.png"))
        }
        await #expect(throws: FaceEngineError.unreadableImage) { try await engine.analyze(imageData: Data()) }
        await #expect(throws: FaceEngineError.unreadableImage) {
            try await engine.analyze(imageData: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        }
        let png = try Fixtures.data("skimage/astronaut.png")
        await #expect(throws: FaceEngineError.unreadableImage) { try await engine.analyze(imageData: png.prefix(png.count / 2)) }
        let webp = try Fixtures.data("single_face.webp")
        await #expect(throws: FaceEngineError.unreadableImage) { try await engine.analyze(imageData: webp.prefix(webp.count / 2)) }
        #expect(FaceEngineError.imageTooLarge(width: 30000, height: 30000).description.contains("30000x30000"))
    }

    @Test("Damaged JPEG, PNG and WebP bytes give results or typed errors, never a crash")
    func damagedImages() async throws {
        let engine = try Fixtures.engine()
        var generator = SplitMix(seed: 42)
        for name in ["single_face_640x480.jpg", "single_face.webp", "feat/0-f1-su-ph.jpg", "bomb.png"] {
            let original = [UInt8](try Fixtures.data(name))
            for round in 0..<15 {
                var bytes = original
                if round % 3 == 0 {
                    bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
                } else {
                    for _ in 0..<(1 + Int(generator.next() % 40)) {
                        bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                    }
                }
                do {
                    _ = try await engine.analyze(imageData: Data(bytes))
                } catch let error as FaceEngineError {
                    #expect([.unreadableImage].contains(error) || { if case .imageTooLarge = error { return true }; return false }(),
                            "\(name) round \(round): \(error)")
                }
            }
        }
    }

    @Test("WebP decodes to the same person as the JPEG")
    func webp() async throws {
        let jpeg = try await Fixtures.face("feat/single_face.jpg")
        let webp = try await Fixtures.face("single_face.webp")
        #expect(FaceEngine.compare(jpeg.embedding, webp.embedding).distance < 0.1)
    }

    @Test("Posed happy and surprised photos get those moods on top")
    func moods() async throws {
        let happy = try await Fixtures.face("feat/0-f15-hao-ph.jpg")
        #expect(happy.topEmotion == .happiness, "\(happy.emotions)")
        let surprise = try await Fixtures.face("feat/0-f1-su-ph.jpg")
        #expect(surprise.topEmotion == .surprise, "\(surprise.emotions)")
    }

    @Test("Yaw changes sign between a left-turned and a right-turned frame of the same video")
    func yawSign() async throws {
        // Frames measured in WolfgangLanger_Pexels.mp4 (see docs/face-engine.md).
        let ownLeft = try await Fixtures.face(YawFrames.ownLeft)
        let ownRight = try await Fixtures.face(YawFrames.ownRight)
        #expect(ownLeft.yaw < -10, "turned to her own left: \(ownLeft.yaw)")
        #expect(ownRight.yaw > 10, "turned to her own right: \(ownRight.yaw)")
    }

    @Test("Many concurrent analyses all succeed or get busy, never crash")
    func concurrency() async throws {
        var config = Fixtures.configuration()
        config.workers = 2
        config.queueLimit = 3
        let engine = try FaceEngine(configuration: config)
        let data = try Fixtures.data("single_face_640x480.jpg")
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    do {
                        let faces = try await engine.analyze(imageData: data)
                        return faces.count == 1 ? "ok" : "faces \(faces.count)"
                    } catch FaceEngineError.busy {
                        return "busy"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == "ok" || $0 == "busy" }, "\(outcomes)")
        #expect(outcomes.contains("ok"))
        #expect(outcomes.contains("busy"))
        // The engine still works after the burst.
        #expect(try await engine.analyze(imageData: data).count == 1)
    }

    @Test("Engines can be dropped while their analyses finish")
    func dropEngine() async throws {
        let data = try Fixtures.data("single_face_640x480.jpg")
        for _ in 0..<3 {
            var config = Fixtures.configuration()
            config.workers = 2
            let tasks: [Task<Int, any Error>] = try {
                let engine = try FaceEngine(configuration: config)
                return (0..<4).map { _ in Task { try await engine.analyze(imageData: data).count } }
            }()
            for task in tasks { #expect(try await task.value == 1) }
        }
    }

    @Test("Missing and damaged model files are reported by path")
    func modelErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-face-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = FaceEngineConfiguration(modelsDirectory: dir.path, emotionModelPath: Fixtures.emotionModel.path)
        let shape = dir.appendingPathComponent("shape_predictor_5_face_landmarks.dat").path
        #expect(throws: FaceEngineError.modelMissing(path: shape)) { try FaceEngine(configuration: config) }
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: shape))
        #expect(throws: FaceEngineError.modelInvalid(path: shape)) { try FaceEngine(configuration: config) }
    }

    @Test("Comparison of unusable embeddings never matches")
    func compareEdges() {
        #expect(!FaceEngine.compare([], []).isMatch)
        #expect(!FaceEngine.compare([0, 0], [0]).isMatch)
        #expect(FaceEngine.compare([0, 0], [0, 0]).isMatch)
        #expect(FaceEngine.compare([0, 0], [3, 4]).distance == 5)
        #expect(FaceEngine.bestFace([]) == nil)
    }
}

/// A tiny deterministic random generator for the damaged-image test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Hostile JPEGs")
struct HostileJPEGTests {
    /// A valid progressive greyscale JPEG whose DC scan is repeated `scans` times.
    static func scanBomb(width: Int, height: Int, scans: Int) -> Data {
        var out = Data([0xFF, 0xD8])
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        segment(0xC2, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
        segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        let data = [UInt8](repeating: 0x00, count: (((width + 7) / 8) * ((height + 7) / 8) + 7) / 8)
        for _ in 0..<scans {
            segment(0xDA, [1, 1, 0x00, 0, 0, 0x00])
            out += data
        }
        out += [0xFF, 0xD9]
        return out
    }

    @Test("One scan decodes; the same scan repeated thousands of times is refused, not decoded to the end")
    func repeatedScans() async throws {
        let engine = try Fixtures.engine()
        // The single-scan image is valid: a grey square without a face.
        #expect(try await engine.analyze(imageData: Self.scanBomb(width: 256, height: 256, scans: 1)).isEmpty)
        for scans in [150, 20_000] {
            await #expect(throws: FaceEngineError.self) {
                try await engine.analyze(imageData: Self.scanBomb(width: 256, height: 256, scans: scans))
            }
        }
        // The engine is still there for the next image.
        #expect(try await engine.analyze(imageData: try Fixtures.data("single_face_640x480.jpg")).count == 1)
    }

    @Test("Corrupt data that libjpeg only warns about is an error")
    func warningsAreErrors() async throws {
        var bytes = [UInt8](try Fixtures.data("single_face_640x480.jpg"))
        // Junk between the header and the first marker after it: "extraneous bytes before marker".
        guard let sos = (2..<bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }) else {
            Issue.record("no SOS marker")
            return
        }
        bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: sos)
        await #expect(throws: FaceEngineError.unreadableImage) {
            try await Fixtures.engine().analyze(imageData: Data(bytes))
        }
    }
}
