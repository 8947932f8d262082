import Foundation

/// The diary export: `diary.json` in a ZIP archive, each photo a file beside it (`photos/<photo-id>.jpg`)
/// so the archive opens in any file manager. Version 1 was this JSON alone with photos inline as
/// base64; those files still import. Version 3 lists several photos per entry (`photos`, each a file
/// `photos/<photo-id>.jpg`); version 2's single `photo` still imports.
public struct DiaryExport: Codable, Sendable {
    public static let formatName = "hibi-diary"
    public static let currentVersion = 3
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
        /// Versions 1 and 2: the entry's one photo.
        public var photo: Photo?
        /// Version 3: every photo, in order.
        public var photos: [Photo]?

        /// The photos whichever version wrote them.
        var allPhotos: [Photo] { photos ?? photo.map { [$0] } ?? [] }
    }

    /// Exactly one of `path` (version 2: a file in the archive) and `base64` (version 1) is set.
    public struct Photo: Codable, Sendable {
        public var contentType: String
        public var path: String?
        public var base64: String?
        /// Version 3: whether the face engine found a face, and whether the entry's estimate came from it.
        public var hasFace: Bool?
        public var moodSource: Bool?
    }
}
