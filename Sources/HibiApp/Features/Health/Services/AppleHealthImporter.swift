import Crypto
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file with plain read(2) into the tokenizer's buffer: no mapping, no whole-file load.
final class FileByteStream: ByteStream {
    let descriptor: Int32
    private let closeOnDeinit: Bool

    init(path: String) throws {
        descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw HealthError.notAnExport(Text(en: "the file cannot be opened.", ja: "ファイルを開けません。"))
        }
        closeOnDeinit = true
    }

    init(descriptor: Int32) {
        self.descriptor = descriptor
        closeOnDeinit = false
    }

    deinit { if closeOnDeinit { close(descriptor) } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        while true {
            let n = Glibc.read(descriptor, buffer, count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw HealthError.notAnExport(Text(en: "the file cannot be read.", ja: "ファイルを読み込めません。"))
        }
    }
}

/// export.zip: the export.xml entry inflated by ZIPFoundation on a thread of its own and handed to the
/// tokenizer through a small bounded queue, so memory stays flat whatever the entry's size. ZIPFoundation
/// reads what other tools write (deflate, ZIP64) and `ZipReader` caps how far the entry may inflate.
final class ZipEntryStream: ByteStream {
    /// The absolute cap for export.xml: the largest real exports measured are a few GB.
    static let maxEntryBytes: UInt64 = 32 * 1024 * 1024 * 1024

    /// Shared between the inflating thread and the reader; the stream itself is not retained by the thread,
    /// so a reader that stops early lets the stream go and the thread is told to stop.
    final class Channel: @unchecked Sendable {
        let condition = NSCondition()
        var chunks: [Data] = []
        var finished = false
        var cancelled = false
        var failure: StoredZipError?
        static let depth = 4
    }

    private let channel = Channel()
    private var current = Data()
    private var offset = 0

    static func entry(in path: String) throws -> (reader: ZipReader, name: String, size: Int64) {
        let reader: ZipReader
        do {
            reader = try ZipReader(path: path, maxTotalBytes: maxEntryBytes)
        } catch {
            throw HealthError.notAnExport(Text(en: "the ZIP archive cannot be read: \(error.text.en).", ja: "ZIP アーカイブを読み込めません: \(error.text.ja)。"))
        }
        let names = reader.entries.keys.filter { $0 == "export.xml" || $0.hasSuffix("/export.xml") }.sorted()
        guard let name = names.first, let entry = reader.entries[name] else {
            throw HealthError.notAnExport(Text(en: "the ZIP archive has no export.xml.", ja: "ZIP アーカイブに export.xml がありません。"))
        }
        return (reader, name, Int64(clamping: entry.size))
    }

    init(reader: ZipReader, entry: String) {
        let channel = self.channel
        let thread = Thread {
            struct Cancelled: Error {}
            do {
                try reader.stream(entry) { chunk in
                    channel.condition.lock()
                    defer { channel.condition.unlock() }
                    while channel.chunks.count >= Channel.depth && !channel.cancelled { channel.condition.wait() }
                    if channel.cancelled { throw StoredZipError.damaged("cancelled") }
                    channel.chunks.append(chunk)
                    channel.condition.broadcast()
                }
            } catch {
                channel.condition.lock()
                channel.failure = (error as? StoredZipError) ?? .damaged("unreadable")
                channel.condition.unlock()
            }
            channel.condition.lock()
            channel.finished = true
            channel.condition.broadcast()
            channel.condition.unlock()
        }
        thread.start()
    }

    deinit {
        channel.condition.lock()
        channel.cancelled = true
        channel.condition.broadcast()
        channel.condition.unlock()
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if offset >= current.count {
            channel.condition.lock()
            while channel.chunks.isEmpty && !channel.finished { channel.condition.wait() }
            if channel.chunks.isEmpty {
                let failure = channel.failure
                channel.condition.unlock()
                if let failure {
                    throw HealthError.notAnExport(Text(en: "the ZIP archive cannot be read: \(failure.text.en).", ja: "ZIP アーカイブを読み込めません: \(failure.text.ja)。"))
                }
                return 0
            }
            current = channel.chunks.removeFirst()
            offset = 0
            channel.condition.broadcast()
            channel.condition.unlock()
        }
        let n = min(count, current.count - offset)
        current.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { buffer.update(from: base.assumingMemoryBound(to: UInt8.self) + offset, count: n) }
        }
        offset += n
        return n
    }
}

public struct ImportResult: Sendable {
    public let job: ImportJob
    public let newBadges: [BadgeDefinition]
}

/// Runs an Apple Health import: parse, write in batches, each batch committed with the job's
/// checkpoint so an interrupted run (crash, kill, restart) resumes where the data stops.
public struct AppleHealthImporter: Sendable {
    let health: HealthService
    let logger: Logger
    public var batchSize = 8000

    public init(health: HealthService, logger: Logger) {
        self.health = health
        self.logger = logger
    }

