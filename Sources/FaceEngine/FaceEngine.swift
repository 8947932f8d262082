import CDlibShim
import COnnxRuntime
import Crypto
import Foundation

/// Face detection (dlib HOG), 5-point alignment, 128-d embedding (dlib ResNet) and mood (FER2013
/// mini-Xception via ONNX Runtime). Models load once; analyses run on a bounded pool of threads.
public final class FaceEngine: Sendable {
    /// Largest distance accepted as the same person. Chosen in Benchmarks/face-eval so that no
    /// impostor pair in the evaluation set is accepted (see docs/face-engine.md).
    public static let defaultMatchThreshold: Float = 0.49

    static let shapePredictorFile = "shape_predictor_5_face_landmarks.dat"
    static let resnetFile = "dlib_face_recognition_resnet_model_v1.dat"
    static let expectedSHA256: [String: String] = [
        shapePredictorFile: "c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888",
        resnetFile: "55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30",
        "emotion_mini_xception.onnx": EmotionModel.sha256,
    ]

    /// Detection scans at most this many pixels (larger images are downscaled first) ...
    static let detectMaxPixels: Int64 = 1_000_000
    /// ... and, when nothing was found in an image smaller than this, scans again at twice the size.
    static let upsampleBelowPixels: Int64 = 1_000_000
    static let maxFaces = 32

    public let configuration: FaceEngineConfiguration
    private let models: NativeModels
    private let emotion: EmotionModel
    private let pool: WorkerPool
    let emotionPadding: Double

    public convenience init(configuration: FaceEngineConfiguration) throws {
        try self.init(configuration: configuration, emotionPadding: EmotionModel.defaultPadding)
    }

    package init(configuration: FaceEngineConfiguration, emotionPadding: Double) throws {
        self.configuration = configuration
        self.emotionPadding = emotionPadding
        let directory = URL(fileURLWithPath: configuration.modelsDirectory)
        let shapePath = directory.appendingPathComponent(Self.shapePredictorFile).path
        let resnetPath = directory.appendingPathComponent(Self.resnetFile).path
        try Self.verify(shapePath, sha256: Self.expectedSHA256[Self.shapePredictorFile]!)
        try Self.verify(resnetPath, sha256: Self.expectedSHA256[Self.resnetFile]!)
        try Self.verify(configuration.emotionModelPath, sha256: EmotionModel.sha256)
        let library = try Self.onnxRuntimeLibrary(in: directory)

        var message = MessageBuffer()
        var loaded: OpaquePointer?
        let status = message.call { fe_models_load(shapePath, resnetPath, &loaded, $0, $1) }
        guard status == Int32(FE_OK.rawValue), let loaded else {
            throw FaceEngineError.modelInvalid(path: message.text.hasPrefix(shapePath) ? shapePath : resnetPath)
        }
        models = NativeModels(loaded)
        emotion = try EmotionModel(library: library, model: configuration.emotionModelPath)

        var workers: [OpaquePointer] = []
        for _ in 0..<max(1, configuration.workers) {
            var worker: OpaquePointer?
            let status = message.call { fe_worker_create(loaded, &worker, $0, $1) }
            guard status == Int32(FE_OK.rawValue), let worker else {
                workers.forEach { fe_worker_free($0) }
                throw FaceEngineError.modelInvalid(path: resnetPath)
            }
            workers.append(worker)
        }
        pool = WorkerPool(workers: workers, queueLimit: configuration.queueLimit) { fe_worker_free($0) }
    }

    deinit {
        pool.shutdown()  // workers are freed by their threads; models afterwards by NativeModels
    }

    // MARK: - Analysis

    /// All faces, largest first; [] when there is none.
    public func analyze(imageData: Data) async throws -> [DetectedFace] {
        try await analyzeWithTimings(imageData: imageData).faces
    }

