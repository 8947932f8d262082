import ArgumentParser
import FaceEngine
import Foundation

struct FaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face", abstract: "Analyse and compare faces with the built-in face engine.",
        subcommands: [Analyze.self, Compare.self, Bench.self]
    )

    struct ModelOptions: ParsableArguments {
        @Option(name: .customLong("models-dir"), help: "dlib models and libonnxruntime.so (HIBI_MODELS_DIR, default ./models)")
        var modelsDirectory: String?
        @Option(name: .customLong("emotion-model"), help: "Emotion ONNX model (default <resources>/models/emotion_mini_xception.onnx)")
        var emotionModel: String?
        @Option(name: .customLong("emotion-padding"), help: .hidden) var emotionPadding: Double?

        func engine(workers: Int = 1, queueLimit: Int = 64) throws -> FaceEngine {
            let env = ProcessInfo.processInfo.environment
            let models = modelsDirectory ?? env["HIBI_MODELS_DIR"] ?? "models"
            let resources = env["HIBI_RESOURCES_DIR"] ?? "Resources"
            var config = FaceEngineConfiguration(
                modelsDirectory: models,
                emotionModelPath: emotionModel ?? (resources as NSString).appendingPathComponent("models/emotion_mini_xception.onnx"))
            config.workers = workers
            config.queueLimit = queueLimit
            do {
                if let emotionPadding { return try FaceEngine(configuration: config, emotionPadding: emotionPadding) }
                return try FaceEngine(configuration: config)
            } catch let error as FaceEngineError {
                throw Fatal(error.description)
            }
        }
    }

    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw Fatal("Cannot read \(path).") }
        return data
    }

    struct Analyze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the faces in images: box, quality, yaw and mood.")
        @OptionGroup var models: ModelOptions
        @Flag(help: "One JSON object per image and line (with embeddings and stage timings)") var json = false
        @Argument(help: "JPEG, PNG or WebP files") var images: [String]

        func run() async throws {
            let engine = try runSync { try models.engine() }
            var failed = false
            for path in images {
                do {
                    let data = try Self.readOrFatal(path)
                    let (faces, timings) = try await engine.analyzeWithTimings(imageData: data)
                    if json {
                        print(jsonLine(path: path, faces: faces, timings: timings))
                    } else {
                        print("\(path): \(faces.count) face\(faces.count == 1 ? "" : "s")")
                        for (i, face) in faces.enumerated() {
                            let q = face.quality
                            let moods = face.emotions.sorted { $0.value > $1.value }.prefix(3)
                                .map { "\($0.key.rawValue) \(fmt($0.value * 100, 0))%" }.joined(separator: ", ")
                            print("  #\(i + 1) box \(face.box.x),\(face.box.y) \(face.box.width)x\(face.box.height)"
                                  + "  size \(q.size) sharpness \(fmt(q.sharpness, 0)) frontal \(fmt(q.frontalness, 2)) brightness \(fmt(q.brightness, 2))"
                                  + "  yaw \(fmt(face.yaw, 1))°  mood \(moods)")
                        }
                    }
                } catch let error as FaceEngineError {
                    failed = true
                    if json {
                        print("{\"path\":\(quote(path)),\"error\":\(quote(error.description))}")
                    } else {
                        printError("\(path): \(error.description)")
                    }
                }
            }
            if failed { throw ExitCode.failure }
        }

        static func readOrFatal(_ path: String) throws -> Data {
            do { return try FaceCommand.read(path) } catch let error as Fatal {
                printError(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Compare the best face of two images: distance and verdict.")
        @OptionGroup var models: ModelOptions
        @Option(help: "Largest distance accepted as the same person") var threshold: Float = FaceEngine.defaultMatchThreshold
        @Argument var first: String
        @Argument var second: String

        func run() async throws {
            let engine = try runSync { try models.engine(workers: 2) }
            async let a = face(engine, first)
            async let b = face(engine, second)
            let (fa, fb) = try await (a, b)
            let result = FaceEngine.compare(fa.embedding, fb.embedding, threshold: threshold)
            print("distance \(fmt(Double(result.distance), 3)) (threshold \(fmt(Double(threshold), 3))): "
                  + (result.isMatch ? "same person" : "different people"))
        }

        func face(_ engine: FaceEngine, _ path: String) async throws -> DetectedFace {
            let data = try Analyze.readOrFatal(path)
            do {
                guard let face = FaceEngine.bestFace(try await engine.analyze(imageData: data)) else { throw FaceEngineError.noFace }
                return face
            } catch let error as FaceEngineError {
                printError("\(path): \(error.description)")
                throw ExitCode.failure
            }
        }
    }

    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Per-stage timings (p50/p95 ms) over images, sequentially on one worker.", shouldDisplay: false)
        @OptionGroup var models: ModelOptions
        @Option(name: .customLong("repeat"), help: "Passes over the images") var passes: Int = 3
        @Argument var images: [String]

        func run() async throws {
            let clock = ContinuousClock()
            let loadStart = clock.now
            let engine = try runSync { try models.engine() }
            let load = clock.now - loadStart
            let datas = try images.map { try Analyze.readOrFatal($0) }
            _ = try? await engine.analyze(imageData: datas[0])  // warm-up
            var stages: [String: [Double]] = [:]
            var faces = 0
            for _ in 0..<max(1, passes) {
                for data in datas {
                    let (found, t) = try await engine.analyzeWithTimings(imageData: data)
                    faces += found.count
                    let perFace = max(1, found.count)
                    for (name, value) in [("decode", t.decode), ("detect", t.detect), ("align", t.align / perFace),
                                          ("embed", t.embed / perFace), ("emotion", t.emotion / perFace), ("total", t.total)] {
                        stages[name, default: []].append(value.milliseconds)
                    }
                }
            }
            print("{\"load_ms\":\(fmt(load.milliseconds, 1)),\"rss_mb\":\(fmt(residentMegabytes(), 1)),\"images\":\(datas.count),\"faces\":\(faces),\"stages\":{"
                  + ["decode", "detect", "align", "embed", "emotion", "total"].map { name in
                      let v = stages[name, default: [0]].sorted()
                      return "\(quote(name)):{\"p50\":\(fmt(percentile(v, 0.5), 2)),\"p95\":\(fmt(percentile(v, 0.95), 2))}"
                  }.joined(separator: ",") + "}}")
        }
    }
}

