import CDlibShim
import Foundation

/// Face detection, 5-point alignment, 128-d embedding (dlib) and mood scores (FER2013
/// mini-Xception via ONNX Runtime). Create one per process: the models load in the initializer and
/// analyses run on a fixed pool of worker threads.
public final class FaceEngine: FaceAnalyzingEngine, Sendable {
    /// Largest embedding distance accepted as the same person. Chosen from Benchmarks/face-eval so
    /// that no impostor pair in the measured set is accepted (see docs/face-engine.md); stricter
    /// than dlib's customary 0.6, which accepted look-alikes here.
    public static let defaultMatchThreshold: Float = 0.5

    public let configuration: FaceEngineConfiguration
    private let emotion: EmotionClassifier
    private let pool: WorkerPool<AnalysisContext>

    /// Loads and checks every model file; throws `modelMissing` or `modelInvalid` naming the file.
    public init(configuration: FaceEngineConfiguration) throws(FaceEngineError) {
        self.configuration = configuration
        let directory = URL(fileURLWithPath: configuration.modelsDirectory)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let shapePath = path(ModelFile.shapePredictor.name)
        let recognitionPath = path(ModelFile.recognition.name)
        let emotionPath = configuration.emotionModelPath ?? path(ModelFile.emotion.name)
        let runtimePath = configuration.onnxRuntimeLibraryPath ?? path(ModelFile.onnxRuntime.name)
        let verify = configuration.verifyModelHashes
        try ModelFile.check(path: shapePath, sha256: ModelFile.shapePredictor.sha256, verify: verify)
        try ModelFile.check(path: recognitionPath, sha256: ModelFile.recognition.sha256, verify: verify)
        try ModelFile.check(path: emotionPath, sha256: ModelFile.emotion.sha256, verify: verify)
        try ModelFile.check(path: runtimePath, sha256: ModelFile.onnxRuntime.sha256, verify: verify)

        let models = try DlibModels(shapePredictorPath: shapePath, recognitionPath: recognitionPath)
        emotion = try EmotionClassifier(libraryPath: runtimePath, modelPath: emotionPath)
        var contexts: [AnalysisContext] = []
        for _ in 0 ..< configuration.workers {
            contexts.append(AnalysisContext(worker: try DlibWorker(models: models), maxFaces: configuration.maxFaces))
        }
        pool = WorkerPool(contexts: contexts, queueLimit: configuration.queueLimit, name: "face-engine")
    }

    deinit {
        pool.shutdown()
    }

    /// Every face in a JPEG, PNG or WebP image, largest first. No face is not an error here.
    public func analyze(imageData: Data) async throws -> FaceAnalysis {
        try await run(imageData: imageData, embeddings: true)
    }

    /// The one face in a photo that must show exactly one person meeting `requirements`.
    public func analyzeSingle(imageData: Data, requirements: FaceRequirements = .enrollment) async throws -> DetectedFace {
        try Self.single(in: try await analyze(imageData: imageData), requirements: requirements)
    }

    /// The checks `analyzeSingle` applies, in the order a user can fix them.
    public static func single(in analysis: FaceAnalysis, requirements: FaceRequirements) throws(FaceEngineError) -> DetectedFace {
        guard let face = analysis.faces.first else { throw .noFace }
        let others = analysis.faces.dropFirst().filter {
            Double($0.box.width) >= Double(face.box.width) * requirements.backgroundFaceRatio
        }
        if !others.isEmpty { throw .multipleFaces(count: others.count + 1) }
        if face.quality.faceSize < requirements.minimumFaceSize {
            throw .faceTooSmall(size: face.quality.faceSize, minimum: requirements.minimumFaceSize)
        }
        if face.quality.brightness < requirements.minimumBrightness { throw .tooDark }
        if face.quality.sharpness < requirements.minimumSharpness { throw .faceTooBlurry }
        if let maximumYaw = requirements.maximumYaw, abs(face.yaw) > maximumYaw { throw .notFrontal }
        return face
    }

    /// Euclidean distance between two embeddings and whether it is within `threshold`. Embeddings of
    /// different lengths never match.
    public static func compare(_ a: [Float], _ b: [Float], threshold: Float = defaultMatchThreshold) -> FaceComparison {
        guard a.count == b.count, !a.isEmpty else {
            return FaceComparison(distance: .infinity, threshold: threshold, isMatch: false)
        }
        var sum: Float = 0
        for index in a.indices {
            let d = a[index] - b[index]
            sum += d * d
        }
        let distance = sum.squareRoot()
        return FaceComparison(distance: distance, threshold: threshold, isMatch: distance <= threshold)
    }

    /// The face most worth using when several are present: large, sharp and frontal, weighted so
    /// that the person nearest the camera usually wins.
    public static func bestFace(_ faces: [DetectedFace]) -> DetectedFace? {
        faces.max { score($0) < score($1) }
    }

    public static func bestFace(_ analysis: FaceAnalysis) -> DetectedFace? {
        bestFace(analysis.faces)
    }

