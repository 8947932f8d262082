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

/// export.zip: the export.xml entry is streamed out of `unzip -p` through a pipe. Shelling out to
/// Info-ZIP keeps inflate out of our process and our dependency list, and a pipe is constant memory
/// by nature; ZIPFoundation would add a package for what one well-known tool does.
final class ZipEntryStream: ByteStream {
    let process: Process
    let inner: FileByteStream
    let pipe: Pipe

    static func entry(in path: String) throws -> (name: String, size: Int64) {
        let list = Process()
        list.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        list.arguments = ["-l", path]
        let out = Pipe()
        list.standardOutput = out
        list.standardError = FileHandle.nullDevice
        try list.run()
        // The listing is one line per entry: small even for big archives.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        list.waitUntilExit()
        guard list.terminationStatus == 0 else {
            throw HealthError.notAnExport(Text(en: "the ZIP archive cannot be read.", ja: "ZIP アーカイブを読み込めません。"))
        }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            // "  Length  Date  Time  Name": runs of spaces separate the columns.
            let parts = line.drop(while: { $0 == " " }).split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
            guard parts.count == 4, let size = Int64(parts[0]) else { continue }
            let name = parts[3].trimmingCharacters(in: .whitespaces)
            if name == "export.xml" || name.hasSuffix("/export.xml") { return (name, size) }
        }
        throw HealthError.notAnExport(Text(en: "the ZIP archive has no export.xml.", ja: "ZIP アーカイブに export.xml がありません。"))
    }

    init(path: String, entry: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        // -p writes the entry to stdout; the name is matched literally, not as a pattern, thanks to the escaping of wildcards.
        let literal = entry.replacingOccurrences(of: "[", with: "[[]").replacingOccurrences(of: "*", with: "[*]").replacingOccurrences(of: "?", with: "[?]")
        process.arguments = ["-p", path, literal]
        pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        inner = FileByteStream(descriptor: pipe.fileHandleForReading.fileDescriptor)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let n = try inner.read(into: buffer, count: count)
        if n == 0 {
            process.waitUntilExit()
            if process.terminationStatus != 0 {
                throw HealthError.notAnExport(Text(en: "the ZIP archive is damaged (unzip status \(process.terminationStatus)).", ja: "ZIP アーカイブが壊れています(unzip 終了コード \(process.terminationStatus))。"))
            }
        }
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
            let (entry, size) = try ZipEntryStream.entry(in: path)
            return (try ZipEntryStream(path: path, entry: entry), size)
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
