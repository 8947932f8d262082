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
    /// The entry's photos in the order they were added; `hasPhoto` is true exactly when this is not empty.
    public var photos: [DiaryPhoto] = []

    public var estimatedMood: Mood? { moodScores?.top?.mood }

    /// The mood that counts in statistics: only one the user confirmed or chose.
    public var primaryMood: Mood? { confirmedMood }
}

/// One photo of an entry. Any photo: the mood estimate is read from the first one that shows a face.
public struct DiaryPhoto: Sendable, Equatable, Codable {
    public let id: String
    public var hasFace: Bool
    /// The photo the entry's mood estimate came from.
    public var moodSource: Bool

    public init(id: String, hasFace: Bool, moodSource: Bool) {
        self.id = id
        self.hasFace = hasFace
        self.moodSource = moodSource
    }
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
    public let photos: [PhotoResponse]
    public let createdAt: Date
    public let updatedAt: Date

    public struct PhotoResponse: Codable, Sendable {
        public let id: String
        public let hasFace: Bool
        public let moodSource: Bool
        /// Where the photo's bytes are, for the owner only.
        public let url: String
    }

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
        photos = entry.photos.map { .init(id: $0.id, hasFace: $0.hasFace, moodSource: $0.moodSource,
                                          url: APIPaths.url(DiaryAPIPaths.photo(entry.id, $0.id))) }
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
    /// Several photos (base64 each), after `photo` if both are given; the mood comes from the first with a face.
    public var photos: [String]?
}

public struct DiaryEntryPatch: Codable, Sendable {
    public var date: Date?
    public var text: String?
    public var tags: [String]?
    public var confirmedMood: Mood?
    public var clearConfirmedMood: Bool?
    /// Photos to add (base64 each), after the ones the entry has.
    public var addPhotos: [String]?
    /// Ids of the entry's photos to remove.
    public var removePhotoIds: [String]?
}
