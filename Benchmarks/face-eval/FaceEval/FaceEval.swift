// face-eval: measurements behind the face engine's defaults.
//   face-eval inspect IMAGE...            faces, landmarks, yaw, quality and moods per image
//   face-eval yaw DIR                     yaw of the largest face in every frame of DIR
//   face-eval distances FIXTURES [T...]   genuine/impostor distances and FAR/FRR at thresholds T
//   face-eval bench IMAGE...              per-stage p50/p95 over the images (after a warm-up pass)
import FaceEngine
import Foundation

@main
struct FaceEval {
    static func main() async throws {
        var args = Array(CommandLine.arguments.dropFirst())
        guard !args.isEmpty else { usage() }
        let command = args.removeFirst()
        let models = ProcessInfo.processInfo.environment["HIBI_MODELS_DIR"] ?? "models"
        let workers = Int(ProcessInfo.processInfo.environment["FACE_EVAL_WORKERS"] ?? "") ?? 2
        let engine = try FaceEngine(configuration: FaceEngineConfiguration(modelsDirectory: models, workers: workers,
                                                                           queueLimit: 10_000))
        switch command {
        case "inspect": try await inspect(engine, args)
        case "yaw": try await yaw(engine, args)
        case "distances": try await distances(engine, args)
        case "bench": try await bench(engine, args)
        default: usage()
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: face-eval inspect|yaw|distances|bench ...\n".utf8))
        exit(2)
    }

    static func f(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

    static func inspect(_ engine: FaceEngine, _ paths: [String]) async throws {
        for path in paths {
            do {
                let analysis = try await engine.analyze(imageData: try Data(contentsOf: URL(fileURLWithPath: path)))
                print("\(path): \(analysis.imageWidth)x\(analysis.imageHeight), \(analysis.detectedFaceCount) face(s)")
                for face in analysis.faces {
                    let moods = face.emotions.sorted { $0.value > $1.value }.map { "\($0.key.rawValue)=\(f(Double($0.value), 2))" }
                    print("  box \(face.box.x),\(face.box.y) \(face.box.width)x\(face.box.height) score \(f(face.detectionScore))"
                          + " yaw \(f(face.yaw, 1)) size \(face.quality.faceSize) sharp \(f(face.quality.sharpness, 1))"
                          + " bright \(f(face.quality.brightness, 2)) frontal \(f(face.quality.frontalness, 2))")
                    print("  landmarks " + face.landmarks.points.map { "(\(Int($0.x)),\(Int($0.y)))" }.joined(separator: " "))
                    print("  moods " + moods.joined(separator: " "))
                }
            } catch {
                print("\(path): error: \(error)")
            }
        }
    }

    static func frames(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
            .sorted().map { directory + "/" + $0 }
    }

    static func yaw(_ engine: FaceEngine, _ args: [String]) async throws {
        for path in try frames(in: args[0]) {
            let analysis = try await engine.analyze(imageData: try Data(contentsOf: URL(fileURLWithPath: path)))
            if let face = analysis.faces.first {
                print("\((path as NSString).lastPathComponent) yaw \(f(face.yaw, 1)) size \(face.quality.faceSize)")
            } else {
                print("\((path as NSString).lastPathComponent) no face")
            }
        }
    }

    struct Sample {
        var identity: String
        var source: String
        var embedding: [Float]
    }

    /// Identities in the fixtures: two videos of one man, one video of one woman, and single photos
    /// of eleven other people (the four posed-expression models, the five people in multi_face.jpg,
    /// the astronaut and the portrait in BWPictureHuman.jpg).
    static func samples(_ engine: FaceEngine, fixtures: String) async throws -> [Sample] {
        var result: [Sample] = []
        func embed(_ path: String) async throws -> [DetectedFace] {
            try await engine.analyze(imageData: try Data(contentsOf: URL(fileURLWithPath: path))).faces
        }
        let videos: [(identity: String, directory: String, step: Int)] = [
            ("man", "frames/man", 6), ("man", "frames/man2", 6), ("woman", "frames/woman", 8),
        ]
        for video in videos {
            for (index, path) in try frames(in: fixtures + "/" + video.directory).enumerated() where index % video.step == 0 {
                if let face = try await embed(path).first {
                    result.append(Sample(identity: video.identity, source: video.directory + "/" + (path as NSString).lastPathComponent,
                                         embedding: face.embedding))
                }
            }
        }
        if let face = try await embed(fixtures + "/feat/single_face.jpg").first {
            result.append(Sample(identity: "man", source: "feat/single_face.jpg", embedding: face.embedding))
        }
        let singles: [(String, String)] = [
            ("posed-f1", "feat/0-f1-su-ph.jpg"), ("posed-f15", "feat/0-f15-hao-ph.jpg"),
            ("posed-f13", "feat/15-f13-anc-ph.jpg"), ("posed-m7", "feat/45-m7-di-ph.jpg"),
            ("astronaut", "skimage/astronaut.png"), ("bw-portrait", "feat/BWPictureHuman.jpg"),
        ]
        for (identity, path) in singles {
            if let face = try await embed(fixtures + "/" + path).first {
                result.append(Sample(identity: identity, source: path, embedding: face.embedding))
            } else {
                print("warning: no face in \(path)")
            }
        }
        for (index, face) in try await embed(fixtures + "/feat/multi_face.jpg").enumerated() {
            result.append(Sample(identity: "group-\(index)", source: "feat/multi_face.jpg#\(index)", embedding: face.embedding))
        }
        return result
    }

    static func distances(_ engine: FaceEngine, _ args: [String]) async throws {
        let fixtures = args.first ?? ".cache/face-fixtures"
        let thresholds = args.count > 1 ? args.dropFirst().compactMap(Float.init)
                                        : [0.35, 0.40, 0.42, 0.45, 0.48, 0.50, 0.52, 0.55, 0.60]
        let all = try await samples(engine, fixtures: fixtures)
        var genuine: [Float] = [], impostor: [Float] = []
        var closestImpostor: (Float, String, String) = (.infinity, "", "")
        var farthestGenuine: (Float, String, String) = (0, "", "")
        var closestByPair: [String: Float] = [:]
        for i in all.indices {
            for j in all.indices where j > i {
                let d = FaceEngine.compare(all[i].embedding, all[j].embedding).distance
                if all[i].identity == all[j].identity {
                    genuine.append(d)
                    if d > farthestGenuine.0 { farthestGenuine = (d, all[i].source, all[j].source) }
                } else {
                    impostor.append(d)
                    if d < closestImpostor.0 { closestImpostor = (d, all[i].source, all[j].source) }
                    let key = [all[i].identity, all[j].identity].sorted().joined(separator: " vs ")
                    closestByPair[key] = min(closestByPair[key] ?? .infinity, d)
                }
            }
        }
        func pct(_ values: [Float], _ p: Double) -> Float {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
        }
        let identities = Set(all.map(\.identity))
        print("samples: \(all.count) faces of \(identities.count) people")
        print("genuine pairs: \(genuine.count), distance min \(f(Double(genuine.min()!))) p50 \(f(Double(pct(genuine, 0.5))))"
              + " p95 \(f(Double(pct(genuine, 0.95)))) max \(f(Double(genuine.max()!)))")
        print("impostor pairs: \(impostor.count), distance min \(f(Double(impostor.min()!))) p5 \(f(Double(pct(impostor, 0.05))))"
              + " p50 \(f(Double(pct(impostor, 0.5)))) max \(f(Double(impostor.max()!)))")
        print("farthest genuine: \(f(Double(farthestGenuine.0))) \(farthestGenuine.1) ~ \(farthestGenuine.2)")
        print("closest impostor: \(f(Double(closestImpostor.0))) \(closestImpostor.1) ~ \(closestImpostor.2)")
        print("closest pairs of different people:")
        for (pair, d) in closestByPair.sorted(by: { $0.value < $1.value }).prefix(8) {
            print("  \(f(Double(d))) \(pair)")
        }
        print("threshold  FAR (impostor accepted)  FRR (genuine rejected)")
        for t in thresholds {
            let far = Double(impostor.filter { $0 <= t }.count) / Double(impostor.count)
            let frr = Double(genuine.filter { $0 > t }.count) / Double(genuine.count)
            print("  \(f(Double(t), 2))     \(f(far * 100, 2))%                  \(f(frr * 100, 2))%")
        }
        let current = FaceEngine.defaultMatchThreshold
        print("face_eval_genuine_pairs: \(genuine.count) pairs")
        print("face_eval_impostor_pairs: \(impostor.count) pairs")
        print("face_eval_min_impostor_distance: \(f(Double(impostor.min()!))) distance")
        print("face_eval_max_genuine_distance: \(f(Double(genuine.max()!))) distance")
        print("face_eval_far_at_default: \(f(Double(impostor.filter { $0 <= current }.count) / Double(impostor.count) * 100, 2)) percent")
        print("face_eval_frr_at_default: \(f(Double(genuine.filter { $0 > current }.count) / Double(genuine.count) * 100, 2)) percent")
    }

    static func bench(_ engine: FaceEngine, _ paths: [String]) async throws {
        let images = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for image in images.prefix(3) { _ = try await engine.analyze(imageData: image) }
        var stages: [String: [Double]] = [:]
        var faceless = 0
        let clock = ContinuousClock()
        var walls: [Double] = []
        for image in images {
            let start = clock.now
            let analysis = try await engine.analyze(imageData: image)
            let wall = clock.now - start
            walls.append(Double(wall.components.seconds) * 1000 + Double(wall.components.attoseconds) / 1e15)
            if analysis.faces.isEmpty { faceless += 1 }
            let t = analysis.timings
            stages["decode", default: []].append(t.decodeMilliseconds)
            stages["detect", default: []].append(t.detectMilliseconds)
            stages["align", default: []].append(t.alignMilliseconds)
            stages["embed", default: []].append(t.embedMilliseconds)
            stages["emotion", default: []].append(t.emotionMilliseconds)
            stages["total", default: []].append(t.totalMilliseconds)
        }
        stages["wall", default: []] = walls
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        print("images: \(images.count), without a face: \(faceless)")
        for name in ["decode", "detect", "align", "embed", "emotion", "total", "wall"] {
            let values = stages[name] ?? []
            print("swift_\(name)_p50: \(f(percentile(values, 0.5), 2)) ms")
            print("swift_\(name)_p95: \(f(percentile(values, 0.95), 2)) ms")
        }
    }
}
