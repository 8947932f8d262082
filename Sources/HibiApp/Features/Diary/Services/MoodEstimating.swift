import Foundation
import SQLKit

/// Reads the mood from a photo. The face engine implements it; tests that need no models use a fake.
public protocol MoodEstimating: Sendable {
    /// Scores of the most prominent face, or nil when the photo shows no face.
    /// Throws a `UserFacingError` for images that cannot be read.
    func estimateMood(imageData: Data) async throws -> MoodScores?
    /// The same for one user's photo: read against their own resting face when they keep a baseline.
    func estimateMood(imageData: Data, userID: String) async throws -> MoodScores?
}

extension MoodEstimating {
    public func estimateMood(imageData: Data, userID: String) async throws -> MoodScores? {
        try await estimateMood(imageData: imageData)
    }
}

/// The engine's estimate read against the user's enrolled resting face (when they keep that on),
/// with the same per-user limit on face analyses as enrollment and unlock.
public struct BaselineMoodEstimator: MoodEstimating {
    let estimator: any MoodEstimating
    let baselines: MoodBaselineStore
    let jobs: FaceJobLimiter

    public init(estimator: any MoodEstimating, baselines: MoodBaselineStore, jobs: FaceJobLimiter) {
        self.estimator = estimator
        self.baselines = baselines
        self.jobs = jobs
    }

    public func estimateMood(imageData: Data) async throws -> MoodScores? {
        try await estimator.estimateMood(imageData: imageData)
    }

    public func estimateMood(imageData: Data, userID: String) async throws -> MoodScores? {
        guard let scores = try await jobs.run(userID: userID, { try await estimator.estimateMood(imageData: imageData) }) else { return nil }
        guard let baseline = try await baselines.baseline(userID: userID), baseline.enabled else { return scores }
        return MoodScores(MoodCalibration.readAgainst(scores.values, baseline: baseline.scores))
    }
}

/// What the emotion model reads on a user's enrollment photos (taken looking straight at the camera),
/// sealed like the face templates, and whether the user wants moods read against it.
public struct MoodBaselineStore: Sendable {
    let database: Database
    let box: SealedBoxService

    public init(database: Database, box: SealedBoxService) {
        self.database = database
        self.box = box
    }

    public struct Baseline: Sendable, Equatable {
        public let scores: [Mood: Double]
        public let enabled: Bool
    }

    static func context(_ userID: String) -> String { "mood-baseline:" + userID }

    public func baseline(userID: String) async throws -> Baseline? {
        guard let row = try await FaceMoodBaselineRow.select(database.sql)
            .where("user_id", .equal, userID).first(decoding: FaceMoodBaselineRow.self) else { return nil }
        let opened = try box.open(row.scoresSealed, context: Self.context(userID))
        let decoded = (try? JSONDecoder().decode([String: Double].self, from: opened)) ?? [:]
        var scores: [Mood: Double] = [:]
        for (key, value) in decoded { if let mood = Mood(rawValue: key), value.isFinite { scores[mood] = value } }
        return Baseline(scores: scores, enabled: row.enabled)
    }

    /// Replaces the baseline at enrollment; a new enrollment keeps the user's on/off choice.
    public func replace(userID: String, scores: [Mood: Double]) async throws {
        let enabled = try await baseline(userID: userID)?.enabled ?? true
        let sealed = try box.seal(try JSONEncoder().encode(Dictionary(uniqueKeysWithValues: scores.map { ($0.key.rawValue, $0.value) })),
                                  context: Self.context(userID))
        try await FaceMoodBaselineRow.insert([FaceMoodBaselineRow(userID: userID, scoresSealed: sealed, enabled: enabled)], into: database.sql)
            .onConflict(with: ["user_id"]) { $0.set(excludedValueOf: "scores_sealed").set(excludedValueOf: "enabled") }.run()
    }

    public func setEnabled(userID: String, _ enabled: Bool) async throws {
        try await database.sql.update("face_mood_baselines").set("enabled", to: SQLBind(enabled)).where("user_id", .equal, userID).run()
    }

    public func delete(userID: String) async throws {
        try await database.sql.delete(from: "face_mood_baselines").where("user_id", .equal, userID).run()
    }
}