private func runSync<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as Fatal {
        printError(error.description)
        throw ExitCode.failure
    }
}

private func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = p * Double(sorted.count - 1)
    let lo = Int(saturating: rank.rounded(.down)), hi = Int(saturating: rank.rounded(.up))
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - Double(lo))
}

private func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

private func fmt(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
private func fmt(_ value: Float, _ digits: Int) -> String { fmt(Double(value), digits) }

private func quote(_ s: String) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: [s])) ?? Data("[\"\"]".utf8)
    return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
}

private func jsonLine(path: String, faces: [DetectedFace], timings: StageTimings) -> String {
    let list: [[String: Any]] = faces.map { face in
        [
            "box": [face.box.x, face.box.y, face.box.width, face.box.height],
            "landmarks": face.landmarks.map { [$0.x, $0.y] },
            "size": face.quality.size, "sharpness": face.quality.sharpness, "frontalness": face.quality.frontalness,
            "brightness": face.quality.brightness, "yaw": face.yaw,
            "embedding": face.embedding.map { Double($0) },
            "emotions": Dictionary(uniqueKeysWithValues: face.emotions.map { ($0.key.rawValue, Double($0.value)) }),
            "top": face.topEmotion.rawValue,
        ]
    }
    let object: [String: Any] = [
        "path": path, "faces": list,
        "ms": ["decode": timings.decode.milliseconds, "detect": timings.detect.milliseconds, "align": timings.align.milliseconds,
               "embed": timings.embed.milliseconds, "emotion": timings.emotion.milliseconds],
    ]
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}
