import Foundation
import Hummingbird
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Where video files live, and the only code that turns a stored video into a path on disk.
///
/// `<data>/videos/uploads/<user id>/<video id>.<ext>` for uploads (with an optional `.vtt` beside),
/// `<data>/videos/tmp/` for uploads in flight (emptied at start), `<data>/videos/thumbs/<video id>.jpg`,
/// and the admin's read-only library folder, which Hibi never writes to.
public struct VideoFiles: Sendable {
    public let root: String
    public let libraryDirectory: String?

    public init(dataDirectory: String, libraryDirectory: String?) {
        self.root = (dataDirectory as NSString).appendingPathComponent("videos")
        self.libraryDirectory = libraryDirectory
    }

    var temporaryDirectory: String { (root as NSString).appendingPathComponent("tmp") }
    var thumbnailDirectory: String { (root as NSString).appendingPathComponent("thumbs") }
    func uploadDirectory(userID: String) -> String {
        ((root as NSString).appendingPathComponent("uploads") as NSString).appendingPathComponent(userID)
    }

    /// Creates the folders and, for the server at start, deletes whatever an earlier run left in tmp
    /// (a crash mid-upload). A CLI command beside a running server must not sweep: uploads may be in flight.
    @discardableResult
    public func prepare(sweep: Bool = true) throws -> Int {
        let manager = FileManager.default
        for directory in [temporaryDirectory, thumbnailDirectory, (root as NSString).appendingPathComponent("uploads")] {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        // Only old ones: on a shared media folder a fresh one is another instance's upload in progress.
        return sweep ? sweepTemporary(olderThan: 3600) : 0
    }

    /// Removes unfinished uploads last written more than `age` seconds ago; returns how many.
    @discardableResult
    public func sweepTemporary(olderThan age: TimeInterval = 0, now: Date = Date()) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? []
        var removed = 0
        for name in names {
            let path = (temporaryDirectory as NSString).appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            guard now.timeIntervalSince(modified) >= age else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    public func temporaryFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? []
    }

    /// Streams a request body into a temporary file (through `UploadSpool`); nothing remains on disk if it fails.
    /// - Returns: the temporary path and the number of bytes written.
    /// `quota`: what this person may still store, and their whole quota (for the message).
    func receive<Body: AsyncSequence & Sendable>(_ body: Body, expectedLength: Int64?, limit: Int64,
                                                 quota: (left: Int64, total: Int64)? = nil) async throws -> (String, Int64)
    where Body.Element == ByteBuffer {
        do {
            let spooled = try await UploadSpool.receive(body, into: temporaryDirectory, suffix: ".part", expectedLength: expectedLength,
                                                        limit: limit, quotaLeft: quota?.left)
            return (spooled.path, spooled.bytes)
        } catch .tooLarge {
            throw VideoError.tooLarge(limitBytes: limit)
        } catch .overQuota {
            throw RequestError.quotaExceeded(limitBytes: quota?.total ?? limit)
        } catch .empty {
            throw VideoError.emptyUpload
        } catch {
            // The client went away mid-body (connection closed, malformed chunking), or the folder is not writable.
            throw VideoError.uploadIncomplete
        }
    }

    func uploadPath(_ video: Video) -> String {
        (uploadDirectory(userID: video.ownerID ?? "-") as NSString).appendingPathComponent(video.filePath)
    }

    public func thumbnailPath(videoID: String) -> String {
        (thumbnailDirectory as NSString).appendingPathComponent("\(videoID).jpg")
    }

    /// The file behind a video with every symlink resolved, or nil when it is missing or its real
    /// location is outside the folder it must come from (a symlink out of the library, a `..` in a path).
    public func resolve(_ video: Video) -> String? {
        let (root, candidate): (String, String)
        switch video.source {
        case .upload:
            guard let owner = video.ownerID, !video.filePath.contains("/") else { return nil }
            root = uploadDirectory(userID: owner)
            candidate = (root as NSString).appendingPathComponent(video.filePath)
        case .library:
            guard let library = libraryDirectory, VideoRules.isSafeRelativePath(video.filePath) else { return nil }
            root = library
            candidate = (library as NSString).appendingPathComponent(video.filePath)
        }
        guard let realRoot = Self.realPath(root), let real = Self.realPath(candidate),
              VideoRules.isInside(root: realRoot, path: real), Self.isRegularFile(real) else { return nil }
        return real
    }

    /// Captions sit beside the video with the same name and `.vtt`; resolved and checked like the video.
    public func captionsPath(_ video: Video) -> String? {
        guard let file = resolveUnchecked(video) else { return nil }
        let vtt = (file as NSString).deletingPathExtension + ".vtt"
        let root = video.source == .library ? libraryDirectory : uploadDirectory(userID: video.ownerID ?? "-")
        guard let root, let realRoot = Self.realPath(root), let real = Self.realPath(vtt),
              VideoRules.isInside(root: realRoot, path: real), Self.isRegularFile(real) else { return nil }
        return real
    }

    /// The path as stored (not resolved), for finding siblings.
    func resolveUnchecked(_ video: Video) -> String? {
        switch video.source {
        case .upload: uploadPath(video)
        case .library: libraryDirectory.map { ($0 as NSString).appendingPathComponent(video.filePath) }
        }
    }

    public struct FileStat: Sendable {
        public let size: Int64
        public let modifiedMillis: Int64
        public var modified: Date { Date(timeIntervalSince1970: Double(modifiedMillis) / 1000) }
    }

    public static func stat(_ path: String) -> FileStat? {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileStat(size: Int64(info.st_size),
                        modifiedMillis: Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Follows symlinks (the caller has already checked where they lead).
    static func isRegularFile(_ path: String) -> Bool {
        guard let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType else { return false }
        return type == .typeRegular
    }
}
