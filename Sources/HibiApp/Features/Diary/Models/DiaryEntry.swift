import Foundation

public struct DiaryEntry: Sendable, Equatable {
    public let id: String
    public let userID: String
    public var date: Date
    public var text: String
    public var tags: [String]
    /// What the face engine read from the photo, kept even when the user picks another mood.
    public var moodScores: MoodScores?
    public var confirmedMood: Mood?
    public var hasPhoto: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public var estimatedMood: Mood? { moodScores?.top?.mood }

    /// The mood that counts in statistics: only one the user confirmed or chose.
    public var primaryMood: Mood? { confirmedMood }
}

/// What statistics need of an entry: no text, so they run without decrypting anything.
public struct MoodPoint: Sendable, Equatable {
    public let date: Date
    public let mood: Mood?

    public init(date: Date, mood: Mood?) {
        self.date = date
        self.mood = mood
    }
}

// MARK: API shapes

public struct DiaryEntryResponse: Codable, Sendable {
    public let id: String
    public let date: Date
    public let text: String
    public let tags: [String]
    public let moodScores: MoodScores?
    public let estimatedMood: Mood?
    public let estimatedConfidence: Double?
    public let confirmedMood: Mood?
    public let hasPhoto: Bool
    public let createdAt: Date
    public let updatedAt: Date

    init(_ entry: DiaryEntry) {
        id = entry.id
        date = entry.date
        text = entry.text
        tags = entry.tags
        moodScores = entry.moodScores
        estimatedMood = entry.estimatedMood
        estimatedConfidence = entry.moodScores?.top?.confidence
        confirmedMood = entry.confirmedMood
        hasPhoto = entry.hasPhoto
        createdAt = entry.createdAt
        updatedAt = entry.updatedAt
    }
}

public struct DiaryEntryPage: Codable, Sendable {
    public let entries: [DiaryEntryResponse]
    public let total: Int
    public let page: Int
    public let perPage: Int
}

public struct DiaryEntryInput: Codable, Sendable {
    public var date: Date?
    public var text: String
    public var tags: [String]?
    public var confirmedMood: Mood?
    /// Base64 JPEG/PNG/WebP; the mood is estimated from it.
    public var photo: String?
}

public struct DiaryEntryPatch: Codable, Sendable {
    public var date: Date?
    public var text: String?
    public var tags: [String]?
    public var confirmedMood: Mood?
    public var clearConfirmedMood: Bool?
}
