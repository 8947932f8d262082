import Foundation
import HTTPTypes

/// What the diary needs of one face in one frame. Yaw is in degrees from the user's point of view:
/// negative when they turn their head to their left, positive to their right.
public struct FaceObservation: Sendable, Equatable {
    public let embedding: [Float]
    public let yaw: Double
    /// Five landmarks relative to the face box (0...1).
    public let landmarks: [Double]
    /// The same five landmarks in image pixels (x0, y0, ... x4, y4), for the pose cues.
    public let points: [Double]
    /// The face box in image pixels: x, y, width, height.
    public let box: [Double]
    /// Calibrated mood scores of this face (enrollment photos set the user's resting baseline).
    public let moods: [Mood: Double]

    public init(embedding: [Float], yaw: Double, landmarks: [Double], points: [Double] = [], box: [Double] = [], moods: [Mood: Double] = [:]) {
        self.embedding = embedding
        self.yaw = yaw
        self.landmarks = landmarks
        self.points = points
        self.box = box
        self.moods = moods
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
    case left, right, up, down
}

/// What the page is told after creating a challenge and after every frame: only the step to perform
/// now ("straight" first), never the ones after it.
extension FaceChallenge {
    init(id: String, state: Liveness.State, expiresAt: Date, done: Bool = false) {
        self.init(id: id, step: done ? "done" : (state.step?.rawValue ?? "straight"), stepIndex: state.current,
                  stepCount: state.steps.count + 1, done: done, expiresAt: expiresAt)
    }
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
    case framesTooFast
    case framesInterrupted
    case stepTimedOut
    case faceJumped
    case mirrorJump
    case flatPicture
    case replayedFrame
    case tooManyFaceJobs

    public var status: HTTPResponse.Status {
        switch self {
        case .notEnrolled: .conflict
        case .faceUnlockPaused: .tooManyRequests
        case .notTheEnrolledPerson, .challengeNotFollowed, .stillImage, .faceLost, .framesTooFast, .framesInterrupted,
             .stepTimedOut, .faceJumped, .mirrorJump, .flatPicture, .replayedFrame: .unauthorized
        case .engineUnavailable: .serviceUnavailable
        case .tooManyFaceJobs: .tooManyRequests
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
        case .framesTooFast: "frames_too_fast"
        case .framesInterrupted: "frames_interrupted"
        case .stepTimedOut: "step_timed_out"
        case .faceJumped: "face_jumped"
        case .mirrorJump: "mirror_jump"
        case .flatPicture: "flat_picture"
        case .replayedFrame: "replayed_frame"
        case .tooManyFaceJobs: "too_many_face_jobs"
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
        case .framesTooFast: Text(en: "The frames came faster than a camera sends them, several at once. Start again.",
                                  ja: "フレームがカメラの速度を超えて、まとめて届きました。最初からやり直してください。")
        case .framesInterrupted: Text(en: "The camera frames stopped for too long. Start again.", ja: "カメラのフレームが長く途切れました。最初からやり直してください。")
        case .stepTimedOut: Text(en: "That step took too long. Start again and follow each instruction as it appears.",
                                 ja: "時間内に指示どおり動けませんでした。最初からやり直し、表示される指示に従ってください。")
        case .faceJumped: Text(en: "The face jumped between frames instead of moving smoothly. Start again and move slowly.",
                               ja: "顔がなめらかに動かず、フレーム間で跳びました。最初からやり直し、ゆっくり動いてください。")
        case .mirrorJump: Text(en: "The face flipped from one side to the other between two frames, as a mirrored picture does. Turn slowly through the middle.",
                               ja: "2枚のフレームの間で顔の向きが左右反転しました(鏡像の写真のように)。正面を通ってゆっくり向きを変えてください。")
        case .flatPicture: Text(en: "The head turns did not look like a real head in three dimensions.", ja: "頭の向きの変化が立体的な顔のものに見えませんでした。")
        case .replayedFrame: Text(en: "A frame of an earlier attempt was sent again. Start again with the camera.", ja: "以前の試行のフレームが再送されました。カメラで最初からやり直してください。")
        case .tooManyFaceJobs: Text(en: "You already have face checks running. Wait for them to finish.", ja: "顔の確認がすでに実行中です。終わるまでお待ちください。")
        }
        return text(language)
    }
}
