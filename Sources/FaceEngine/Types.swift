import Foundation

public struct FaceEngineConfiguration: Sendable {
    /// Holds shape_predictor_5_face_landmarks.dat, dlib_face_recognition_resnet_model_v1.dat and
    /// libonnxruntime.so (scripts/setup-face.sh puts them in ./models).
    public var modelsDirectory: String
    /// The committed Resources/models/emotion_mini_xception.onnx.
    public var emotionModelPath: String
    /// Decode limit, checked from the image header before any pixel is decoded.
    public var maxPixels: Int = 16_000_000
    /// Threads running inference (each with its own network copy), off the caller's event loop.
    public var workers: Int = 2
    /// Analyses allowed to wait for a worker; one more and `analyze` throws `.busy`.
    public var queueLimit: Int = 8

    public init(modelsDirectory: String, emotionModelPath: String) {
        self.modelsDirectory = modelsDirectory
        self.emotionModelPath = emotionModelPath
    }
}

public struct FaceComparison: Sendable, Equatable {
    /// Euclidean distance between the two 128-d embeddings (0 = identical; infinity if not comparable).
    public let distance: Float
    public let isMatch: Bool
}

/// A face rectangle in image pixels (may extend slightly past the image for faces at the border).
public struct FaceBox: Sendable, Equatable {
    public let x, y, width, height: Int
}

/// A point in image pixels.
public struct FacePoint: Sendable, Equatable {
    public let x, y: Double
}

public struct FaceQuality: Sendable, Equatable {
    /// Shorter side of the face box in original image pixels.
    public let size: Int
    /// Variance of the Laplacian of the aligned grey face (150x150 chip, central 100x100). Blurred
    /// or upscaled small faces score low; sharp webcam faces score well above 100.
    public let sharpness: Double
    /// 1 looking straight at the camera, 0 at a 90 degree head turn (1 - |yaw| / 90).
    public let frontalness: Double
    /// Mean grey level of the face in 0...1.
    public let brightness: Double
}

public enum Emotion: String, Sendable, CaseIterable {
    case happiness, sadness, anger, surprise, fear, disgust, neutral
}

public struct DetectedFace: Sendable {
    public let box: FaceBox
    /// 5 points in dlib's order: 0, 1 = outer and inner corner of the eye on the image's right
    /// (the person's left eye); 2, 3 = outer and inner corner of the eye on the image's left (the
    /// person's right eye); 4 = bottom of the nose.
    public let landmarks: [FacePoint]
    public let quality: FaceQuality
    /// Degrees; negative when the person turns their head to their own left, positive to their right.
    /// Estimated from the nose's offset from the eyes' midline (roll-corrected); roughly linear up
    /// to about 45 degrees, beyond which the frontal detector stops finding the face.
    public let yaw: Double
    /// 128 floats from dlib's ResNet (unit-ish length; compare with `FaceEngine.compare`).
    public let embedding: [Float]
    /// The 7 mood scores, summing to 1.
    public let emotions: [Emotion: Float]

    /// The mood with the highest score.
    public var topEmotion: Emotion {
        emotions.max { $0.value < $1.value }?.key ?? .neutral
    }
}

public struct FaceRequirements: Sendable, Equatable {
    public var minFaceSize: Int
    public var minSharpness: Double
    public var maxAbsYaw: Double
    public var minBrightness: Double
    public var requireSingleFace: Bool

    public init(minFaceSize: Int, minSharpness: Double, maxAbsYaw: Double, minBrightness: Double, requireSingleFace: Bool) {
        self.minFaceSize = minFaceSize
        self.minSharpness = minSharpness
        self.maxAbsYaw = maxAbsYaw
        self.minBrightness = minBrightness
        self.requireSingleFace = requireSingleFace
    }

    /// One big, sharp, frontal, well-lit face: what a reference photo for face unlock must be.
    public static let enrollment = FaceRequirements(
        minFaceSize: 120, minSharpness: 40, maxAbsYaw: 20, minBrightness: 0.2, requireSingleFace: true)
    /// One face in a camera frame, any reasonable pose (head turns up to 50 degrees for liveness).
    public static let unlockFrame = FaceRequirements(
        minFaceSize: 80, minSharpness: 15, maxAbsYaw: 50, minBrightness: 0.12, requireSingleFace: true)
}

public enum FaceEngineError: Error, Equatable, CustomStringConvertible {
    case noFace
    case multipleFaces(count: Int)
    case faceTooSmall
    case faceTooBlurry
    case notFrontal
    case tooDark
    case unreadableImage
    case imageTooLarge(width: Int, height: Int)
    /// A progressive JPEG with more scans than any encoder writes: decoding was stopped early.
    case imageTooComplex
    case busy
    case modelMissing(path: String)
    case modelInvalid(path: String)

    public var description: String {
        switch self {
        case .noFace:
            return "No face was found. Face the camera in good light with your whole face in the picture."
        case .multipleFaces(let count):
            return "\(count) faces were found; only one person may be in the picture."
        case .faceTooSmall:
            return "The face is too small. Move closer to the camera or use a larger photo."
        case .faceTooBlurry:
            return "The face is blurred. Hold still, clean the lens, or use a sharper photo."
        case .notFrontal:
            return "The face is turned too far away. Look straight at the camera."
        case .tooDark:
            return "The face is too dark. Turn on a light or face a window."
        case .unreadableImage:
            return "The image could not be read. Send a complete JPEG, PNG or WebP file."
        case .imageTooLarge(let width, let height):
            return "The image is too large (\(width)x\(height) pixels). Send a smaller image, for example 4000x4000 or less."
        case .imageTooComplex:
            return "The JPEG has far more progressive scans than a camera or editor writes; decoding was stopped. Save it again as an ordinary JPEG."
        case .busy:
            return "Face recognition is busy. Try again in a moment."
        case .modelMissing(let path):
            return "Face model file \(path) is missing. Run scripts/setup.sh to install it."
        case .modelInvalid(let path):
            return "Face model file \(path) is damaged or the wrong version. Delete it and run scripts/setup.sh again."
        }
    }
}
