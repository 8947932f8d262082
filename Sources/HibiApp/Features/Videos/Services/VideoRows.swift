import Foundation
import SQLKit

// The Videos tables' rows as they are stored (`TableRow`), each mapped to the model the feature works with in
// one place. Durations and positions stay the stored milliseconds, times the stored Unix seconds.

/// A row of `videos`.
struct VideoRow: TableRow {
    static let table = "videos"
    var id: String
    var ownerID: String?
    var source: String
    var filePath: String
    var originalName: String
    var sizeBytes: Int64
    var modifiedMs: Int64
    var durationMs: Int64?
    var container: String?
    var videoCodec: String?
    var audioCodec: String?
    var width: Int64?
    var height: Int64?
    var hasThumbnail: Bool
    var hasCaptions: Bool
    var createdAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, ownerID = "owner_id", source, filePath = "file_path", originalName = "original_name", sizeBytes = "size_bytes",
             modifiedMs = "modified_ms", durationMs = "duration_ms", container, videoCodec = "video_codec", audioCodec = "audio_codec",
             width, height, hasThumbnail = "has_thumbnail", hasCaptions = "has_captions", createdAt = "created_at"
    }
}

extension VideoRow {
    init(_ video: Video) {
        self.init(id: video.id, ownerID: video.ownerID, source: video.source.rawValue, filePath: video.filePath, originalName: video.originalName,
                  sizeBytes: video.sizeBytes, modifiedMs: video.modifiedMillis, durationMs: Self.millis(video.media.durationSeconds),
                  container: video.media.container, videoCodec: video.media.videoCodec, audioCodec: video.media.audioCodec,
                  width: video.media.width.map(Int64.init), height: video.media.height.map(Int64.init),
                  hasThumbnail: video.hasThumbnail, hasCaptions: video.hasCaptions, createdAt: UnixTime(video.createdAt).seconds)
    }

    /// Seconds as stored milliseconds (saturating: a duration comes from ffprobe).
    static func millis(_ seconds: Double?) -> Int64? { seconds.map { Int64(saturating: ($0 * 1000).rounded()) } }

    var video: Video {
        Video(id: id, ownerID: ownerID, source: VideoSource(rawValue: source) ?? .upload, filePath: filePath, originalName: originalName,
              sizeBytes: sizeBytes, modifiedMillis: modifiedMs,
              media: MediaInfo(durationSeconds: durationMs.map { Double($0) / 1000 }, container: container, videoCodec: videoCodec,
                               audioCodec: audioCodec, width: width.map { Int(clamping: $0) }, height: height.map { Int(clamping: $0) }),
              hasThumbnail: hasThumbnail, hasCaptions: hasCaptions, createdAt: UnixTime(seconds: createdAt).date)
    }
}

/// A row of `video_user_data`: one person's own data about one video.
struct VideoUserDataRow: TableRow {
    static let table = "video_user_data"
    var userID: String
    var videoID: String
    var title: String?
    var favorite: Bool
    var rating: Int64?
    var tags: String
    var lastPlayedAt: Int64?
    var positionMs: Int64
    var playCount: Int64
    var played: Bool
    var hiddenFromContinue: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id", videoID = "video_id", title, favorite, rating, tags, lastPlayedAt = "last_played_at",
             positionMs = "position_ms", playCount = "play_count", played, hiddenFromContinue = "hidden_from_continue"
    }
}

extension VideoUserDataRow {
    init(userID: String, videoID: String, _ data: VideoUserData) {
        self.init(userID: userID, videoID: videoID, title: data.title, favorite: data.favorite, rating: data.rating.map(Int64.init),
                  tags: VideoRules.encodeTags(data.tags), lastPlayedAt: data.lastPlayedAt.map { UnixTime($0).seconds },
                  positionMs: Int64(saturating: (data.positionSeconds * 1000).rounded()), playCount: Int64(data.playCount),
                  played: data.played, hiddenFromContinue: data.hiddenFromContinue)
    }

    var data: VideoUserData {
        var data = VideoUserData()
        data.title = title
        data.favorite = favorite
        data.rating = rating.map { Int(clamping: $0) }
        data.tags = VideoRules.decodeTags(tags)
        data.lastPlayedAt = lastPlayedAt.map { UnixTime(seconds: $0).date }
        data.positionSeconds = Double(positionMs) / 1000
        data.playCount = Int(clamping: playCount)
        data.played = played
        data.hiddenFromContinue = hiddenFromContinue
        return data
    }
}

extension VideoUserDataRow {
    /// When the person last played a video (their `last_played_at`) and the video's length (`videos.duration_ms`, nil when
    /// unknown): the two numbers the journal's summaries read for years of plays, without whole items.
    struct PlayTime: Decodable, Sendable {
        var lastPlayedAt: Int64
        var durationMs: Int64?

        enum CodingKeys: String, CodingKey {
            case lastPlayedAt = "last_played_at", durationMs = "duration_ms"
        }

        var play: (at: Date, seconds: Double?) { (UnixTime(seconds: lastPlayedAt).date, durationMs.map { Double($0) / 1000 }) }
    }
}

/// A row of `video_playlists`.
struct VideoPlaylistRow: TableRow {
    static let table = "video_playlists"
    var id: String
    var userID: String
    var name: String
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userID = "user_id", name, createdAt = "created_at", updatedAt = "updated_at"
    }

    func playlist(videoIDs: [String]) -> Playlist {
        Playlist(id: id, name: name, videoIDs: videoIDs, createdAt: UnixTime(seconds: createdAt).date, updatedAt: UnixTime(seconds: updatedAt).date)
    }
}

/// A row of `video_playlist_items`: a video's place in a playlist.
struct VideoPlaylistItemRow: TableRow {
    static let table = "video_playlist_items"
    var playlistID: String
    var videoID: String
    var position: Int64
    var addedAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case playlistID = "playlist_id", videoID = "video_id", position, addedAt = "added_at"
    }
}

extension VideoStore {
    /// A video and the person's data from a row of `visible(userID:)`: the data's columns are all NULL (a LEFT
    /// JOIN that found nothing) when the person never touched the video, and then they are the defaults.
    static func decodeItem(_ row: any SQLRow) throws -> VideoItem {
        let data = try row.decodeNil(column: VideoUserDataRow.CodingKeys.positionMs.rawValue)
            ? VideoUserData() : try row.decode(model: VideoUserDataRow.self).data
        return VideoItem(video: try row.decode(model: VideoRow.self).video, data: data)
    }
}
