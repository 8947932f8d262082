import Foundation
import Logging

/// Runs ffprobe and ffmpeg as child processes (through `ChildProcess`): each is killed if it runs too long,
/// so a broken file cannot hang a request.
public struct MediaProbe: Sendable {
    let ffprobePath: String
    let ffmpegPath: String
    let timeout: TimeInterval

    public init(ffprobePath: String, ffmpegPath: String, timeout: TimeInterval = 120) {
        self.ffprobePath = ffprobePath
        self.ffmpegPath = ffmpegPath
        self.timeout = timeout
    }

    /// Input options for every file a user supplied: ffmpeg picks a demuxer from the content and the
    /// name, so an uploaded "video.m3u8" was read as an HLS playlist that can point at other files or
    /// URLs. Only local files, and only the container formats of real videos, are opened.
    static let inputRestrictions = ["-protocol_whitelist", "file",
                                    "-format_whitelist", "mov,matroska,avi,mpegts,ogg,flv,asf,mpeg,mpegvideo,h264,hevc,m4v"]

    /// What the file holds, or nil when ffprobe cannot read it as media. Throws when ffprobe itself is missing.
    public func probe(path: String) async throws -> MediaInfo? {
        let result = try await Self.run(ffprobePath, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"]
                                        + Self.inputRestrictions + [path],
                                        timeout: timeout)
        guard result.succeeded else { return nil }
        return Playability.parseProbe(result.output)
    }

    /// Writes a JPEG frame (480 px wide) taken a little into the video; false when ffmpeg could not.
    public func thumbnail(path: String, duration: Double?, to output: String) async -> Bool {
        let at = duration.map { $0 >= 10 ? min(5, $0 * 0.1) : $0 * 0.25 } ?? 0
        let result = try? await Self.run(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-ss", String(format: "%.2f", at)]
                                         + Self.inputRestrictions + ["-i", path,
                                                      "-frames:v", "1", "-vf", "scale=480:-2", "-q:v", "4", "-f", "image2", output],
                                         timeout: timeout)
        return result?.succeeded == true && FileManager.default.fileExists(atPath: output)
    }

    /// ffprobe's JSON for a real video is a few kilobytes; a megabyte leaves room for files with many streams.
    static let outputLimit = 1 << 20

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) async throws -> ChildProcess.Result {
        do {
            return try await ChildProcess.run(executable, arguments, outputLimit: outputLimit, timeout: .seconds(timeout))
        } catch .cannotStart {
            throw VideoError.probeFailed
        } catch {
            return ChildProcess.Result(exitCode: nil, output: Data())
        }
    }
}
