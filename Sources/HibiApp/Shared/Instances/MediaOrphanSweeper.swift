import Foundation
import Logging
import SQLKit
import ServiceLifecycle

/// Removes files under the media folder that no row owns: what a crash between writing a file and
/// committing its row leaves behind. Claimed with a lease, so of several instances sharing the folder one
/// sweeps at a time. Only files older than `minimumAge` are considered: a younger one may belong to a row
/// another instance is about to commit.
public struct MediaOrphanSweeper: Sendable {
    let database: Database
    let mediaDirectory: String
    let leases: JobLeases
    let logger: Logger
    public var minimumAge: TimeInterval = 3600
    static let leaseName = "media-orphan-sweep"

    public init(database: Database, mediaDirectory: String, leases: JobLeases, logger: Logger) {
        self.database = database
        self.mediaDirectory = mediaDirectory
        self.leases = leases
        self.logger = logger
    }

    /// One pass; nil when another instance is sweeping. Returns the paths removed.
    @discardableResult
    public func sweep(now: Date = Date()) async throws -> [String]? {
        try await leases.run(Self.leaseName, lease: 300, logger: logger) {
            var removed: [String] = []
            // Diary photos: diary-photos/<user>/<photo>.sealed, owned by the photo's row.
            for (path, name) in Self.files(under: self.path("diary-photos"), depth: 2, olderThan: minimumAge, now: now) where name.hasSuffix(".sealed") {
                // A thumbnail (<photo>.thumb.sealed) belongs to its photo's row too.
                let stem = String(name.dropLast(".sealed".count))
                let photoID = stem.hasSuffix(".thumb") ? String(stem.dropLast(".thumb".count)) : stem
                if try await !self.exists("SELECT id FROM diary_photos WHERE id = ", photoID) { removed.append(path) }
            }
            // Uploaded videos, their captions (videos/uploads/<user>/<id>.<ext>) and thumbnails (videos/thumbs/<id>.jpg).
            let videoFiles = Self.files(under: self.path("videos/uploads"), depth: 2, olderThan: minimumAge, now: now)
                + Self.files(under: self.path("videos/thumbs"), depth: 1, olderThan: minimumAge, now: now)
            for (path, name) in videoFiles {
                let videoID = (name as NSString).deletingPathExtension
                if try await !self.exists("SELECT id FROM videos WHERE id = ", videoID) { removed.append(path) }
            }
            // Health upload spools: health-imports/<uuid>.upload, owned by a job still to run.
            for (path, _) in Self.files(under: self.path("health-imports"), depth: 1, olderThan: minimumAge, now: now) {
                if try await !self.exists("SELECT id FROM health_import_jobs WHERE state IN ('queued', 'running') AND upload_path = ", path) {
                    removed.append(path)
                }
            }
            // Electrocardiograms: health-ecg/<user>/<name>.csv, kept as files, owned by their user's row.
            var owners: [String: Bool] = [:]
            var ecgFolders: Set<String> = []
            for (path, _) in Self.files(under: self.path("health-ecg"), depth: 2, olderThan: minimumAge, now: now) {
                let folder = (path as NSString).deletingLastPathComponent
                let userID = (folder as NSString).lastPathComponent
                if owners[userID] == nil { owners[userID] = try await self.exists("SELECT id FROM users WHERE id = ", userID) }
                if owners[userID] == false {
                    removed.append(path)
                    ecgFolders.insert(folder)
                }
            }
            for path in removed { try? FileManager.default.removeItem(atPath: path) }
            for folder in ecgFolders where (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: folder)
            }
            if !removed.isEmpty { self.logger.notice("removed media files no row owns", metadata: ["files": "\(removed.count)"]) }
            return removed
        }
    }

    private func path(_ relative: String) -> String {
        (mediaDirectory as NSString).appendingPathComponent(relative)
    }

    private func exists(_ select: String, _ value: String) async throws -> Bool {
        try await database.sql.raw("\(unsafeRaw: select)\(bind: value) LIMIT 1").first() != nil
    }

    /// Regular files exactly `depth` levels below `root`, last changed more than `age` seconds before `now`;
    /// temporary names (a write in progress) are left alone.
    static func files(under root: String, depth: Int, olderThan age: TimeInterval, now: Date) -> [(path: String, name: String)] {
        var level = [root]
        for _ in 1..<depth {
            level = level.flatMap { directory in
                ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map { (directory as NSString).appendingPathComponent($0) }
            }
        }
        var found: [(String, String)] = []
        for directory in level {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                if name.hasPrefix(".") || name.hasSuffix(".tmp") || name.hasSuffix(".part") { continue }
                let path = (directory as NSString).appendingPathComponent(name)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) >= age else { continue }
                found.append((path, name))
            }
        }
        return found
    }
}

/// Sweeps every hour while the server runs.
struct MediaOrphanSweepService: Service {
    let sweeper: MediaOrphanSweeper
    var interval: Duration = .seconds(3600)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await sweeper.sweep() } catch {
                    sweeper.logger.warning("media orphan sweep failed", metadata: ["reason": "\(String(describing: error).prefix(200))"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
