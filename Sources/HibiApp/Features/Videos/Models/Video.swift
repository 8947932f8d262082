import Foundation

public enum VideoSource: String, Sendable, Codable {
    /// A user's own upload, visible only to them.
    case upload
    /// A file of the admin's shared, read-only folder, visible to every user.
    case library
}

/// A file Hibi can play, with what ffprobe found in it.
public struct Video: Sendable, Equatable {
    public var id: String
    public var ownerID: String?
    public var source: VideoSource
    /// Upload: file name inside the owner's upload folder. Library: path relative to the library folder.
    public var filePath: String
    public var originalName: String
    public var sizeBytes: Int64
    public var modifiedMillis: Int64
    public var media: MediaInfo
    public var hasThumbnail: Bool
    public var hasCaptions: Bool
    public var createdAt: Date
}

/// Facts about the streams of a file (from ffprobe).
public struct MediaInfo: Sendable, Equatable {
    public var durationSeconds: Double?
    public var container: String?
    public var videoCodec: String?
    public var audioCodec: String?
    public var width: Int?
    public var height: Int?

    public init(durationSeconds: Double? = nil, container: String? = nil, videoCodec: String? = nil, audioCodec: String? = nil,
                width: Int? = nil, height: Int? = nil) {
        self.durationSeconds = durationSeconds
        self.container = container
        self.videoCodec = videoCodec
        self.audioCodec = audioCodec
        self.width = width
        self.height = height
    }
}

/// One user's own data about a video (also for shared ones), like Jellyfin's per-user data.
public struct VideoUserData: Sendable, Equatable {
    public var title: String?
    public var favorite: Bool = false
    public var rating: Int?
    public var tags: [String] = []
    public var lastPlayedAt: Date?
    public var positionSeconds: Double = 0
    public var playCount: Int = 0
    public var played: Bool = false
    public var hiddenFromContinue: Bool = false

    public init() {}
}

/// A video as one user sees it.
public struct VideoItem: Sendable, Equatable {
    public var video: Video
    public var data: VideoUserData

    public var title: String { data.title ?? VideoRules.defaultTitle(fileName: video.originalName) }
    public var playability: Playability { Playability.evaluate(video.media) }
    public var resumeAt: Double? { ResumeRules.resumePosition(position: data.positionSeconds, duration: video.media.durationSeconds) }
}

public struct Playlist: Sendable, Equatable {
    public var id: String
    public var name: String
    public var videoIDs: [String]
    public var createdAt: Date
    public var updatedAt: Date
}

/// Search and filter of the library page and `GET /api/v1/videos`.
public struct VideoQuery: Sendable, Equatable {
    public var text: String?
    public var tag: String?
    public var favoritesOnly: Bool = false
    public var minimumRating: Int?
    public init(text: String? = nil, tag: String? = nil, favoritesOnly: Bool = false, minimumRating: Int? = nil) {
        self.text = text
        self.tag = tag
        self.favoritesOnly = favoritesOnly
        self.minimumRating = minimumRating
    }
}

// MARK: API bodies

struct VideoResponse: Codable, Sendable {
    let id: String
    let source: VideoSource
    let title: String
    let fileName: String
    let sizeBytes: Int64
    let durationSeconds: Double?
    let container: String?
    let videoCodec: String?
    let audioCodec: String?
    let width: Int?
    let height: Int?
    let playable: Bool
    let playabilityNote: String?
    let hasThumbnail: Bool
    let hasCaptions: Bool
    let favorite: Bool
    let rating: Int?
    let tags: [String]
    let lastPlayedAt: Date?
    let positionSeconds: Double
    let resumeAtSeconds: Double?
    let playCount: Int
    let played: Bool
    let hiddenFromContinueWatching: Bool
    let streamURL: String
    let thumbnailURL: String?
    let captionsURL: String?
    let createdAt: Date
}

struct UpdateVideoRequest: Codable, Sendable {
    var title: String??
    var favorite: Bool?
    var rating: Int??
    var tags: [String]?
    var played: Bool?

    enum CodingKeys: String, CodingKey { case title, favorite, rating, tags, played }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A present null clears the field; an absent key leaves it as it is.
        title = container.contains(.title) ? .some(try container.decodeNil(forKey: .title) ? nil : try container.decode(String.self, forKey: .title)) : nil
        rating = container.contains(.rating) ? .some(try container.decodeNil(forKey: .rating) ? nil : try container.decode(Int.self, forKey: .rating)) : nil
        favorite = try container.decodeIfPresent(Bool.self, forKey: .favorite)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        played = try container.decodeIfPresent(Bool.self, forKey: .played)
    }

    init(title: String?? = nil, favorite: Bool? = nil, rating: Int?? = nil, tags: [String]? = nil, played: Bool? = nil) {
        self.title = title
        self.favorite = favorite
        self.rating = rating
        self.tags = tags
        self.played = played
    }
}

struct ProgressRequest: Codable, Sendable {
    let positionSeconds: Double
    let ended: Bool?
}

struct PlaylistResponse: Codable, Sendable {
    let id: String
    let name: String
    let videoIds: [String]
    let createdAt: Date
    let updatedAt: Date
}

struct PlaylistNameRequest: Codable, Sendable {
    let name: String
}

struct PlaylistItemRequest: Codable, Sendable {
    let videoId: String
}

struct PlaylistOrderRequest: Codable, Sendable {
    let videoIds: [String]
}

public struct ScanResponse: Codable, Sendable {
    public let added: Int
    public let updated: Int
    public let removed: Int
    public let unchanged: Int
}
