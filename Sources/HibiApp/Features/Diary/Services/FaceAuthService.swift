import Crypto
import Foundation
import Logging
import SQLKit
import Synchronization

/// Face enrollment and unlock with a liveness challenge.
public struct FaceAuthService: Sendable {
    let engine: (any FaceAnalyzing)?
    let templates: FaceTemplateStore
    let database: Database
    let throttle: any LoginAttempts
    let policy: LoginThrottlePolicy
    let logger: Logger
    /// The app's one clock: a frame's answer time is read from it as its arrival is (in the request's
    /// `now`), so the liveness timing rules run on one time line that tests can move by hand.
    let clock: WallClock
    public let jobs: FaceJobLimiter

    public static let minimumEnrollmentPhotos = 3
    public static let maximumEnrollmentPhotos = 8
    public static let challengeLifetime: TimeInterval = 90
    /// How long frame digests are remembered to refuse replays (seconds).
    static let digestMemory: Int64 = 30 * 86400

    public init(engine: (any FaceAnalyzing)?, templates: FaceTemplateStore, database: Database, throttle: any LoginAttempts,
                policy: LoginThrottlePolicy, logger: Logger, clock: WallClock) {
        self.engine = engine
        self.templates = templates
        self.database = database
        self.throttle = throttle
        self.policy = policy
        self.logger = logger
        self.clock = clock
        self.jobs = FaceJobLimiter(perUser: FaceJobLimiter.defaultPerUser)
    }

    public var moodBaselines: MoodBaselineStore { MoodBaselineStore(database: database, box: templates.box) }

    func requireEngine() throws -> any FaceAnalyzing {
        guard let engine else { throw FaceAuthError.engineUnavailable }
        return engine
    }

    /// Checks one candidate photo; the page calls this per shot so the user learns at once why one is refused.
    public func checkEnrollmentPhoto(userID: String, _ data: Data) async throws {
        try DiaryRules.validatePhoto(data)
        let engine = try requireEngine()
        _ = try await jobs.run(userID: userID) { try await engine.enrollmentObservation(imageData: data) }
    }

