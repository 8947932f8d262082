import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteNIO

/// How far a backup, verification or restore has come, for a progress bar.
public struct BackupProgress: Sendable {
    public var phase: String
    public var done: Int64
    public var total: Int64
}

/// Writes a whole instance to one archive while it keeps serving: every table from one read snapshot,
/// every file under the data directory's media folders, and a manifest with a SHA-256 per member.
public struct BackupService: Sendable {
    let database: Database
    let dataDirectory: String
    /// Where uploaded files live (`HIBI_MEDIA_DIR`); the data directory unless set.
    let mediaDirectory: String
    let box: SealedBoxService
    /// The visits log's signing key, named in the manifest (Shared/Offers).
    let signingKey: any BackupSigningKey
    let logger: Logger
    /// The migrations this Hibi knows: a snapshot of PostgreSQL is laid out by their SQLite side.
    let migrations: [Migration]

    /// Rows fetched per round trip: bounded memory whatever the table size.
    static let pageSize = 2000

    public init(database: Database, dataDirectory: String, mediaDirectory: String? = nil, box: SealedBoxService, logger: Logger,
                signingKey: any BackupSigningKey, migrations: [Migration] = Schema.all) {
        self.database = database
        self.signingKey = signingKey
        self.migrations = migrations
        self.dataDirectory = dataDirectory
        self.mediaDirectory = mediaDirectory ?? dataDirectory
        self.box = box
        self.logger = logger
    }

