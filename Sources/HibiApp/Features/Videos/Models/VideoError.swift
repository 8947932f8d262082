import Foundation
import HTTPTypes

public enum VideoError: UserFacingError, Equatable {
    case videoNotFound
    case playlistNotFound
    case tooLarge(limitBytes: Int64)
    case uploadIncomplete
    case notAVideo
    case emptyUpload
    case invalidTitle
    case invalidTag
    case invalidRating
    case invalidPosition
    case invalidPlaylistName
    case invalidOrder
    case sharedVideoReadOnly
    case invalidCaptions
    case noLibrary
    case probeFailed
    /// This person already has as many streams open as one person may.
    case tooManyStreams(limit: Int)

    public var status: HTTPResponse.Status {
        switch self {
        case .videoNotFound, .playlistNotFound: .notFound
        case .tooLarge: .contentTooLarge
        case .uploadIncomplete, .emptyUpload, .invalidTitle, .invalidTag, .invalidRating, .invalidPosition,
             .invalidPlaylistName, .invalidOrder, .invalidCaptions:
            .badRequest
        case .notAVideo: .unsupportedMediaType
        case .sharedVideoReadOnly: .forbidden
        case .noLibrary: .conflict
        case .probeFailed: .serviceUnavailable
        case .tooManyStreams: .tooManyRequests
        }
    }

    public var code: String {
        switch self {
        case .videoNotFound: "video_not_found"
        case .playlistNotFound: "playlist_not_found"
        case .tooLarge: "video_too_large"
        case .uploadIncomplete: "upload_incomplete"
        case .notAVideo: "not_a_video"
        case .emptyUpload: "empty_upload"
        case .invalidTitle: "invalid_title"
        case .invalidTag: "invalid_tag"
        case .invalidRating: "invalid_rating"
        case .invalidPosition: "invalid_position"
        case .invalidPlaylistName: "invalid_playlist_name"
        case .invalidOrder: "invalid_order"
        case .sharedVideoReadOnly: "shared_video_read_only"
        case .invalidCaptions: "invalid_captions"
        case .noLibrary: "no_library"
        case .probeFailed: "probe_failed"
        case .tooManyStreams: "too_many_streams"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .videoNotFound: Text(en: "No such video.", ja: "その動画はありません。")
        case .playlistNotFound: Text(en: "No such playlist.", ja: "そのプレイリストはありません。")
        case let .tooLarge(limit):
            Text(en: "The video is too large (limit \(limit / 1_048_576) MB).", ja: "動画が大きすぎます(上限 \(limit / 1_048_576) MB)。")
        case .uploadIncomplete:
            Text(en: "The upload was interrupted; nothing was kept. Try again.", ja: "アップロードが中断されました。何も保存されていません。もう一度お試しください。")
        case .notAVideo:
            Text(en: "This file is not a video Hibi can read.", ja: "このファイルは読み取れる動画ではありません。")
        case .emptyUpload: Text(en: "The file is empty.", ja: "ファイルが空です。")
        case .invalidTitle: Text(en: "Titles are 1-200 characters.", ja: "タイトルは1〜200文字にしてください。")
        case .invalidTag:
            Text(en: "Tags are 1-40 characters without commas; at most 20 tags.", ja: "タグはカンマを含まない1〜40文字で、20個までです。")
        case .invalidRating: Text(en: "Ratings are 1 to 5 (or empty).", ja: "評価は1〜5(または空)です。")
        case .invalidPosition: Text(en: "The position must be a number of seconds from 0.", ja: "再生位置は0以上の秒数にしてください。")
        case .invalidPlaylistName: Text(en: "Playlist names are 1-100 characters.", ja: "プレイリスト名は1〜100文字にしてください。")
        case .invalidOrder:
            Text(en: "The new order must list every video of the playlist exactly once.", ja: "並び順にはプレイリストの動画をすべて一度ずつ指定してください。")
        case .sharedVideoReadOnly:
            Text(en: "Videos of the shared library cannot be changed or deleted here.", ja: "共有ライブラリの動画はここでは変更・削除できません。")
        case .invalidCaptions: Text(en: "Captions must be a WebVTT file (starting with WEBVTT), at most 1 MB.", ja: "字幕は WEBVTT で始まる WebVTT ファイル(1 MB まで)にしてください。")
        case .noLibrary: Text(en: "No shared library folder is configured (HIBI_VIDEO_LIBRARY_DIR).", ja: "共有ライブラリのフォルダーが設定されていません(HIBI_VIDEO_LIBRARY_DIR)。")
        case .probeFailed: Text(en: "The video could not be examined (is ffprobe installed?).", ja: "動画を解析できませんでした(ffprobe はインストールされていますか?)。")
        case let .tooManyStreams(limit):
            Text(en: "You are already playing \(limit) streams. Close one and try again.", ja: "すでに \(limit) 本のストリームを再生中です。どれかを閉じてからもう一度お試しください。")
        }
        return text(language)
    }
}