    /// Enrolls from several photos; every photo must pass, and nothing changes unless all do.
    public func enroll(userID: String, photos: [Data], now: Date) async throws {
        guard photos.count >= Self.minimumEnrollmentPhotos else { throw FaceAuthError.tooFewEnrollmentPhotos(minimum: Self.minimumEnrollmentPhotos) }
        guard photos.count <= Self.maximumEnrollmentPhotos else { throw FaceAuthError.tooManyPhotos(maximum: Self.maximumEnrollmentPhotos) }
        let engine = try requireEngine()
        var embeddings: [[Float]] = []
        var moods: [[Mood: Double]] = []
        for photo in photos {
            try DiaryRules.validatePhoto(photo)
            let observation = try await jobs.run(userID: userID) { try await engine.enrollmentObservation(imageData: photo) }
            embeddings.append(observation.embedding)
            if observation.moods.count == Mood.allCases.count { moods.append(observation.moods) }
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
        if let baseline = MoodCalibration.baseline(moods) { try await moodBaselines.replace(userID: userID, scores: baseline) }
        try await throttle.clear(subject: Self.subject(userID))
        logger.notice("face enrolled", metadata: ["photos": "\(photos.count)"])
    }

    public func deleteFaceData(userID: String) async throws {
        try await templates.delete(userID: userID)
        try await moodBaselines.delete(userID: userID)
        logger.notice("face data deleted")
    }

    /// Starts a challenge. The turns are drawn now and sealed with the challenge; the page learns
    /// only the first step (look straight) and each later one after the frames for the previous arrive.
    public func challenge(userID: String, now: Date) async throws -> FaceChallenge {
        _ = try requireEngine()
        guard try await templates.count(userID: userID) > 0 else { throw FaceAuthError.notEnrolled }
        try await refuseIfPaused(userID: userID, now: now)
        // Each challenge is an attempt, counted atomically before any frame is analysed (a pass clears the
        // count): twelve challenges started at once get the allowance, not twelve evaluations.
        let attempt = try await throttle.reserve(subject: Self.subject(userID), policy: policy, now: now)
        if attempt.failures > policy.lockAfter {
            let until = attempt.lockedUntil ?? now.addingTimeInterval(policy.lockDuration)
            if attempt.lockedUntil == nil { try await throttle.lock(subject: Self.subject(userID), until: until) }
            throw FaceAuthError.faceUnlockPaused(retryAfter: max(1, Int(saturating: until.timeIntervalSince(now).rounded(.up))))
        }
        var generator = SystemRandomNumberGenerator()
        let id = Secrets.randomToken(bytes: 18)
        let state = Liveness.State(steps: Liveness.makeSteps(using: &generator), createdAt: Self.milliseconds(now))
        let expiresAt = now.addingTimeInterval(Self.challengeLifetime)
        let seconds = Int64(saturating: now.timeIntervalSince1970)
        try await database.sql.delete(from: "face_liveness_challenges").where("expires_at", .lessThan, seconds - 3600).run()
        try await database.sql.delete(from: "face_frame_digests").where("seen_at", .lessThan, seconds - Self.digestMemory).run()
        try await FaceLivenessChallengeRow.insert([FaceLivenessChallengeRow(
            id: id, userID: userID, stateSealed: try seal(state, userID: userID, id: id), revision: 0, inFlightSince: nil,
            expiresAt: Int64(saturating: expiresAt.timeIntervalSince1970), finishedAt: nil)], into: database.sql).run()
        return FaceChallenge(id: id, state: state, expiresAt: expiresAt)
    }

    /// One camera frame of a challenge, stamped `arrivedAt` by the server when it came in. Frames are
    /// analysed one at a time per challenge: a frame arriving while another is being analysed is a
    /// burst, and ends the challenge. Returns the step to perform now, or `done` once passed.
    public func frame(userID: String, challengeID: String, frame: Data, arrivedAt: Date) async throws -> FaceChallenge {
        let engine = try requireEngine()
        try DiaryRules.validatePhoto(frame)
        try await refuseIfPaused(userID: userID, now: arrivedAt)
        let arrived = Self.milliseconds(arrivedAt)
        let (state, revision, expiresAt) = try await claim(userID: userID, challengeID: challengeID, arrivedAt: arrivedAt)

        // A byte-identical frame was sent before: a recording of an earlier attempt, not a camera.
        let digest = Hex.string(SHA256.hash(data: frame))
        let fresh = try await FaceFrameDigestRow.insert([FaceFrameDigestRow(userID: userID, digest: digest,
                                                                            seenAt: Int64(saturating: arrivedAt.timeIntervalSince1970))], into: database.sql)
            .ignoringConflicts(with: ["user_id", "digest"]).returning("digest").all().count
        if fresh == 0 { try await fail(userID: userID, challengeID: challengeID, reason: .replayedFrame, now: arrivedAt) }

        let observation: FaceObservation?
        do {
            observation = try await jobs.run(userID: userID) { try await engine.observation(imageData: frame) }
        } catch let error as FaceAuthError where error == .tooManyFaceJobs {
            try await release(challengeID: challengeID, revision: revision)
            throw error
        } catch let error as any UserFacingError where error.status == .serviceUnavailable {
            try await release(challengeID: challengeID, revision: revision)
            throw error
        } catch {
            observation = nil  // no single usable face in this frame
        }
        let answered = clock.now()
        let enrolled = try await templates.embeddings(userID: userID)
        guard !enrolled.isEmpty else { throw FaceAuthError.notEnrolled }
        let analysed = observation.flatMap { observation -> Liveness.Frame? in
            guard let geometry = Liveness.geometry(points: observation.points) else { return nil }
            return Liveness.Frame(arrivedAt: arrived, yaw: observation.yaw, geometry: geometry, box: observation.box,
                                  distance: Liveness.bestDistance(observation.embedding, templates: enrolled))
        }
        switch Liveness.advance(state, frame: analysed, answeredAt: Self.milliseconds(answered), arrivedAt: arrived, threshold: engine.matchThreshold) {
        case let .failed(reason):
            try await fail(userID: userID, challengeID: challengeID, reason: reason, now: answered)
        case let .next(next):
            try await store(next, userID: userID, challengeID: challengeID, revision: revision, finished: nil)
            return FaceChallenge(id: challengeID, state: next, expiresAt: expiresAt)
        case let .passed(passed):
            try await store(passed, userID: userID, challengeID: challengeID, revision: revision, finished: answered)
            try await throttle.clear(subject: Self.subject(userID))
            logger.notice("face unlock succeeded", metadata: ["frames": "\(passed.frames.count)"])
            return FaceChallenge(id: challengeID, state: passed, expiresAt: expiresAt, done: true)
        }
    }

    /// Marks the challenge as having a frame in flight, or says why it cannot take one.
    func claim(userID: String, challengeID: String, arrivedAt: Date) async throws -> (Liveness.State, Int64, Date) {
        let seconds = Int64(saturating: arrivedAt.timeIntervalSince1970)
        let claimed = try await database.sql.update("face_liveness_challenges")
            .set("in_flight_since", to: SQLBind(Self.milliseconds(arrivedAt)))
            .where("id", .equal, challengeID).where("user_id", .equal, userID)
            .where("in_flight_since", .is, SQLLiteral.null).where("finished_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThanOrEqual, seconds)
            .returning(FaceLivenessChallengeRow.columns).first(decoding: FaceLivenessChallengeRow.self)
        if let claimed {
            let state = try open(claimed.stateSealed, userID: userID, id: challengeID)
            return (state, claimed.revision, UnixTime(seconds: claimed.expiresAt).date)
        }
        guard let row = try await FaceLivenessChallengeRow.select(database.sql)
            .where("id", .equal, challengeID).where("user_id", .equal, userID).first(decoding: FaceLivenessChallengeRow.self),
            row.finishedAt == nil else { throw FaceAuthError.challengeUnknown }
        if row.expiresAt < seconds {
            try await fail(userID: userID, challengeID: challengeID, reason: .challengeExpired, now: arrivedAt, countsAsFailure: false)
        }
        // Another frame of this challenge is being analysed: frames sent at once, not one by one from a camera.
        try await fail(userID: userID, challengeID: challengeID, reason: .framesTooFast, now: arrivedAt)
    }

    func store(_ state: Liveness.State, userID: String, challengeID: String, revision: Int64, finished: Date?) async throws {
        let updated = try await database.sql.update("face_liveness_challenges")
            .set("state_sealed", to: SQLBind(try seal(state, userID: userID, id: challengeID)))
            .set("revision", to: SQLBind(revision + 1))
            .set("in_flight_since", to: SQLLiteral.null)
            .set("finished_at", to: finished.map { SQLBind(Int64(saturating: $0.timeIntervalSince1970)) as any SQLExpression } ?? SQLLiteral.null)
            .where("id", .equal, challengeID).where("revision", .equal, revision).where("finished_at", .is, SQLLiteral.null)
            .returning("id").all()
        // Ended meanwhile by a frame that arrived while this one was analysed.
        guard !updated.isEmpty else { throw FaceAuthError.framesTooFast }
    }

    func release(challengeID: String, revision: Int64) async throws {
        try await database.sql.update("face_liveness_challenges").set("in_flight_since", to: SQLLiteral.null)
            .where("id", .equal, challengeID).where("revision", .equal, revision).run()
    }

    /// Ends the challenge for good; at the allowance of failed attempts (counted as challenges start) face unlock pauses.
    func fail(userID: String, challengeID: String, reason: FaceAuthError, now: Date, countsAsFailure: Bool = true) async throws -> Never {
        try await database.sql.update("face_liveness_challenges").set("finished_at", to: SQLBind(Int64(saturating: now.timeIntervalSince1970)))
            .set("in_flight_since", to: SQLLiteral.null)
            .where("id", .equal, challengeID).where("user_id", .equal, userID).where("finished_at", .is, SQLLiteral.null).run()
        if countsAsFailure {
            // The attempt was counted when the challenge started; a failure at the limit starts the pause.
            let failures = try await throttle.state(subject: Self.subject(userID))?.failures ?? 0
            if failures >= policy.lockAfter { try await throttle.lock(subject: Self.subject(userID), until: now.addingTimeInterval(policy.lockDuration)) }
            logger.warning("face unlock failed", metadata: ["reason": "\(reason.code)", "failures": "\(failures)"])
        }
        throw reason
    }

    /// A challenge's state is bound to the person it was issued to (challenges live minutes; old ones simply expire).
    func seal(_ state: Liveness.State, userID: String, id: String) throws -> Data {
        try templates.box.seal(try JSONEncoder().encode(state), context: "face-challenge:\(userID):\(id)")
    }

    func open(_ sealed: Data, userID: String, id: String) throws -> Liveness.State {
        try JSONDecoder().decode(Liveness.State.self, from: try templates.box.open(sealed, context: "face-challenge:\(userID):\(id)"))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64(saturating: (date.timeIntervalSince1970 * 1000).rounded()) }

    func refuseIfPaused(userID: String, now: Date) async throws {
        if let remaining = policy.lockRemaining(try await throttle.state(subject: Self.subject(userID)), now: now) {
            throw FaceAuthError.faceUnlockPaused(retryAfter: remaining)
        }
    }

    static func subject(_ userID: String) -> String { "face:" + userID }
}

/// Face analyses each user may have queued or running at once on this instance. The engine's queue is
/// shared by everyone; without this one user sending ten slow images kept every other user's face
/// unlock at 503 for minutes.
public final class FaceJobLimiter: Sendable {
    static let defaultPerUser = 2
    let perUser: Int
    private let running = Mutex<[String: Int]>([:])

    public init(perUser: Int) {
        self.perUser = max(1, perUser)
    }

    public func run<T: Sendable>(userID: String, _ body: () async throws -> T) async throws -> T {
        let admitted = running.withLock { counts -> Bool in
            let current = counts[userID, default: 0]
            guard current < perUser else { return false }
            counts[userID] = current + 1
            return true
        }
        guard admitted else { throw FaceAuthError.tooManyFaceJobs }
        defer {
            running.withLock { counts in
                let left = counts[userID, default: 1] - 1
                counts[userID] = left > 0 ? left : nil
            }
        }
        return try await body()
    }
}
