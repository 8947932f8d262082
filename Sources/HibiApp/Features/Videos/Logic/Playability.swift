import Foundation

/// Whether a browser's <video> can play a file, from its container and codecs.
/// Hibi accepts what all current browsers play: MP4 or WebM holding H.264/VP8/VP9/AV1 video with
/// AAC/Opus/MP3/Vorbis audio (or no audio). Anything else is flagged with what to change.
public enum Playability: Equatable, Sendable {
    case playable
    case container(String)
    case videoCodec(String)
    case audioCodec(String)
    case noVideo

    static let videoCodecs: Set<String> = ["h264", "vp8", "vp9", "av1"]
    static let audioCodecs: Set<String> = ["aac", "opus", "mp3", "vorbis"]

    public var isPlayable: Bool { self == .playable }

    public static func evaluate(_ media: MediaInfo) -> Playability {
        guard let video = media.videoCodec?.lowercased() else { return .noVideo }
        let formats = Set((media.container ?? "").lowercased().split(separator: ",").map(String.init))
        // ffprobe names MP4 "mov,mp4,m4a,3gp,3g2,mj2" and WebM "matroska,webm" (it cannot tell WebM from MKV).
        let isMP4 = formats.contains("mp4")
        let isMatroska = formats.contains("webm")
        guard isMP4 || isMatroska else { return .container(media.container ?? "unknown") }
        guard videoCodecs.contains(video) else { return .videoCodec(video) }
        if let audio = media.audioCodec?.lowercased(), !audioCodecs.contains(audio) { return .audioCodec(audio) }
        if isMatroska && !isMP4 {
            // A Matroska file plays only if it is really WebM: VP8/VP9/AV1 with Opus/Vorbis.
            guard ["vp8", "vp9", "av1"].contains(video) else { return .container("matroska") }
            if let audio = media.audioCodec?.lowercased(), !["opus", "vorbis"].contains(audio) { return .audioCodec(audio) }
        }
        return .playable
    }

    /// Stored in the database so lists can filter without probing again.
    public var code: String? {
        switch self {
        case .playable: nil
        case let .container(name): "container:\(name)"
        case let .videoCodec(name): "video:\(name)"
        case let .audioCodec(name): "audio:\(name)"
        case .noVideo: "no-video"
        }
    }

    public func note(_ language: Language) -> String? {
        let text: Text? = switch self {
        case .playable: nil
        case let .container(name):
            Text(en: "Browsers cannot play this container (\(MediaNames.container(name))). Convert it to MP4, e.g. ffmpeg -i IN -c:v libx264 -c:a aac OUT.mp4.",
                 ja: "このコンテナ(\(MediaNames.container(name)))はブラウザで再生できません。MP4 に変換してください(例: ffmpeg -i IN -c:v libx264 -c:a aac OUT.mp4)。")
        case let .videoCodec(name):
            Text(en: "Browsers cannot play \(MediaNames.codec(name)) video. Convert it to H.264, e.g. ffmpeg -i IN -c:v libx264 -c:a aac OUT.mp4.",
                 ja: "\(MediaNames.codec(name)) の映像はブラウザで再生できません。H.264 に変換してください(例: ffmpeg -i IN -c:v libx264 -c:a aac OUT.mp4)。")
        case let .audioCodec(name):
            Text(en: "Browsers cannot play \(MediaNames.codec(name)) audio; the video may be silent. Convert the audio to AAC, e.g. ffmpeg -i IN -c:v copy -c:a aac OUT.mp4.",
                 ja: "\(MediaNames.codec(name)) の音声はブラウザで再生できません(無音になる可能性があります)。音声を AAC に変換してください(例: ffmpeg -i IN -c:v copy -c:a aac OUT.mp4)。")
        case .noVideo:
            Text(en: "This file has no video stream.", ja: "このファイルには映像がありません。")
        }
        return text?(language)
    }

    /// Reads ffprobe's `-print_format json -show_format -show_streams` output.
    public static func parseProbe(_ data: Data) -> MediaInfo? {
        struct Output: Decodable {
            struct Format: Decodable {
                let format_name: String?
                let duration: String?
            }
            struct Stream: Decodable {
                let codec_type: String?
                let codec_name: String?
                let width: Int?
                let height: Int?
                let duration: String?
                let disposition: [String: Int]?
            }
            let format: Format?
            let streams: [Stream]?
        }
        guard let output = try? JSONDecoder().decode(Output.self, from: data), let format = output.format else { return nil }
        let streams = output.streams ?? []
        // Cover art in MP4/MP3 shows up as a one-frame video stream; it is not the video.
        let video = streams.first { $0.codec_type == "video" && ($0.disposition?["attached_pic"] ?? 0) == 0 }
        let audio = streams.first { $0.codec_type == "audio" }
        let duration = format.duration.flatMap(Double.init) ?? video?.duration.flatMap(Double.init)
        return MediaInfo(durationSeconds: duration.flatMap { $0.isFinite && $0 >= 0 && $0 <= ResumeRules.maximumSeconds ? $0 : nil }, container: format.format_name,
                         videoCodec: video?.codec_name, audioCodec: audio?.codec_name, width: video?.width, height: video?.height)
    }
}
