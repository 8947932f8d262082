import Foundation

/// When a video offers to continue where you stopped, and when it counts as watched.
///
/// - Videos shorter than `minimumDuration` (60 s), or of unknown length, always start from the beginning.
/// - A saved position resumes only from 5% of the length (inclusive) up to 90% (exclusive): before 5% you
///   barely started, from 90% on you are in the credits and the video counts as played.
/// - "Continue watching" lists the videos whose position resumes, most recently played first, unless hidden.
///   Hiding keeps the position (the player still offers it); starting the video again un-hides it.
public enum ResumeRules {
    public static let minimumDuration: Double = 60
    public static let startFraction = 0.05
    public static let endFraction = 0.90
    public static let maximumSeconds: Double = 366 * 24 * 3600

    /// The position to resume at, or nil to start from the beginning.
    public static func resumePosition(position: Double, duration: Double?) -> Double? {
        guard let duration, duration >= minimumDuration, position.isFinite else { return nil }
        guard position >= duration * startFraction, position < duration * endFraction else { return nil }
        return position
    }

    /// Reaching 90% (or the end) marks the video played; a later progress report never un-marks it.
    public static func isPlayed(position: Double, duration: Double?, ended: Bool, wasPlayed: Bool) -> Bool {
        if wasPlayed || ended { return true }
        guard let duration, duration > 0 else { return false }
        return position >= duration * endFraction
    }

    public static func inContinueWatching(_ item: VideoItem) -> Bool {
        !item.data.hiddenFromContinue && item.resumeAt != nil
    }

    /// Positions beyond the file's length are clamped to it; a player may report a few frames more.
    public static func clampedPosition(_ position: Double, duration: Double?) throws(VideoError) -> Double {
        // A year of video is far beyond any real file; larger numbers are client bugs (and would not fit in storage).
        guard position.isFinite, position >= 0, position <= maximumSeconds else { throw .invalidPosition }
        if let duration, duration > 0 { return min(position, duration) }
        return position
    }
}