    /// Writes the archive to `output + ".partial"` and renames it to `output` only once it is complete,
    /// so a backup that dies half way never leaves a file that looks finished.
    @discardableResult
    public func write(to output: String, now: Date = Date(),
                      progress: @escaping @Sendable (BackupProgress) throws -> Void = { _ in }) async throws -> BackupManifest {
        let partial = output + ".partial"
        let zip = try BackupZipWriter(path: partial)
        // The tables' snapshot is made in a scratch file of the data directory's own (`tmp/`, which no backup or
        // media listing reads), then streamed into the archive; it goes, with what SQLite keeps beside it, either way.
        let scratchDirectory = (dataDirectory as NSString).appendingPathComponent("tmp")
        let scratch = (scratchDirectory as NSString).appendingPathComponent("backup-\(UUID().uuidString.lowercased()).sqlite")
        defer { for path in ["", "-wal", "-shm", "-journal"].map({ scratch + $0 }) { try? FileManager.default.removeItem(atPath: path) } }
        do {
            try FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let manifest = try await writeMembers(zip: zip, scratch: scratch, now: now, progress: progress)
            try zip.finish()
            // rename(2) replaces an older file of the same name in one step.
            guard rename(partial, output) == 0 else { throw BackupError.io("cannot rename \(partial) to \(output) (errno \(errno))") }
            return manifest
        } catch {
            zip.abandon()
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    private func writeMembers(zip: BackupZipWriter, scratch: String, now: Date,
                              progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws -> BackupManifest {
        // Every media file gets its place in the archive now (their sizes are known); the tables' snapshot goes
        // after them once SQLite has made it. Two threads of their own fill the two halves at once: this one the
        // files, the other the snapshot. On two cores the halves of a backup overlap instead of taking turns, and
        // the threads are the backup's own, so a running server's shared pool stays free for requests.
        let files = try MediaFiles.list(dataDirectory: mediaDirectory)
        let slots = try files.map { try zip.reserve(name: "media/" + $0.relativePath, size: $0.size) }
        let threads = NIOThreadPool(numberOfThreads: 2)
        threads.start()
        do {
            async let snapshot = Self.writeSnapshot(of: database, to: scratch, zip: zip, threads: threads, now: now, box: box,
                                                    signingKey: signingKey, migrations: migrations, logger: logger, progress: progress)
            let totalBytes = files.reduce(Int64(0)) { $0 + $1.size }
            let entries = try await threads.runIfActive {
                var doneBytes: Int64 = 0
                var entries: [BackupManifest.File] = []
                for (file, slot) in Swift.zip(files, slots) {
                    try progress(BackupProgress(phase: "files", done: doneBytes, total: totalBytes))
                    let written = try zip.fill(slot, from: file.path, modified: now) { doneBytes += Int64($0) }
                    entries.append(.init(member: slot.name, bytes: written.bytes, sha256: written.sha256))
                }
                try progress(BackupProgress(phase: "files", done: totalBytes, total: totalBytes))
                return entries
            }
            let (contents, database) = try await snapshot
            try? await threads.shutdownGracefully()
            return try writeManifest(zip: zip, now: now, contents: contents, database: database, files: entries)
        } catch {
            try? await threads.shutdownGracefully()
            throw error
        }
    }

    /// Makes the tables' snapshot in `scratch`, then streams it into the archive after the media files. Stored,
    /// not deflated: deflating a gigabyte of pages cost more than the rest of the backup.
    private static func writeSnapshot(of database: Database, to scratch: String, zip: BackupZipWriter, threads: NIOThreadPool, now: Date,
                                      box: SealedBoxService, signingKey: any BackupSigningKey, migrations: [Migration], logger: Logger,
                                      progress: @escaping @Sendable (BackupProgress) throws -> Void) async throws
        -> (BackupSnapshot.Contents, BackupZipWriter.Written) {
        let contents = try await BackupSnapshot.make(from: database, into: scratch, box: box, signingKey: signingKey, migrations: migrations,
                                                     logger: logger)
        let slot = try zip.reserve(name: BackupSnapshot.memberName, size: contents.bytes)
        let written = try await threads.runIfActive {
            var done: Int64 = 0
            return try zip.fill(slot, from: scratch, modified: now) { count in
                done += Int64(count)
                try? progress(BackupProgress(phase: "database", done: done, total: contents.bytes))
            }
        }
        return (contents, written)
    }

    private func writeManifest(zip: BackupZipWriter, now: Date, contents: BackupSnapshot.Contents,
                               database: BackupZipWriter.Written, files entries: [BackupManifest.File]) throws -> BackupManifest {
        let manifest = BackupManifest(
            format: BackupManifest.formatName, formatVersion: BackupManifest.currentFormatVersion, hibiVersion: hibiVersion,
            createdAt: now, schemaVersion: contents.migrations.max() ?? 0, migrations: contents.migrations,
            dataKeyCheck: contents.keyCheck,
            visitsSigningPublicKey: try contents.signingPublicKey ?? signingKey.legacyFilePublicKey(dataDirectory: dataDirectory),
            tables: contents.tables, database: .init(member: BackupSnapshot.memberName, bytes: database.bytes, sha256: database.sha256),
            files: entries)
        let encoder = JSONCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        let bytes = try encoder.encode(manifest)
        let member = try zip.begin(name: BackupManifest.memberName, method: .deflated, modified: now)
        try bytes.withUnsafeBytes { try member.write($0) }
        _ = try member.finish()
        // The manifest holds every member's SHA-256, so its MAC vouches for the whole archive (`RestoreService`).
        let mac = Data(Hex.string(box.authenticationCode(for: bytes, purpose: BackupManifest.macPurpose)).utf8)
        let signature = try zip.begin(name: BackupManifest.macMemberName, method: .stored, modified: now)
        try mac.withUnsafeBytes { try signature.write($0) }
        _ = try signature.finish()
        return manifest
    }
}

extension BackupValue {
    /// As a bound parameter; NULL inline, since an untyped NULL bind is not accepted for every column type.
    var sqlExpression: any SQLExpression {
        switch self {
        case .null: SQLLiteral.null
        case let .integer(number): SQLBind(number)
        case let .real(number): SQLBind(number)
        case let .boolean(flag): SQLBind(flag)
        case let .text(string): SQLBind(string)
        case let .blob(data): SQLBind(data)
        }
    }
}

/// Files under the data directory that rows point to: diary photos, video uploads and thumbnails, import
/// spools, and whatever folders features add later. Left out: the database, the keys (secrets never go in
/// a backup), and half-written files (temporary folders and names), which no row points to.
enum MediaFiles {
    struct File {
        let path: String
        let relativePath: String
        let size: Int64
    }

    static func list(dataDirectory: String) throws -> [File] {
        let root = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        var files: [File] = []
        guard let top = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        // `tmp/` holds half-written uploads and a backup's own scratch (its tables' snapshot), never media.
        for name in top.sorted() where !name.hasPrefix(".") && name != "tmp" {
            var isDirectory: ObjCBool = false
            let path = (root as NSString).appendingPathComponent(name)
            // Top-level files are the database, its WAL and the keys; media lives in folders.
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            guard let walker = FileManager.default.enumerator(atPath: path) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let parts = relative.split(separator: "/")
                if parts.contains(where: { $0 == "tmp" || $0.hasPrefix(".") }) { continue }
                if relative.hasSuffix(".tmp") || relative.hasSuffix(".partial") || relative.hasSuffix(".part") { continue }
                // A backup folder inside the data directory must not swallow the backups before it.
                if relative.hasSuffix(".hibi-backup") { continue }
                found.append(relative)
            }
            for relative in found.sorted() {
                let full = (path as NSString).appendingPathComponent(relative)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: full),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      let size = (attributes[.size] as? NSNumber)?.int64Value else { continue }
                let member = name + "/" + relative
                guard StoredZip.isSafeName(member) else { continue }
                files.append(File(path: full, relativePath: member, size: size))
            }
        }
        return files
    }
}
