import Foundation
import SQLKit
import Synchronization

/// Small square thumbnails of diary photos for the list: a page of twenty entries would otherwise load
/// twenty full phone photos (up to 8 MB each). Made once by ffmpeg (which Hibi already runs for
/// videos), from the photo's bytes on a pipe so nothing decrypted touches the disk, then kept sealed
/// beside the photo as `<photo-id>.thumb.sealed`, bound to its owner like the photo.
///
/// Bounded (issue 28): the photo's size is read from its header before ffmpeg starts, and one above
/// `DiaryRules.maxPhotoPixels` (stored before the cap) is never decoded; ffmpeg decodes on one thread with
/// `-max_pixels`, JPEGs at the smallest `-lowres` that still covers the thumbnail, inside a virtual memory
/// limit and a timeout; one thumbnail per person is made at a time (a second request waits its turn); and a
/// thumbnail that failed is recorded in the database and not tried again on the next view.
public struct PhotoThumbnails: Sendable {
    let photos: PhotoStore
    let ffmpegPath: String
    let failures: ThumbnailFailures?
    let turns = PerPersonTurns()
    /// Pixels per side: twice the 72 px the list shows, for high-density screens.
    static let side = 144
    /// ffmpeg's address space: a 48 MP PNG (the cap's worst case) takes about 230 MB resident.
    static let memoryLimitKB = 786_432
    static let timeout: Duration = .seconds(20)

    public init(photos: PhotoStore, ffmpegPath: String, database: Database? = nil) {
        self.photos = photos
        self.ffmpegPath = ffmpegPath
        failures = database.map(ThumbnailFailures.init)
    }

    static func context(userID: String, _ photoID: String) -> String { "diary-thumb:\(userID):\(photoID)" }

    /// The thumbnail, made on first use; nil when it cannot be made (no ffmpeg, an image ffmpeg cannot
    /// read, a photo above the pixel cap, a failure recorded earlier), and the caller shows the photo itself.
    public func thumbnail(userID: String, photoID: String, now: Date = Date(), photo: () throws -> Data?) async throws -> Data? {
        guard let path = photos.thumbnailPath(userID: userID, photoID: photoID) else { return nil }
        if let made = try open(path, userID: userID, photoID: photoID) { return made }
        if try await failures?.failed(photoID: photoID) == true { return nil }
        return try await turns.take(userID) { () async throws -> Data? in
            // Made meanwhile by the request this one waited for, or recorded as failed.
            if let made = try open(path, userID: userID, photoID: photoID) { return made }
            if try await failures?.failed(photoID: photoID) == true { return nil }
            guard let data = try photo(), let info = ImageHeader.read(data) else { return nil }
            switch await Self.render(data, info: info, ffmpegPath: ffmpegPath) {
            case let .success(jpeg):
                try photos.write(try photos.box.seal(jpeg, context: Self.context(userID: userID, photoID)), to: path)
                return jpeg
            case let .failure(reason):
                try await failures?.record(photoID: photoID, userID: userID, reason: reason.reason, now: now)
                return nil
            }
        }
    }

    private func open(_ path: String, userID: String, photoID: String) throws -> Data? {
        guard let sealed = FileManager.default.contents(atPath: path) else { return nil }
        return try photos.box.open(sealed, context: Self.context(userID: userID, photoID))
    }

    struct Failure: Error { let reason: String }

    /// One bounded ffmpeg run, or why there is no thumbnail.
    static func render(_ data: Data, info: ImageInfo, ffmpegPath: String) async -> Result<Data, Failure> {
        let (pixels, over) = info.width.multipliedReportingOverflow(by: info.height)
        guard !over, pixels <= DiaryRules.maxPhotoPixels else { return .failure(Failure(reason: "\(info.width)x\(info.height) is above the pixel cap")) }
        // The demuxer is named from the bytes (never guessed by ffmpeg) and only the pipe protocol is allowed.
        let demuxer = switch info.format {
        case .jpeg: "jpeg_pipe"
        case .png: "png_pipe"
        case .webp: "webp_pipe"
        case .gif: ""
        }
        guard !demuxer.isEmpty else { return .failure(Failure(reason: "no thumbnail for \(info.format.rawValue)")) }
        let side = Self.side
        var decode = ["-threads", "1", "-max_pixels", String(DiaryRules.maxPhotoPixels)]
        if info.format == .jpeg { decode += ["-lowres", String(lowres(width: info.width, height: info.height))] }
        let arguments = ["-nostdin", "-v", "error", "-protocol_whitelist", "pipe"] + decode + ["-f", demuxer, "-i", "pipe:0",
            "-vf", "scale=\(side):\(side):force_original_aspect_ratio=increase,crop=\(side):\(side)",
            "-frames:v", "1", "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "5", "pipe:1"]
        // The memory limit through the shell's ulimit (inherited by the exec'd ffmpeg): ChildProcess spawns
        // without a hook to set rlimits.
        let shell = ["-c", "ulimit -v \(memoryLimitKB) && exec \"$0\" \"$@\"", ffmpegPath] + arguments
        do {
            let result = try await ChildProcess.run("/bin/sh", shell, input: data, outputLimit: 1_048_576, timeout: timeout)
            guard result.succeeded, ImageHeader.read(result.output)?.format == .jpeg else {
                return .failure(Failure(reason: "ffmpeg could not make it"))
            }
            return .success(result.output)
        } catch {
            return .failure(Failure(reason: "ffmpeg failed or timed out (\(error))"))
        }
    }

    /// JPEG's decoder can decode at 1/2, 1/4 or 1/8 size: the smallest that still covers the thumbnail.
    static func lowres(width: Int, height: Int) -> Int {
        var level = 0
        while level < 3, min(width, height) >> (level + 1) >= side { level += 1 }
        return level
    }
}

/// One job per person at a time: a second waits (holding no thread) until the first is done.
final class PerPersonTurns: Sendable {
    private let slots = Mutex<[String: AsyncSlots]>([:])

    func take<T: Sendable>(_ person: String, _ body: () async throws -> T) async throws -> T {
        let turn = slots.withLock { slots in
            if let turn = slots[person] { return turn }
            let turn = AsyncSlots(1)
            slots[person] = turn
            return turn
        }
        return try await turn.withSlot(body)
    }
}

/// Thumbnails that could not be made, by photo (`diary_photo_thumbnail_failures`); a row goes with its photo.
struct ThumbnailFailures: Sendable {
    let database: Database

    func failed(photoID: String) async throws -> Bool {
        try await database.sql.raw("SELECT photo_id FROM diary_photo_thumbnail_failures WHERE photo_id = \(bind: photoID)").first() != nil
    }

    func record(photoID: String, userID: String, reason: String, now: Date) async throws {
        try await database.sql.raw("""
            INSERT INTO diary_photo_thumbnail_failures (photo_id, user_id, reason, failed_at)
            SELECT \(bind: photoID), \(bind: userID), \(bind: String(reason.prefix(500))), \(bind: Int64(saturating: now.timeIntervalSince1970))
            WHERE EXISTS (SELECT 1 FROM diary_photos WHERE id = \(bind: photoID))
            ON CONFLICT (photo_id) DO NOTHING
            """).run()
    }
}
