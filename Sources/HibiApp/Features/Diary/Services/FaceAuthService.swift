import Crypto
import Foundation
import Logging
import SQLKit

/// Face enrollment and unlock with a liveness challenge.
public struct FaceAuthService: Sendable {
    let engine: (any FaceAnalyzing)?
    let templates: FaceTemplateStore
    let database: Database
    let throttle: LoginThrottleStore
    let policy: LoginThrottlePolicy
    let logger: Logger

    public static let minimumEnrollmentPhotos = 3
    public static let maximumEnrollmentPhotos = 8
    public static let maximumFrames = 24
    public static let challengeLifetime: TimeInterval = 90

    public init(engine: (any FaceAnalyzing)?, templates: FaceTemplateStore, database: Database, throttle: LoginThrottleStore,
                policy: LoginThrottlePolicy, logger: Logger) {
        self.engine = engine
        self.templates = templates
        self.database = database
        self.throttle = throttle
        self.policy = policy
        self.logger = logger
    }

    func requireEngine() throws -> any FaceAnalyzing {
        guard let engine else { throw FaceAuthError.engineUnavailable }
        return engine
    }

    /// Checks one candidate photo; the page calls this per shot so the user learns at once why one is refused.
    public func checkEnrollmentPhoto(_ data: Data) async throws {
        guard DiaryRules.isSupportedImage(data) else { throw DiaryError.photoNotAnImage }
        _ = try await requireEngine().enrollmentObservation(imageData: data)
    }

    /// Enrolls from several photos; every photo must pass, and nothing changes unless all do.
    public func enroll(userID: String, photos: [Data], now: Date) async throws {
        guard photos.count >= Self.minimumEnrollmentPhotos else { throw FaceAuthError.tooFewEnrollmentPhotos(minimum: Self.minimumEnrollmentPhotos) }
        guard photos.count <= Self.maximumEnrollmentPhotos else { throw FaceAuthError.tooManyPhotos(maximum: Self.maximumEnrollmentPhotos) }
        let engine = try requireEngine()
        var embeddings: [[Float]] = []
        for photo in photos {
            guard DiaryRules.isSupportedImage(photo) else { throw DiaryError.photoNotAnImage }
            embeddings.append(try await engine.enrollmentObservation(imageData: photo).embedding)
        }
        // Photos of two different people in one enrollment would let either unlock: refuse that. The bound is
        // looser than the match threshold because one person's photos can lie further apart than the strict
        // unlock threshold (measured up to ~0.69), while different people measured mostly 0.68-0.90.
        let sameEnrollment = max(engine.matchThreshold * 1.5, 0.7)
        for (index, embedding) in embeddings.enumerated().dropFirst() where Liveness.distance(embedding, embeddings[0]) > sameEnrollment {
            logger.notice("enrollment refused: photos show different faces", metadata: ["photo": "\(index + 1)"])
            throw FaceAuthError.notTheEnrolledPerson
        }
        try await templates.replace(userID: userID, embeddings: embeddings, now: now)
        try await throttle.clear(subject: Self.subject(userID))
        logger.notice("face enrolled", metadata: ["photos": "\(photos.count)"])
    }

    public func deleteFaceData(userID: String) async throws {
        try await templates.delete(userID: userID)
        logger.notice("face data deleted")
    }

    public func challenge(userID: String, now: Date) async throws -> FaceChallenge {
        _ = try requireEngine()
        guard try await templates.count(userID: userID) > 0 else { throw FaceAuthError.notEnrolled }
        try await refuseIfPaused(userID: userID, now: now)
        var generator = SystemRandomNumberGenerator()
        let challenge = FaceChallenge(id: Secrets.randomToken(bytes: 18), steps: Liveness.makeSteps(using: &generator),
                                      expiresAt: now.addingTimeInterval(Self.challengeLifetime))
        try await database.sql.delete(from: "face_challenges").where("expires_at", .lessThan, Int64(now.timeIntervalSince1970) - 3600).run()
        try await database.sql.insert(into: "face_challenges").columns("id", "user_id", "steps", "expires_at")
            .values(SQLBind(challenge.id), SQLBind(userID), SQLBind(challenge.steps.map(\.rawValue).joined(separator: ",")),
                    SQLBind(Int64(challenge.expiresAt.timeIntervalSince1970)))
            .run()
        return challenge
    }

    /// Verifies a challenge's frames. The challenge is spent before any frame is looked at, so a
    /// recording of a successful attempt can never be replayed.
    public func unlock(userID: String, challengeID: String, frames: [Data], now: Date) async throws {
        let engine = try requireEngine()
        try await refuseIfPaused(userID: userID, now: now)
        guard frames.count <= Self.maximumFrames else { throw FaceAuthError.tooManyPhotos(maximum: Self.maximumFrames) }
        guard let row = try await database.sql.select().columns("steps", "expires_at", "used_at").from("face_challenges")
            .where("id", .equal, challengeID).where("user_id", .equal, userID).first(),
            try row.decode(column: "used_at", as: Int64?.self) == nil else { throw FaceAuthError.challengeUnknown }
        try await database.sql.update("face_challenges").set("used_at", to: Int64(now.timeIntervalSince1970))
            .where("id", .equal, challengeID).run()
        guard Double(try row.decode(column: "expires_at", as: Int64.self)) >= now.timeIntervalSince1970 else {
            throw FaceAuthError.challengeExpired
        }
        let steps = try row.decode(column: "steps", as: String.self).split(separator: ",").compactMap { HeadTurn(rawValue: String($0)) }
        let enrolled = try await templates.embeddings(userID: userID)
        guard !enrolled.isEmpty else { throw FaceAuthError.notEnrolled }
        var observations: [FaceObservation?] = []
        for frame in frames {
            guard DiaryRules.isSupportedImage(frame) else { throw DiaryError.photoNotAnImage }
            observations.append(try? await engine.observation(imageData: frame))
        }
        let digests = frames.map { Hex.string(SHA256.hash(data: $0)) }
        switch Liveness.verify(observations: observations, frameDigests: digests, steps: steps, templates: enrolled, threshold: engine.matchThreshold) {
        case .pass:
            try await throttle.clear(subject: Self.subject(userID))
            logger.notice("face unlock succeeded")
        case let .fail(reason):
            let state = policy.recordingFailure(try await throttle.state(subject: Self.subject(userID)), now: now)
            try await throttle.save(subject: Self.subject(userID), state: state)
            logger.warning("face unlock failed", metadata: ["reason": "\(reason.code)", "failures": "\(state.failures)"])
            throw reason
        }
    }

    func refuseIfPaused(userID: String, now: Date) async throws {
        if let remaining = policy.lockRemaining(try await throttle.state(subject: Self.subject(userID)), now: now) {
            throw FaceAuthError.faceUnlockPaused(retryAfter: remaining)
        }
    }

    static func subject(_ userID: String) -> String { "face:" + userID }
}