    static func score(_ face: DetectedFace) -> Double {
        let size = Double(face.quality.faceSize)
        let sharpness = min(face.quality.sharpness, 200) / 200
        return size * (0.5 + 0.5 * face.quality.frontalness) * (0.7 + 0.3 * sharpness)
    }

    private func run(imageData: Data, embeddings: Bool) async throws -> FaceAnalysis {
        let maxPixels = configuration.maxPixels
        let emotion = emotion
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FaceAnalysis, any Error>) in
            do {
                try pool.submit { context in
                    continuation.resume(with: Result {
                        try context.analyze(imageData, maxPixels: maxPixels, embeddings: embeddings, emotion: emotion)
                    })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Per-thread state: the dlib worker and a reusable output buffer.
final class AnalysisContext: @unchecked Sendable {
    let worker: DlibWorker
    let maxFaces: Int
    private var faces: [hibi_face]

    init(worker: DlibWorker, maxFaces: Int) {
        self.worker = worker
        self.maxFaces = maxFaces
        faces = Array(repeating: hibi_face(), count: maxFaces)
    }

    func analyze(_ data: Data, maxPixels: Int, embeddings: Bool, emotion: EmotionClassifier) throws(FaceEngineError) -> FaceAnalysis {
        let clock = ContinuousClock()
        let decodeStart = clock.now
        let image = try DecodedImage(data: data, maxPixels: maxPixels)
        let decodeMilliseconds = (clock.now - decodeStart).milliseconds

        var count: Int32 = 0
        var times = hibi_stage_times()
        var error = hibi_error()
        let status = faces.withUnsafeMutableBufferPointer { buffer in
            hibi_analyze(worker.handle, &image.image, embeddings ? 1 : 0, buffer.baseAddress, Int32(buffer.count),
                         &count, &times, &error)
        }
        guard status == HIBI_OK else { throw .engineFailure(error.text) }

        let emotionStart = clock.now
        var detected: [DetectedFace] = []
        for index in 0 ..< min(Int(count), maxFaces) {
            let scores = try withUnsafeBytes(of: &faces[index].emotion_input) { raw throws(FaceEngineError) in
                try emotion.classify(raw.bindMemory(to: Float.self).baseAddress!)
            }
            detected.append(Self.face(from: faces[index], emotions: scores, embeddings: embeddings))
        }
        let emotionMilliseconds = (clock.now - emotionStart).milliseconds

        return FaceAnalysis(
            imageWidth: image.width, imageHeight: image.height, faces: detected, detectedFaceCount: Int(count),
            timings: FaceStageTimings(decodeMilliseconds: decodeMilliseconds, detectMilliseconds: times.detect_ms,
                                      alignMilliseconds: times.align_ms, embedMilliseconds: times.embed_ms,
                                      emotionMilliseconds: emotionMilliseconds))
    }

    static func face(from raw: hibi_face, emotions: [Emotion: Float], embeddings: Bool) -> DetectedFace {
        var raw = raw
        let points: [FacePoint] = withUnsafeBytes(of: &raw.landmarks) { bytes in
            let v = bytes.bindMemory(to: Float.self)
            return (0 ..< 5).map { FacePoint(x: Double(v[2 * $0]), y: Double(v[2 * $0 + 1])) }
        }
        // dlib's 5-point order is one eye's outer and inner corner, the other eye's outer and inner
        // corner, then the nose; which eye comes first is read from the coordinates, not assumed.
        let firstEye = FacePoint.midpoint(points[0], points[1]), secondEye = FacePoint.midpoint(points[2], points[3])
        let (leftPair, rightPair) = firstEye.x <= secondEye.x ? ((points[0], points[1]), (points[2], points[3]))
                                                              : ((points[2], points[3]), (points[0], points[1]))
        let landmarks = FaceLandmarks(imageLeftEyeOuter: leftPair.0, imageLeftEyeInner: leftPair.1,
                                      imageRightEyeInner: rightPair.1, imageRightEyeOuter: rightPair.0,
                                      noseBottom: points[4])
        let embedding: [Float] = embeddings ? withUnsafeBytes(of: &raw.embedding) { Array($0.bindMemory(to: Float.self)) } : []
        let yaw = HeadPose.yaw(landmarks)
        let left = landmarks.imageLeftEyeCentre, right = landmarks.imageRightEyeCentre
        let box = FaceBox(x: Int(raw.left.rounded()), y: Int(raw.top.rounded()),
                          width: Int((raw.right - raw.left).rounded()), height: Int((raw.bottom - raw.top).rounded()))
        return DetectedFace(
            box: box,
            detectionScore: Double(raw.detection_score),
            landmarks: landmarks,
            yaw: yaw,
            quality: FaceQuality(faceSize: box.width, eyeDistance: hypot(right.x - left.x, right.y - left.y),
                                 sharpness: Double(raw.sharpness), brightness: Double(raw.brightness),
                                 frontalness: HeadPose.frontalness(yaw: yaw)),
            embedding: embedding,
            emotions: emotions)
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
