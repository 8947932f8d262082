import Crypto
import Foundation
import Logging
import SQLKit
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
    /// Where workout routes also go as raw points (the location history); nil keeps them in Health only.
    let locations: (any LocationHistory)?
    let logger: Logger
    public var batchSize = 8000
    /// SQLite: the WAL size (in 4 KB frames) past which the import lets the WAL start over (`ImportWALCheckpointer`).
    var walRestartFrames = 8192

    public init(health: HealthService, locations: (any LocationHistory)? = nil, logger: Logger) {
        self.health = health
        self.locations = locations
        self.logger = logger
    }

    /// The report's kind for route points stored in the location history (added = new points there).
    public static let locationHistoryKind = "location history"

    /// Route points as location history points.
    static func locationPoints(_ points: some Collection<WorkoutRoutePoint>) -> [(time: Int64, latitude: Double, longitude: Double)] {
        points.map { (time: $0.t, latitude: $0.lat, longitude: $0.lon) }
    }

    /// The time a route covers, for stay detection around it.
    static func span(_ points: some Collection<WorkoutRoutePoint>) -> ClosedRange<Int64>? {
        guard var low = points.first?.t else { return nil }
        var high = low
        for p in points {
            low = min(low, p.t)
            high = max(high, p.t)
        }
        return low...high
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

    /// Imports from `path` (XML or ZIP) into the job; `progress` is called after each batch. From a ZIP,
    /// the workout routes' GPX files and the electrocardiograms beside export.xml are imported too; a ZIP
    /// with activities.csv at its root is Strava's export (`runStrava`).
    public func run(job: ImportJob, path: String, user: User, progress: @Sendable (ImportJob) -> Void = { _ in }) async throws -> ImportResult {
        do {
            if let strava = Self.stravaArchive(path: path) {
                return try await runStrava(job: job, archive: strava, path: path, user: user, progress: progress)
            }
            let (stream, size) = try Self.open(path: path)
            let archive = (stream as? ZipEntryStream).flatMap { _ in try? ZipReader(path: path, maxTotalBytes: ZipEntryStream.maxEntryBytes) }
            return try await run(job: job, stream: stream, totalBytes: size, user: user, archive: archive, progress: progress)
        } catch let error as HealthError {
            try await health.jobs.setState(job.id, .failed, error: error.text, now: Date())
            throw error
        }
    }

    /// One batch of parsed items, written in one transaction with the job's checkpoint and report.
    struct Batch: Sendable {
        var records: [HealthRecordDraft] = []
        /// Records from other elements than `<Record>` (Correlation, ActivitySummary), counted under their kind.
        var others: [(kind: String, draft: HealthRecordDraft)] = []
        var workouts: [AppleHealthWorkout] = []
        var skips: [ImportSkip] = []
        var count: Int { records.count + others.count + workouts.count + skips.count }
        var isEmpty: Bool { count == 0 }
    }

    /// Writes a batch; returns what it added to the report and the numbers for the job's counters.
    static func write(_ batch: Batch, userID: String, locations: (any LocationHistory)? = nil, on sql: any SQLDatabase) async throws
        -> (report: ImportReport, inserted: Int, duplicates: Int) {
        var report = ImportReport()
        var inserted = 0, duplicates = 0
        let now = Date()
        if !batch.records.isEmpty {
            let added = try await HealthRecordStore.insert(batch.records, userID: userID, source: .appleHealth, now: now, on: sql)
            report.count("Record", added: added, duplicates: batch.records.count - added)
            inserted += added
            duplicates += batch.records.count - added
        }
        var kinds: [String] = []
        for (kind, _) in batch.others where !kinds.contains(kind) { kinds.append(kind) }
        for kind in kinds {
            let drafts = batch.others.filter { $0.kind == kind }.map(\.draft)
            let added = try await HealthRecordStore.insert(drafts, userID: userID, source: .appleHealth, now: now, on: sql)
            report.count(kind, added: added, duplicates: drafts.count - added)
            inserted += added
            duplicates += drafts.count - added
        }
        if !batch.workouts.isEmpty {
            // The workout stays a record too (trends, badges and the day page read it there).
            _ = try await HealthRecordStore.insert(batch.workouts.map(\.record), userID: userID, source: .appleHealth, now: now, on: sql)
            let added = try await HealthWorkoutStore.insert(batch.workouts, userID: userID, now: now, on: sql)
            report.count("Workout", added: added, duplicates: batch.workouts.count - added)
            inserted += added
            duplicates += batch.workouts.count - added
            for workout in batch.workouts {
                for skip in workout.skips { report.skip(skip.kind, skip.reason, at: skip.at) }
                guard !workout.points.isEmpty else { continue }
                let workoutID = workout.id(userID: userID)
                let points = try await HealthWorkoutStore.insertPoints(workout.points, workoutID: workoutID, userID: userID, on: sql)
                report.count("Location", added: points, duplicates: workout.points.count - points)
                if let locations {
                    // The same points as location history, in the same transaction: a resumed import never has one without the other.
                    let stored = try await locations.storeWorkoutPoints(locationPoints(workout.points), workoutID: workoutID, userID: userID, on: sql)
                    report.count(locationHistoryKind, added: stored, duplicates: workout.points.count - stored)
                }
            }
        }
        for skip in batch.skips { report.skip(skip.kind, skip.reason, at: skip.at) }
        return (report, inserted, duplicates)
    }

    public func run(job: ImportJob, stream: any ByteStream, totalBytes: Int64, user: User, archive: ZipReader? = nil,
                    progress: @Sendable (ImportJob) -> Void = { _ in }) async throws -> ImportResult {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let parser = AppleHealthExportParser(stream: stream, timeZone: zone)
        var current = job
        current.state = .running
        current.totalBytes = totalBytes
        try await health.jobs.startAttempt(job.id)
        let skip = job.checkpoint
        var index: Int64 = 0
        var batch = Batch()
        var birthDate: String?
        /// Route files named by workouts, read from the archive once the export.xml is in (all workouts, resumed ones included).
        var routeFiles: [(workoutID: String, path: String)] = []
        /// The times the routes read here cover, for stay detection once the import is in.
        var routeSpans: [ClosedRange<Int64>] = []

        // One batch is written while the next is parsed: parsing and SQLite each take about half the
        // time, so on two cores they overlap. Only one batch is ever in flight, so batches (and their
        // checkpoints) still commit in file order.
        struct Written: Sendable { let checkpoint: Int64, bytes: Int64, inserted: Int, duplicates: Int, report: ImportReport }
        var inFlight: Task<Written, any Error>?
        // SQLite: the WAL checkpoint runs beside the writer instead of inside its COMMITs.
        var wal = health.database.engine == .sqlite ? ImportWALCheckpointer(database: health.database, restartFrames: walRestartFrames) : nil

        func finishInFlight() async throws {
            guard let task = inFlight else { return }
            inFlight = nil
            let written = try await task.value
            current.checkpoint = written.checkpoint
            current.bytesDone = written.bytes
            current.inserted += Int64(written.inserted)
            current.duplicates += Int64(written.duplicates)
            current.report = written.report
            progress(current)
            await wal?.committed()
        }

        func commit() async throws {
            try await finishInFlight()
            guard !batch.isEmpty else { return }
            let items = batch
            let checkpoint = index
            let bytes = parser.bytesRead
            let base = current.report
            batch = Batch()
            let (health, jobID, userID, locations, autoCheckpoint) = (health, job.id, user.id, locations, wal == nil)
            inFlight = Task {
                // A bulk transaction: on SQLite its multi-row INSERTs keep their statement journals in memory.
                try await health.database.bulkTransaction(autoCheckpoint: autoCheckpoint) { sql in
                    let (added, inserted, duplicates) = try await Self.write(items, userID: userID, locations: locations, on: sql)
                    var report = base
                    report.merge(added)
                    try await ImportJobStore.advance(jobID, checkpoint: checkpoint, bytesDone: bytes, inserted: inserted,
                                                     duplicates: duplicates, report: report, on: sql)
                    return Written(checkpoint: checkpoint, bytes: bytes, inserted: inserted, duplicates: duplicates, report: report)
                }
            }
        }

        do {
            while let item = try parser.next() {
                if case let .birthDate(date) = item {
                    birthDate = date
                    continue
                }
                if case let .workout(workout) = item {
                    for path in workout.routeFiles { routeFiles.append((workout.id(userID: user.id), path)) }
                }
                index += 1
                if index <= skip { continue }
                switch item {
                case let .record(draft, kind):
                    if kind == "Record" { batch.records.append(draft) } else { batch.others.append((kind, draft)) }
                case let .workout(workout):
                    if let span = Self.span(workout.points) { routeSpans.append(span) }
                    batch.workouts.append(workout)
                case let .skipped(skipped):
                    batch.skips.append(skipped)
                case .birthDate:
                    break
                }
                if batch.count >= batchSize { try await commit() }
            }
            try await commit()
            try await finishInFlight()
            await wal?.finish()
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
            await wal?.finish()
            try await health.jobs.setState(job.id, .failed, error: failure.text, now: Date())
            logger.notice("health import failed", metadata: ["job": "\(job.id)", "code": "\(failure.code)"])
            throw failure
        }
        var report = current.report
        let files = try await importArchiveFiles(archive, routeFiles: routeFiles, user: user)
        report.merge(files.report)
        routeSpans += files.spans
        current.report = report
        try await ImportJobStore.saveReport(job.id, report, on: health.database.sql)
        if let birthDate, try await health.profiles.get(userID: user.id).birthDate == nil {
            var profile = try await health.profiles.get(userID: user.id)
            profile.birthDate = String(birthDate.prefix(10))
            try await health.profiles.save(profile, userID: user.id, now: Date())
        }
        if let locations, !routeSpans.isEmpty {
            // Stays along the routes are offered like those of any track. The points are already in;
            // a failure here leaves them for the next detection rather than failing the import.
            do {
                let offered = try await locations.detectAroundWorkouts(userID: user.id, spans: routeSpans, now: Date())
                logger.info("health import: stays detected around workouts", metadata: ["job": "\(job.id)", "offered": "\(offered)"])
            } catch {
                logger.warning("health import: stay detection around workouts failed", metadata: ["job": "\(job.id)", "reason": "\(String(describing: error).prefix(200))"])
            }
        }
        try await health.jobs.setState(job.id, .done, now: Date())
        let badges = try await health.awardBadges(user: user, now: Date())
        current.state = .done
        current.bytesDone = totalBytes
        progress(current)
        logger.info("health import finished", metadata: ["job": "\(job.id)", "inserted": "\(current.inserted)", "duplicates": "\(current.duplicates)"])
        return ImportResult(job: try await health.jobs.find(id: job.id, userID: user.id) ?? current, newBadges: badges)
    }

    /// The files beside export.xml: each route GPX a workout names (its points, kind `trkpt`), route files
    /// no workout names, and electrocardiograms kept as files. Without an archive (export.xml alone), the
    /// named route files are reported missing.
    func importArchiveFiles(_ archive: ZipReader?, routeFiles: [(workoutID: String, path: String)], user: User) async throws
        -> (report: ImportReport, spans: [ClosedRange<Int64>]) {
        var report = ImportReport()
        var spans: [ClosedRange<Int64>] = []
        guard let archive else {
            for file in routeFiles { report.skip("FileReference", .missingFile, at: file.path) }
            return (report, spans)
        }
        // Entry names carry the export's folder ("apple_health_export/workout-routes/x.gpx"); FileReference
        // paths start at that folder ("/workout-routes/x.gpx").
        var byTail: [String: String] = [:]
        for name in archive.entries.keys {
            if let range = name.range(of: "workout-routes/") ?? name.range(of: "electrocardiograms/") {
                byTail[String(name[range.lowerBound...])] = name
            }
        }
        var used: Set<String> = []
        for file in routeFiles {
            let tail = file.path.hasPrefix("/") ? String(file.path.dropFirst()) : file.path
            guard let name = byTail[tail], let entry = archive.entries[name] else {
                report.skip("FileReference", .missingFile, at: file.path)
                continue
            }
            used.insert(name)
            guard entry.size <= 64 << 20, let data = try? archive.contents(of: name) else {
                report.skip("FileReference", .tooMany, at: file.path)
                continue
            }
            let parsed: (points: [WorkoutRoutePoint], skips: [ImportSkip])
            do {
                parsed = try WorkoutRouteGPX.parse(MemoryByteStream(Array(data)))
            } catch {
                report.skip("FileReference", .unsupported, at: file.path)
                continue
            }
            let (userID, workoutID, locations) = (user.id, file.workoutID, locations)
            let (added, stored) = try await health.database.transaction { sql in
                let added = try await HealthWorkoutStore.insertPoints(parsed.points, workoutID: workoutID, userID: userID, on: sql)
                let stored = try await locations?.storeWorkoutPoints(Self.locationPoints(parsed.points), workoutID: workoutID, userID: userID, on: sql)
                return (added, stored)
            }
            report.count("trkpt", added: added, duplicates: parsed.points.count - added)
            if let stored { report.count(Self.locationHistoryKind, added: stored, duplicates: parsed.points.count - stored) }
            if let span = Self.span(parsed.points) { spans.append(span) }
            for skip in parsed.skips { report.skip(skip.kind, skip.reason, at: "\(tail) \(skip.at)") }
        }
        for (tail, name) in byTail.sorted(by: { $0.key < $1.key }) {
            if tail.hasPrefix("workout-routes/"), tail.hasSuffix(".gpx"), !used.contains(name) {
                // A route no workout names has nothing to belong to: said, not silently passed over.
                report.skip("workout-routes file", .missingValue, at: tail)
            } else if tail.hasPrefix("electrocardiograms/"), tail.hasSuffix(".csv") {
                let file = String(tail.dropFirst("electrocardiograms/".count))
                guard health.electrocardiograms.directory != nil, HealthECGStore.isSafeName(file) else {
                    report.skip("electrocardiogram", .unsupported, at: tail)
                    continue
                }
                guard let entry = archive.entries[name], entry.size <= UInt64(HealthECGStore.maxBytes), let data = try? archive.contents(of: name) else {
                    report.skip("electrocardiogram", .tooMany, at: tail)
                    continue
                }
                if try health.electrocardiograms.save(name: file, data: data, userID: user.id) {
                    report.count("electrocardiogram", added: 1, duplicates: 0)
                } else {
                    report.count("electrocardiogram", added: 0, duplicates: 1)
                }
            }
        }
        return (report, spans)
    }
}