    /// Identifies a file cheaply: its size and the hash of its first megabyte.
    public static func fingerprint(path: String) throws -> (fingerprint: String, size: Int64) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw HealthError.notAnExport(Text(en: "the file cannot be opened.", ja: "ファイルを開けません。"))
        }
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 1 << 20) ?? Data()
        let digest = Hex.string(SHA256.hash(data: head))
        return ("\(size)-\(digest)", size)
    }

    /// Opens the export.xml of a path that holds either the XML or a ZIP of the export.
    static func open(path: String) throws -> (stream: any ByteStream, size: Int64) {
        let file = try FileByteStream(path: path)
        var magic = [UInt8](repeating: 0, count: 4)
        let n = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 4) } // trap-check: a 4-byte array always has storage
        if n == 4, magic == [0x50, 0x4B, 0x03, 0x04] {
            let (reader, entry, size) = try ZipEntryStream.entry(in: path)
            return (ZipEntryStream(reader: reader, entry: entry), size)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return (try FileByteStream(path: path), size)
    }

    /// Creates a job for `path` or picks up the unfinished one for the same file.
    public func prepare(path: String, fileName: String, user: User, uploadPath: String?, now: Date) async throws -> ImportJob {
        let (fingerprint, size) = try Self.fingerprint(path: path)
        if uploadPath == nil, let existing = try await health.jobs.unfinished(userID: user.id, fingerprint: fingerprint) {
            return existing
        }
        return try await health.jobs.create(userID: user.id, kind: "apple-health", fileName: fileName, fingerprint: fingerprint,
                                            totalBytes: size, uploadPath: uploadPath, now: now)
    }

    /// Imports from `path` (XML or ZIP) into the job; `progress` is called after each batch.
    public func run(job: ImportJob, path: String, user: User, progress: @Sendable (ImportJob) -> Void = { _ in }) async throws -> ImportResult {
        do {
            let (stream, size) = try Self.open(path: path)
            return try await run(job: job, stream: stream, totalBytes: size, user: user, progress: progress)
        } catch let error as HealthError {
            try await health.jobs.setState(job.id, .failed, error: error.text, now: Date())
            throw error
        }
    }

    public func run(job: ImportJob, stream: any ByteStream, totalBytes: Int64, user: User,
                    progress: @Sendable (ImportJob) -> Void = { _ in }) async throws -> ImportResult {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let parser = AppleHealthExportParser(stream: stream, timeZone: zone)
        var current = job
        current.state = .running
        current.totalBytes = totalBytes
        try await health.jobs.startAttempt(job.id)
        let skip = job.checkpoint
        var index: Int64 = 0
        var batch: [HealthRecordDraft] = []
        batch.reserveCapacity(batchSize)
        var birthDate: String?

        // One batch is written while the next is parsed: parsing and SQLite each take about half the
        // time, so on two cores they overlap. Only one batch is ever in flight, so batches (and their
        // checkpoints) still commit in file order.
        struct Written: Sendable { let checkpoint: Int64, bytes: Int64, inserted: Int, count: Int }
        var inFlight: Task<Written, any Error>?

        func finishInFlight() async throws {
            guard let task = inFlight else { return }
            inFlight = nil
            let written = try await task.value
            current.checkpoint = written.checkpoint
            current.bytesDone = written.bytes
            current.inserted += Int64(written.inserted)
            current.duplicates += Int64(written.count - written.inserted)
            progress(current)
        }

        func commit() async throws {
            try await finishInFlight()
            guard !batch.isEmpty else { return }
            let drafts = batch
            let checkpoint = index
            let bytes = parser.bytesRead
            batch = []
            batch.reserveCapacity(batchSize)
            let (health, jobID, userID) = (health, job.id, user.id)
            inFlight = Task {
                let inserted = try await health.database.transaction { sql in
                    let inserted = try await HealthRecordStore.insert(drafts, userID: userID, source: .appleHealth, now: Date(), on: sql)
                    try await ImportJobStore.advance(jobID, checkpoint: checkpoint, bytesDone: bytes, inserted: inserted,
                                                     duplicates: drafts.count - inserted, on: sql)
                    return inserted
                }
                return Written(checkpoint: checkpoint, bytes: bytes, inserted: inserted, count: drafts.count)
            }
        }

        do {
            while let item = try parser.next() {
                switch item {
                case let .birthDate(date):
                    birthDate = date
                case let .record(draft):
                    index += 1
                    if index <= skip { continue }
                    batch.append(draft)
                    if batch.count >= batchSize { try await commit() }
                }
            }
            try await commit()
            try await finishInFlight()
        } catch {
            // Whatever went wrong, the batch being written finishes before this returns, so a caller that
            // looks at the job (or resumes it) never races a commit still under way.
            try? await finishInFlight()
            let failure: HealthError
            if let xml = error as? XMLStreamError { failure = .malformedFile(xml) }
            else if let health = error as? HealthError { failure = health }
            else { throw error } // database trouble: the job stays "running" and resumes from its checkpoint
            // Everything before the bad spot is committed and kept; re-importing a fixed file skips it as duplicates.
            try? await commit()
            try? await finishInFlight()
            try await health.jobs.setState(job.id, .failed, error: failure.text, now: Date())
            logger.notice("health import failed", metadata: ["job": "\(job.id)", "code": "\(failure.code)"])
            throw failure
        }
        if let birthDate, try await health.profiles.get(userID: user.id).birthDate == nil {
            var profile = try await health.profiles.get(userID: user.id)
            profile.birthDate = String(birthDate.prefix(10))
            try await health.profiles.save(profile, userID: user.id, now: Date())
        }
        try await health.jobs.setState(job.id, .done, now: Date())
        let badges = try await health.awardBadges(user: user, now: Date())
        current.state = .done
        current.bytesDone = totalBytes
        progress(current)
        logger.info("health import finished", metadata: ["job": "\(job.id)", "inserted": "\(current.inserted)", "duplicates": "\(current.duplicates)"])
        return ImportResult(job: try await health.jobs.find(id: job.id, userID: user.id) ?? current, newBadges: badges)
    }
}
