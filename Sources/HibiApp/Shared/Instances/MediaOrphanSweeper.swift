import Foundation
import Logging
import SQLKit
import ServiceLifecycle

/// A folder of files one feature keeps under the media directory, and how to tell which of them no row owns
/// (`Feature.mediaFolders`).
public struct MediaFolder: Sendable {
    /// Relative to the media directory.
    public let path: String
    /// How many folder levels below `path` the files lie (1: straight inside it).
    public let depth: Int
    /// Given files older than the sweep's minimum age, the paths of those no row owns.
    public let orphans: @Sendable (_ files: [MediaFile], _ sql: any SQLDatabase) async throws -> [String]
    /// Removes a folder a sweep left empty (per-person folders of files owned through their person).
    public var removesEmptiedFolders = false

    public init(_ path: String, depth: Int, removesEmptiedFolders: Bool = false,
                orphans: @escaping @Sendable (_ files: [MediaFile], _ sql: any SQLDatabase) async throws -> [String]) {
        self.path = path
        self.depth = depth
        self.removesEmptiedFolders = removesEmptiedFolders
        self.orphans = orphans
    }

    /// Whether `select` (ending where a bound value goes) finds a row for `value`.
    public static func exists(_ select: String, _ value: String, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("\(unsafeRaw: select)\(bind: value) LIMIT 1").first() != nil
    }
}

/// A file a sweep considers: its full path and its name.
public struct MediaFile: Sendable {
    public let path: String
    public let name: String
}

/// Removes files under the media folder that no row owns: what a crash between writing a file and
/// committing its row leaves behind. Claimed with a lease, so of several instances sharing the folder one
/// sweeps at a time. Only files older than `minimumAge` are considered: a younger one may belong to a row
/// another instance is about to commit. Which files belong to whom each feature says (`MediaFolder`).
public struct MediaOrphanSweeper: Sendable {
    let database: Database
    let mediaDirectory: String
    let leases: JobLeases
    let folders: [MediaFolder]
    let logger: Logger
    public var minimumAge: TimeInterval = 3600
    static let leaseName = "media-orphan-sweep"

    public init(database: Database, mediaDirectory: String, leases: JobLeases, folders: [MediaFolder], logger: Logger) {
        self.database = database
        self.mediaDirectory = mediaDirectory
        self.leases = leases
        self.folders = folders
        self.logger = logger
    }

    /// One pass; nil when another instance is sweeping. Returns the paths removed.
    @discardableResult
    public func sweep(now: Date = Date()) async throws -> [String]? {
        try await leases.run(Self.leaseName, lease: 300, logger: logger) {
            var removed: [String] = []
            var emptied: Set<String> = []
            for folder in folders {
                let files = Self.files(under: self.path(folder.path), depth: folder.depth, olderThan: minimumAge, now: now)
                    .map { MediaFile(path: $0.path, name: $0.name) }
                let orphans = try await folder.orphans(files, database.sql)
                removed += orphans
                if folder.removesEmptiedFolders { emptied.formUnion(orphans.map { ($0 as NSString).deletingLastPathComponent }) }
            }
            for path in removed { try? FileManager.default.removeItem(atPath: path) }
            for folder in emptied where (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: folder)
            }
            if !removed.isEmpty { self.logger.notice("removed media files no row owns", metadata: ["files": "\(removed.count)"]) }
            return removed
        }
    }

    private func path(_ relative: String) -> String {
        (mediaDirectory as NSString).appendingPathComponent(relative)
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

/// Sweeps every hour while the server runs; the assembly starts one with every feature's folders.
struct MediaOrphanSweepService: Service {
    let sweeper: MediaOrphanSweeper
    let clock: WallClock
    var interval: Duration = .seconds(3600)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await sweeper.sweep(now: clock.now()) } catch {
                    sweeper.logger.warning("media orphan sweep failed", metadata: ["reason": "\(String(describing: error).prefix(200))"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
