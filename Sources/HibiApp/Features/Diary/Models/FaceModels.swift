import Foundation
import HTTPTypes

/// What the diary needs of one face in one frame. Yaw is in degrees from the user's point of view:
/// negative when they turn their head to their left, positive to their right.
public struct FaceObservation: Sendable, Equatable {
    public let embedding: [Float]
    public let yaw: Double
    /// Five landmarks relative to the face box (0...1), to tell a moving head from a still picture.
    public let landmarks: [Double]

    public init(embedding: [Float], yaw: Double, landmarks: [Double]) {
        self.embedding = embedding
        self.yaw = yaw
        self.landmarks = landmarks
    }
}

/// The face engine as the diary sees it; tests that need no models use a fake.
public protocol FaceAnalyzing: Sendable {
    /// A photo good enough to enroll: exactly one face, large, sharp, frontal. Throws a `UserFacingError` saying why not.
    func enrollmentObservation(imageData: Data) async throws -> FaceObservation
    /// One face in an unlock frame, any head pose.
    func observation(imageData: Data) async throws -> FaceObservation
    /// Largest distance between embeddings still counted as the same person (measured; see docs/face-engine.md).
    var matchThreshold: Float { get }
}

public enum HeadTurn: String, Sendable, Codable, CaseIterable {
    case left, right
}

public struct FaceChallenge: Sendable, Codable, Equatable {
    public let id: String
    public let steps: [HeadTurn]
    public let expiresAt: Date
}

public enum FaceAuthError: UserFacingError, Equatable {
    case notEnrolled
    case tooFewEnrollmentPhotos(minimum: Int)
    case tooManyPhotos(maximum: Int)
    case faceUnlockPaused(retryAfter: Int)
    case challengeExpired
    case challengeUnknown
    case notTheEnrolledPerson
    case faceLost(frame: Int)
    case challengeNotFollowed
    case stillImage
    case tooFewFrames(minimum: Int)
    case engineUnavailable

    public var status: HTTPResponse.Status {
        switch self {
        case .notEnrolled: .conflict
        case .faceUnlockPaused: .tooManyRequests
        case .notTheEnrolledPerson, .challengeNotFollowed, .stillImage, .faceLost: .unauthorized
        case .engineUnavailable: .serviceUnavailable
        default: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .notEnrolled: "face_not_enrolled"
        case .tooFewEnrollmentPhotos: "too_few_photos"
        case .tooManyPhotos: "too_many_photos"
        case .faceUnlockPaused: "face_unlock_paused"
        case .challengeExpired: "challenge_expired"
        case .challengeUnknown: "challenge_unknown"
        case .notTheEnrolledPerson: "face_mismatch"
        case .faceLost: "face_lost"
        case .challengeNotFollowed: "challenge_not_followed"
        case .stillImage: "still_image"
        case .tooFewFrames: "too_few_frames"
        case .engineUnavailable: "face_engine_unavailable"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .notEnrolled: Text(en: "Face unlock is not set up yet.", ja: "顔認証はまだ設定されていません。")
        case let .tooFewEnrollmentPhotos(minimum): Text(en: "Take at least \(minimum) good photos.", ja: "良い写真を\(minimum)枚以上撮ってください。")
        case let .tooManyPhotos(maximum): Text(en: "At most \(maximum) photos.", ja: "写真は\(maximum)枚までです。")
        case let .faceUnlockPaused(retryAfter): Text(en: "Face unlock is paused for \(AccountError.minutes(retryAfter)) minutes after too many failures. Use your password.",
                                                     ja: "失敗が続いたため、顔認証は\(AccountError.minutes(retryAfter))分間停止中です。パスワードを使ってください。")
        case .challengeExpired: Text(en: "That took too long. Try again.", ja: "時間切れです。もう一度お試しください。")
        case .challengeUnknown: Text(en: "This check was already used or is unknown. Start again.", ja: "この確認はすでに使われたか、不明です。最初からやり直してください。")
        case .notTheEnrolledPerson: Text(en: "The face does not match the enrolled face.", ja: "登録された顔と一致しません。")
        case let .faceLost(frame): Text(en: "Your face was not visible in every frame (frame \(frame)). Stay in view and try again.", ja: "すべてのフレームに顔が写っていませんでした(フレーム \(frame))。画面内にとどまってもう一度お試しください。")
        case .challengeNotFollowed: Text(en: "The head turns did not follow the instructions in order. Try again.", ja: "指示された順に顔を向けられませんでした。もう一度お試しください。")
        case .stillImage: Text(en: "The frames look like a still picture, not a live face.", ja: "静止画のようで、本人の顔と確認できませんでした。")
        case let .tooFewFrames(minimum): Text(en: "Send at least \(minimum) frames.", ja: "フレームを\(minimum)枚以上送ってください。")
        case .engineUnavailable: Text(en: "Face recognition is not available on this server. Use your password.", ja: "このサーバーでは顔認識を利用できません。パスワードを使ってください。")
        }
        return text(language)
    }
}