    /// Like `analyze`, with the time each stage took (for the benchmark and the CLI).
    package func analyzeWithTimings(imageData: Data) async throws -> (faces: [DetectedFace], timings: StageTimings) {
        let outcome: Result<([DetectedFace], StageTimings), FaceEngineError> = try await withCheckedThrowingContinuation { continuation in
            do {
                try pool.submit { [self] worker in
                    continuation.resume(returning: Result { () throws(FaceEngineError) in
                        try self.run(worker: worker, data: imageData)
                    })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        let (faces, timings) = try outcome.get()
        return (faces, timings)
    }

    /// Exactly one face meeting the requirements, or the error telling the user what to change.
    /// With `requireSingleFace`, faces smaller than half of `minFaceSize` (people far behind) are ignored.
    public func analyzeSingle(imageData: Data, requirements: FaceRequirements) async throws -> DetectedFace {
        let faces = try await analyze(imageData: imageData)
        guard let first = faces.first else { throw FaceEngineError.noFace }
        if requirements.requireSingleFace {
            let counted = faces.filter { $0.quality.size * 2 >= requirements.minFaceSize }
            if counted.count > 1 { throw FaceEngineError.multipleFaces(count: counted.count) }
        }
        let face = first
        if face.quality.size < requirements.minFaceSize { throw FaceEngineError.faceTooSmall }
        if face.quality.brightness < requirements.minBrightness { throw FaceEngineError.tooDark }
        if face.quality.sharpness < requirements.minSharpness { throw FaceEngineError.faceTooBlurry }
        if abs(face.yaw) > requirements.maxAbsYaw { throw FaceEngineError.notFrontal }
        return face
    }

    // MARK: - Comparison

    /// Euclidean distance of two embeddings and whether it is within `threshold`.
    /// Embeddings of different lengths, empty ones or ones with NaN never match.
    public static func compare(_ a: [Float], _ b: [Float], threshold: Float = defaultMatchThreshold) -> FaceComparison {
        guard a.count == b.count, !a.isEmpty else { return FaceComparison(distance: .infinity, isMatch: false) }
        var sum: Float = 0
        for i in a.indices {
            let d = a[i] - b[i]
            sum += d * d
        }
        let distance = sum.squareRoot()
        guard distance.isFinite else { return FaceComparison(distance: .infinity, isMatch: false) }
        return FaceComparison(distance: distance, isMatch: distance <= threshold)
    }

    /// The face most useful for recognition: large, frontal, sharp and not dark.
    public static func bestFace(_ faces: [DetectedFace]) -> DetectedFace? {
        faces.max { score($0) < score($1) }
    }

    static func score(_ face: DetectedFace) -> Double {
        let q = face.quality
        return Double(q.size) * q.frontalness * min(1, q.sharpness / 40) * min(1, q.brightness / 0.2)
    }

    // MARK: - Worker side

    private func run(worker: OpaquePointer, data: Data) throws(FaceEngineError) -> ([DetectedFace], StageTimings) {
        var timings = StageTimings()
        var message = MessageBuffer()
        let clock = ContinuousClock()

        var start = clock.now
        var image: OpaquePointer?
        var width: Int32 = 0, height: Int32 = 0
        let maxPixels = Int64(configuration.maxPixels)
        let status = data.withUnsafeBytes { raw in
            message.call {
                fe_image_decode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, maxPixels, &image, &width, &height, $0, $1)
            }
        }
        switch status {
        case Int32(FE_OK.rawValue): break
        case Int32(FE_ERR_TOO_LARGE.rawValue): throw .imageTooLarge(width: Int(width), height: Int(height))
        case Int32(FE_ERR_TOO_COMPLEX.rawValue): throw .imageTooComplex
        default: throw .unreadableImage
        }
        guard let image else { throw .unreadableImage }
        defer { fe_image_free(image) }
        timings.decode = clock.now - start

        start = clock.now
        var rects = [fe_rect](repeating: fe_rect(), count: Self.maxFaces)
        var count: Int32 = 0
        let detected = message.call {
            fe_detect(worker, image, Self.detectMaxPixels, Self.upsampleBelowPixels, &rects, Int32(Self.maxFaces), &count, $0, $1)
        }
        guard detected == Int32(FE_OK.rawValue) else { throw .unreadableImage }
        timings.detect = clock.now - start

        var faces: [DetectedFace] = []
        for rect in rects.prefix(Int(count)) {
            start = clock.now
            var points = [fe_point](repeating: fe_point(), count: 5)
            guard message.call({ fe_landmarks(worker, image, rect, &points, $0, $1) }) == Int32(FE_OK.rawValue) else { continue }
            timings.align += clock.now - start

            start = clock.now
            var embedding = [Float](repeating: 0, count: 128)
            var sharpness = 0.0, brightness = 0.0
            guard message.call({ fe_embed(worker, image, rect, points, &embedding, &sharpness, &brightness, $0, $1) }) == Int32(FE_OK.rawValue)
            else { continue }
            timings.embed += clock.now - start

            start = clock.now
            let emotions = emotion.classify(image: image, rect: rect, landmarks: points, padding: emotionPadding)
            timings.emotion += clock.now - start

            let landmarks = points.map { FacePoint(x: $0.x, y: $0.y) }
            let yaw = Self.yaw(landmarks)
            let box = FaceBox(x: Int(rect.left.rounded()), y: Int(rect.top.rounded()),
                              width: Int((rect.right - rect.left + 1).rounded()), height: Int((rect.bottom - rect.top + 1).rounded()))
            let quality = FaceQuality(size: min(box.width, box.height), sharpness: sharpness,
                                      frontalness: max(0, 1 - abs(yaw) / 90), brightness: brightness)
            faces.append(DetectedFace(box: box, landmarks: landmarks, quality: quality, yaw: yaw,
                                      embedding: embedding, emotions: emotions))
        }
        faces.sort { $0.box.width * $0.box.height > $1.box.width * $1.box.height }
        timings.faces = faces.count
        return (faces, timings)
    }

    /// Ratio of the nose's depth in front of the eye corners to the distance between the eyes,
    /// used to turn the nose's sideways offset into an angle.
    static let noseDepthRatio = 0.4

    /// Yaw in degrees from the 5 landmarks: the nose's offset along the (roll-corrected) eye line,
    /// relative to the eye distance. Negative when the person turns to their own left.
    static func yaw(_ p: [FacePoint]) -> Double {
        guard p.count == 5 else { return 0 }
        let imageRightEye = (x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2)
        let imageLeftEye = (x: (p[2].x + p[3].x) / 2, y: (p[2].y + p[3].y) / 2)
        let dx = imageRightEye.x - imageLeftEye.x, dy = imageRightEye.y - imageLeftEye.y
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 1e-6 else { return 0 }
        let mid = (x: (imageRightEye.x + imageLeftEye.x) / 2, y: (imageRightEye.y + imageLeftEye.y) / 2)
        // Positive when the nose sits towards the image's right, i.e. the person's own left.
        let offset = ((p[4].x - mid.x) * dx + (p[4].y - mid.y) * dy) / (d * d)
        return -atan(offset / noseDepthRatio) * 180 / .pi
    }

    // MARK: - Files

    static func verify(_ path: String, sha256 expected: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw FaceEngineError.modelMissing(path: path) }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk = (try? handle.read(upToCount: 1 << 20)) ?? nil
            guard let chunk, !chunk.isEmpty else { break }
            hasher.update(data: chunk)
        }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard digest == expected else { throw FaceEngineError.modelInvalid(path: path) }
    }

    static func onnxRuntimeLibrary(in directory: URL) throws -> String {
        let plain = directory.appendingPathComponent("libonnxruntime.so").path
        if FileManager.default.fileExists(atPath: plain) { return plain }
        let versioned = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?
            .filter { $0.hasPrefix("libonnxruntime.so.") }.sorted().last
        if let versioned { return directory.appendingPathComponent(versioned).path }
        throw FaceEngineError.modelMissing(path: plain)
    }
}

/// Time spent per stage of one analysis (align/embed/emotion summed over faces).
package struct StageTimings: Sendable {
    package var decode: Duration = .zero
    package var detect: Duration = .zero
    package var align: Duration = .zero
    package var embed: Duration = .zero
    package var emotion: Duration = .zero
    package var faces = 0
    package var total: Duration { decode + detect + align + embed + emotion }
}

extension Duration {
    package var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

final class NativeModels: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { fe_models_free(pointer) }
}

/// A C message buffer for the shim's (message, capacity) out-parameters.
struct MessageBuffer {
    private var bytes = [CChar](repeating: 0, count: 512)

    mutating func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> Int32 {
        bytes.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    }

    var text: String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
