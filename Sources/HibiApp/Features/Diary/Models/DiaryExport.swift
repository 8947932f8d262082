import Foundation

/// The diary export: `diary.json` in a ZIP archive, each photo a file beside it (`photos/<entry-id>.jpg`)
/// so the archive opens in any file manager. Version 1 was this JSON alone with photos inline as
/// base64; those files still import.
public struct DiaryExport: Codable, Sendable {
    public static let formatName = "hibi-diary"
    public static let currentVersion = 2
    public static let fileName = "diary.json"

    public var format: String
    public var version: Int
    public var exportedAt: Date
    public var entries: [Entry]

    public struct Entry: Codable, Sendable {
        public var id: String
        public var date: Date
        public var text: String
        public var tags: [String]
        public var moodScores: MoodScores?
        public var confirmedMood: Mood?
        public var createdAt: Date
        public var updatedAt: Date
        public var photo: Photo?
    }

    /// Exactly one of `path` (version 2: a file in the archive) and `base64` (version 1) is set.
    public struct Photo: Codable, Sendable {
        public var contentType: String
        public var path: String?
        public var base64: String?
    }
}
