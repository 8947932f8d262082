import Foundation

/// Reads the mood from a photo. The face engine implements it; tests that need no models use a fake.
public protocol MoodEstimating: Sendable {
    /// Scores of the most prominent face, or nil when the photo shows no face.
    /// Throws a `UserFacingError` for images that cannot be read.
    func estimateMood(imageData: Data) async throws -> MoodScores?
}
