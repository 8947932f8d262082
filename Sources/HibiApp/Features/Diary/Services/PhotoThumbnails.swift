import Foundation

/// Small square thumbnails of diary photos for the list: a page of twenty entries would otherwise load
/// twenty full phone photos (up to 8 MB each). Made once by ffmpeg (which Hibi already runs for
/// videos), from the photo's bytes on a pipe so nothing decrypted touches the disk, then kept sealed
/// beside the photo as `<photo-id>.thumb.sealed`, bound to its owner like the photo.
public struct PhotoThumbnails: Sendable {
    let photos: PhotoStore
    let ffmpegPath: String
    /// Pixels per side: twice the 72 px the list shows, for high-density screens.
    static let side = 144

    public init(photos: PhotoStore, ffmpegPath: String) {
        self.photos = photos
        self.ffmpegPath = ffmpegPath
    }

    static func context(userID: String, _ photoID: String) -> String { "diary-thumb:\(userID):\(photoID)" }

    /// The thumbnail, made on first use; nil when it cannot be made (no ffmpeg, an image ffmpeg cannot
    /// read), and the caller shows the photo itself.
    public func thumbnail(userID: String, photoID: String, photo: () throws -> Data?) async throws -> Data? {
        guard let path = photos.thumbnailPath(userID: userID, photoID: photoID) else { return nil }
        if let sealed = FileManager.default.contents(atPath: path) {
            return try photos.box.open(sealed, context: Self.context(userID: userID, photoID))
        }
        guard let data = try photo(), let format = ImageHeader.read(data)?.format else { return nil }
        // The demuxer is named from the bytes (never guessed by ffmpeg) and only the pipe protocol is allowed.
        let demuxer = switch format {
        case .jpeg: "jpeg_pipe"
        case .png: "png_pipe"
        case .webp: "webp_pipe"
        default: ""
        }
        guard !demuxer.isEmpty else { return nil }
        let side = Self.side
        let result = try? await ChildProcess.run(ffmpegPath, [
            "-nostdin", "-v", "error", "-protocol_whitelist", "pipe", "-f", demuxer, "-i", "pipe:0",
            "-vf", "scale=\(side):\(side):force_original_aspect_ratio=increase,crop=\(side):\(side)",
            "-frames:v", "1", "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "5", "pipe:1",
        ], input: data, outputLimit: 1_048_576, timeout: .seconds(20))
        guard let result, result.succeeded, ImageHeader.read(result.output)?.format == .jpeg else { return nil }
        try photos.write(try photos.box.seal(result.output, context: Self.context(userID: userID, photoID)), to: path)
        return result.output
    }
}
