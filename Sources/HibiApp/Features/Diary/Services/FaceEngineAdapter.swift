#if canImport(FaceEngine)
import FaceEngine
import Foundation
import HTTPTypes

/// The diary's view of the real face engine: mood scores for entries, observations for enrollment and unlock.
public struct FaceEngineAdapter: FaceAnalyzing, MoodEstimating {
    let engine: FaceEngine

    public init(engine: FaceEngine) {
        self.engine = engine
    }

    public var matchThreshold: Float { FaceEngine.defaultMatchThreshold }

    public func estimateMood(imageData: Data) async throws -> MoodScores? {
        do {
            guard let face = FaceEngine.bestFace(try await engine.analyze(imageData: imageData)) else { return nil }
            return MoodScores(MoodCalibration.calibrate(Self.moods(face.emotions)))
        } catch let error as FaceEngineError {
            throw FaceEngineUserError(error)
        }
    }

    public func enrollmentObservation(imageData: Data) async throws -> FaceObservation {
        do {
            return Self.observation(try await engine.analyzeSingle(imageData: imageData, requirements: .enrollment))
        } catch let error as FaceEngineError {
            throw FaceEngineUserError(error)
        }
    }

    public func observation(imageData: Data) async throws -> FaceObservation {
        do {
            return Self.observation(try await engine.analyzeSingle(imageData: imageData, requirements: .unlockFrame))
        } catch let error as FaceEngineError {
            throw FaceEngineUserError(error)
        }
    }

    static func moods(_ emotions: [Emotion: Float]) -> [Mood: Double] {
        var result: [Mood: Double] = [:]
        for (emotion, value) in emotions {
            if let mood = Mood(rawValue: emotion.rawValue) { result[mood] = Double(value) }
        }
        return result
    }

    /// Landmarks relative to the face box, so movement of the head shows regardless of where the face sits in the frame.
    static func observation(_ face: DetectedFace) -> FaceObservation {
        let box = face.box
        let width = Double(max(box.width, 1)), height = Double(max(box.height, 1))
        let landmarks = face.landmarks.flatMap { [($0.x - Double(box.x)) / width, ($0.y - Double(box.y)) / height] }
        return FaceObservation(embedding: face.embedding, yaw: face.yaw, landmarks: landmarks,
                               points: face.landmarks.flatMap { [$0.x, $0.y] },
                               box: [Double(box.x), Double(box.y), Double(box.width), Double(box.height)],
                               moods: MoodCalibration.calibrate(moods(face.emotions)))
    }
}

/// The engine's errors as the user reads them, in both languages.
public struct FaceEngineUserError: UserFacingError, Equatable {
    public let error: FaceEngineError

    public init(_ error: FaceEngineError) {
        self.error = error
    }

    public var status: HTTPResponse.Status {
        switch error {
        case .busy: .serviceUnavailable
        case .imageTooLarge: .contentTooLarge
        case .unreadableImage, .imageTooComplex: .badRequest
        case .modelMissing, .modelInvalid: .serviceUnavailable
        default: .unprocessableContent
        }
    }

    public var code: String {
        switch error {
        case .noFace: "no_face"
        case .multipleFaces: "multiple_faces"
        case .faceTooSmall: "face_too_small"
        case .faceTooBlurry: "face_too_blurry"
        case .notFrontal: "face_not_frontal"
        case .tooDark: "too_dark"
        case .unreadableImage: "unreadable_image"
        case .imageTooComplex: "image_too_complex"
        case .imageTooLarge: "image_too_large"
        case .busy: "face_engine_busy"
        case .modelMissing, .modelInvalid: "face_engine_unavailable"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch error {
        case .noFace: Text(en: "No face was found. Face the camera in good light.", ja: "顔が見つかりません。明るい場所でカメラに顔を向けてください。")
        case let .multipleFaces(count): Text(en: "\(count) faces are in the picture; only yours should be.", ja: "写真に\(count)人の顔が写っています。あなただけが写るようにしてください。")
        case .faceTooSmall: Text(en: "Your face is too small; come closer to the camera.", ja: "顔が小さすぎます。カメラに近づいてください。")
        case .faceTooBlurry: Text(en: "The picture is blurred; hold still.", ja: "写真がぶれています。動かないでください。")
        case .notFrontal: Text(en: "Look straight at the camera.", ja: "カメラを正面から見てください。")
        case .tooDark: Text(en: "It is too dark; find more light.", ja: "暗すぎます。明るい場所で撮影してください。")
        case .unreadableImage: Text(en: "The image cannot be read (damaged or not JPEG/PNG/WebP).", ja: "画像を読み込めません(破損しているか JPEG・PNG・WebP ではありません)。")
        case .imageTooComplex: Text(en: "The JPEG has far more progressive scans than any camera writes; it was not decoded. Save it again as an ordinary JPEG.",
                                    ja: "この JPEG はカメラが書き出すより桁違いに多いプログレッシブスキャンを含むため、読み込みを中止しました。通常の JPEG として保存し直してください。")
        case let .imageTooLarge(width, height): Text(en: "The image is too large (\(width)×\(height) pixels).", ja: "画像が大きすぎます(\(width)×\(height) ピクセル)。")
        case .busy: Text(en: "Face recognition is busy; try again in a moment.", ja: "顔認識が混み合っています。少し待ってからお試しください。")
        case .modelMissing, .modelInvalid: Text(en: "Face recognition is not available on this server.", ja: "このサーバーでは顔認識を利用できません。")
        }
        return text(language)
    }
}
#endif
