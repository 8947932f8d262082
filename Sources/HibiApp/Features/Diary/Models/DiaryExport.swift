import Foundation

/// The diary export: one self-contained JSON file. Photos travel inside it as base64 so the
/// file restores with nothing else beside it.
public struct DiaryExport: Codable, Sendable {
    public static let formatName = "hibi-diary"
    public static let currentVersion = 1

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

    public struct Photo: Codable, Sendable {
        public var contentType: String
        public var base64: String
    }
}
