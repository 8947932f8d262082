import Foundation

/// The seven moods the emotion model scores, named as the diary names them.
public enum Emotion: String, Sendable, Codable, CaseIterable, Hashable {
    case happiness, sadness, anger, surprise, fear, disgust, neutral

    /// The emotion model's output order (FER2013 labels: angry, disgust, fear, happy, sad, surprise, neutral).
    static let modelOrder: [Emotion] = [.anger, .disgust, .fear, .happiness, .sadness, .surprise, .neutral]
}

public struct FacePoint: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// In the decoded image's pixels (after EXIF orientation), origin top left.
public struct FaceBox: Sendable, Equatable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The five landmarks, named by where they appear in the image (not by the person's left/right,
/// which flips if a camera preview is mirrored). As a collection: outer-left eye corner, inner-left,
/// inner-right, outer-right, nose bottom.
public struct FaceLandmarks: Sendable, Equatable, Codable, RandomAccessCollection {
    public var imageLeftEyeOuter: FacePoint
    public var imageLeftEyeInner: FacePoint
    public var imageRightEyeInner: FacePoint
    public var imageRightEyeOuter: FacePoint
    public var noseBottom: FacePoint

    public var points: [FacePoint] {
        [imageLeftEyeOuter, imageLeftEyeInner, imageRightEyeInner, imageRightEyeOuter, noseBottom]
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { 5 }
    public subscript(position: Int) -> FacePoint { points[position] }

    public var imageLeftEyeCentre: FacePoint { .midpoint(imageLeftEyeOuter, imageLeftEyeInner) }
    public var imageRightEyeCentre: FacePoint { .midpoint(imageRightEyeOuter, imageRightEyeInner) }
}

extension FacePoint {
    static func midpoint(_ a: FacePoint, _ b: FacePoint) -> FacePoint {
        FacePoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }
}

public struct FaceQuality: Sendable, Equatable, Codable {
    /// Width of the detection box in pixels.
    public var faceSize: Int
    /// Distance between the eye centres in pixels.
    public var eyeDistance: Double
    /// Variance of the Laplacian over the aligned 150×150 grey face; sharp webcam frames measure 80-600, a visibly blurred face under 25.
    public var sharpness: Double
    /// Mean brightness of the face, 0 (black) to 1 (white).
    public var brightness: Double
    /// 1 when facing the camera, falling linearly to 0 at 45° of yaw or more.
    public var frontalness: Double
}

public struct DetectedFace: Sendable, Equatable {
    public var box: FaceBox
    /// The HOG detector's margin; faces at 0...0.3 are borderline detections.
    public var detectionScore: Double
    public var landmarks: FaceLandmarks
    /// Head turn in degrees, estimated from the landmarks (about ±10° accurate). Positive when the
    /// person turns their head to their own right, negative to their left, as seen by a camera
    /// facing them whose picture is not mirrored (see docs/face-engine.md).
    public var yaw: Double
    public var quality: FaceQuality
    /// 128 floats from dlib's ResNet; compare with `FaceEngine.compare`.
    public var embedding: [Float]
    /// Softmax scores over the seven moods; they sum to 1.
    public var emotions: [Emotion: Float]

    public var dominantEmotion: Emotion {
        emotions.max { $0.value < $1.value }?.key ?? .neutral
    }

    public var headTurn: HeadTurnDirection? { HeadPose.turn(yaw: yaw) }
}

public struct FaceStageTimings: Sendable, Equatable {
    public var decodeMilliseconds: Double
    public var detectMilliseconds: Double
    public var alignMilliseconds: Double
    public var embedMilliseconds: Double
    public var emotionMilliseconds: Double

    public var totalMilliseconds: Double {
        decodeMilliseconds + detectMilliseconds + alignMilliseconds + embedMilliseconds + emotionMilliseconds
    }
}

public struct FaceAnalysis: Sendable, Equatable {
    public var imageWidth: Int
    public var imageHeight: Int
    /// Largest face first.
    public var faces: [DetectedFace]
    /// How many faces the detector found; more than `faces.count` when beyond the configured maximum.
    public var detectedFaceCount: Int
    public var timings: FaceStageTimings
}

/// What a photo must satisfy for `analyzeSingle`.
public struct FaceRequirements: Sendable, Equatable {
    /// Minimum detection box width in pixels.
    public var minimumFaceSize: Int
    public var minimumSharpness: Double
    public var minimumBrightness: Double
    /// Largest allowed |yaw| in degrees; nil accepts any pose.
    public var maximumYaw: Double?
    /// Faces narrower than this fraction of the largest are treated as background, not as a second person.
    public var backgroundFaceRatio: Double

    public init(minimumFaceSize: Int, minimumSharpness: Double, minimumBrightness: Double, maximumYaw: Double?,
                backgroundFaceRatio: Double = 0.5) {
        self.minimumFaceSize = minimumFaceSize
        self.minimumSharpness = minimumSharpness
        self.minimumBrightness = minimumBrightness
        self.maximumYaw = maximumYaw
        self.backgroundFaceRatio = backgroundFaceRatio
    }

    /// A reference photo: large, sharp, lit and facing the camera.
    public static let enrollment = FaceRequirements(minimumFaceSize: 100, minimumSharpness: 30, minimumBrightness: 0.15,
                                                    maximumYaw: 20)
    /// One frame of a live unlock, where the head is turning on purpose.
    public static let unlockFrame = FaceRequirements(minimumFaceSize: 80, minimumSharpness: 10, minimumBrightness: 0.06,
                                                     maximumYaw: nil)
}

public struct FaceComparison: Sendable, Equatable {
    /// Euclidean distance between the embeddings; 0 for identical faces.
    public var distance: Float
    public var threshold: Float
    public var isMatch: Bool
}

public struct FaceEngineConfiguration: Sendable {
    /// Holds the dlib model files and the ONNX Runtime library (scripts/setup-face.sh fills it).
    public var modelsDirectory: String
    /// Defaults to `emotion_mini_xception.onnx` in the models directory.
    public var emotionModelPath: String?
    /// Defaults to `libonnxruntime.so.1.31.1` in the models directory.
    public var onnxRuntimeLibraryPath: String?
    /// Decoded-size limit, checked from the file header before decoding.
    public var maxPixels: Int
    /// Analyses running at once; each holds its own copy of the recognition network (~25 MB).
    public var workers: Int
    /// Analyses allowed to wait for a worker; beyond this callers get `FaceEngineError.busy`.
    public var queueLimit: Int
    /// Faces analysed per image (largest first).
    public var maxFaces: Int
    /// Checks every model file's SHA-256 at load (about 0.3 s).
    public var verifyModelHashes: Bool

    public init(modelsDirectory: String, emotionModelPath: String? = nil, onnxRuntimeLibraryPath: String? = nil,
                maxPixels: Int = 24_000_000, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                queueLimit: Int = 16, maxFaces: Int = 10, verifyModelHashes: Bool = true) {
        self.modelsDirectory = modelsDirectory
        self.emotionModelPath = emotionModelPath
        self.onnxRuntimeLibraryPath = onnxRuntimeLibraryPath
        self.maxPixels = maxPixels
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        self.maxFaces = max(1, maxFaces)
        self.verifyModelHashes = verifyModelHashes
    }
}

/// What the app needs from the engine, so its tests can substitute a fake that needs no models.
public protocol FaceAnalyzingEngine: Sendable {
    func analyze(imageData: Data) async throws -> FaceAnalysis
    func analyzeSingle(imageData: Data, requirements: FaceRequirements) async throws -> DetectedFace
}
