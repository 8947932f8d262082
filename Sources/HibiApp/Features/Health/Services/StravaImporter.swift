import Foundation

/// Strava's bulk export ZIP through the health import (the same upload, job and `hibi import` command as an
/// Apple Health export): one workout per row of `activities.csv`, its file's points as the workout's route and
/// in the location history, all written by the export import's writer (`AppleHealthImporter.write`), so a
/// re-import adds nothing. Members are read one at a time through `ZipReader` (`ZipEntryStream`) and gzip
/// through zlib (`GunzipStream`), each straight into its parser: memory holds one activity's points.
extension AppleHealthImporter {
    static let stravaCSV = "activities.csv"
    /// The most one activity's file may unpack to: a day-long ride recorded every second is about 20 MB of FIT or 60 MB of TCX.
    static let stravaFileLimit: UInt64 = 256 << 20

    /// The archive at `path` when it is a Strava export (activities.csv at its root), else nil.
    static func stravaArchive(path: String) -> ZipReader? {
        guard let archive = try? ZipReader(path: path, maxTotalBytes: ZipEntryStream.maxEntryBytes),
              archive.entries[stravaCSV] != nil, !archive.entries.keys.contains(where: { $0.hasSuffix("export.xml") }) else { return nil }
        return archive
    }

    /// activities.csv read as a stream, a buffer at a time (`CSVRowReader`): memory holds one buffer's rows,
    /// whatever the number of activities. The header is read first; `next()` gives the rows that follow.
    final class StravaRows {
        private let stream: ZipEntryStream
        private var reader = CSVRowReader()
        private var pending: [[String]] = []
        private var ended = false
        private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        private(set) var columns: StravaExport.Columns?
        /// Bytes of activities.csv read so far and its size, for the job's progress.
        private(set) var bytesRead: Int64 = 0
        let size: Int64

        /// Opens activities.csv of the archive at `path` and reads its header. Through a reader of its own: a
        /// `ZipReader` reads through one file handle (seek, then read), and this stream inflates on its own thread
        /// while the activities' members are read through the import's reader, so sharing one would interleave them.
        init(path: String) throws(HealthError) {
            let archive: ZipReader
            do { archive = try ZipReader(path: path, maxTotalBytes: ZipEntryStream.maxEntryBytes) } catch {
                throw .notAnExport(Text(en: "the ZIP archive cannot be read: \(error.text.en).", ja: "ZIP アーカイブを読み込めません: \(error.text.ja)。"))
            }
            guard let entry = archive.entries[stravaCSV] else {
                throw .notAnExport(Text(en: "the ZIP archive has no activities.csv.", ja: "ZIP アーカイブに activities.csv がありません。"))
            }
            size = Int64(clamping: entry.size)
            stream = ZipEntryStream(reader: archive, entry: stravaCSV)
            while pending.isEmpty, !ended { try fill() }
            guard !pending.isEmpty else { throw .notAnExport(StravaExport.HeaderProblem.missingColumn("Activity ID").text) }
            do { columns = try StravaExport.columns(pending.removeFirst()) } catch { throw .notAnExport(error.text) }
        }

        /// The next row with its number as a spreadsheet shows it (the header is row 1), nil after the last.
        func next() throws(HealthError) -> (row: Int, activity: StravaExport.Activity?)? {
            while pending.isEmpty, !ended { try fill() }
            guard !pending.isEmpty else { return nil }
            let fields = pending.removeFirst()
            return (reader.records - pending.count, columns.flatMap { StravaExport.activity(fields, columns: $0) })
        }

        private func fill() throws(HealthError) {
            do {
                var rows: [[String]] = []
                let n = try buffer.withUnsafeMutableBufferPointer { bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    let n = try stream.read(into: base, count: bytes.count)
                    if n == 0 {
                        try reader.finish { rows.append($0) }
                    } else {
                        try reader.feed(UnsafeBufferPointer(start: base, count: n)) { rows.append($0) }
                    }
                    return n
                }
                bytesRead += Int64(n)
                if n == 0 { ended = true }
                pending += rows
            } catch let failure as CSVRowReader.Failure {
                ended = true
                throw Self.problem(failure)
            } catch let error as HealthError {
                ended = true
                throw error
            } catch {
                ended = true
                throw .notAnExport(Text(en: "activities.csv cannot be read.", ja: "activities.csv を読み込めません。"))
            }
        }

        static func problem(_ failure: CSVRowReader.Failure) -> HealthError {
            switch failure {
            case let .misplacedQuote(record):
                .invalidCSV(line: record, reason: Text(en: "a quote is out of place in activities.csv", ja: "activities.csv の引用符の位置が正しくありません"))
            case let .fieldTooLong(record):
                .invalidCSV(line: record, reason: Text(en: "a field of activities.csv is longer than \(CSVRowReader.maxFieldBytes >> 20) MB",
                                                       ja: "activities.csv の項目が \(CSVRowReader.maxFieldBytes >> 20) MB を超えています"))
            case let .tooManyFields(record):
                .invalidCSV(line: record, reason: Text(en: "a row of activities.csv has more than \(CSVRowReader.maxFields) fields",
                                                       ja: "activities.csv の行の項目が \(CSVRowReader.maxFields) を超えています"))
            }
        }
    }

    /// One activity's file: its route points (kept as the workout's route) and what it says of the workout.
    struct StravaFile {
        var points: [WorkoutRoutePoint] = []
        var skips: [ImportSkip] = []
        var summary = StravaExport.FileSummary()
    }

    /// Reads the member `name` (gzipped or not) with the parser its extension names; throws `StravaFileProblem`.
    static func readStravaFile(_ archive: ZipReader, name: String, tracks: (any LocationHistory)?) throws(StravaFileProblem) -> StravaFile {
        var lower = name.lowercased()
        let gzipped = lower.hasSuffix(".gz")
        if gzipped { lower.removeLast(3) }
        let format: String
        if lower.hasSuffix(".gpx") { format = "gpx" } else if lower.hasSuffix(".tcx") { format = "tcx" } else if lower.hasSuffix(".fit") { format = "fit" } else {
            throw .unsupported
        }
        guard archive.entries[name] != nil else { throw .missing }
        do {
            let member: any ByteStream = ZipEntryStream(reader: archive, entry: name)
            let stream: any ByteStream = gzipped ? try GunzipStream(member, limit: stravaFileLimit) : member
            var file = StravaFile()
            switch format {
            case "gpx":
                let track = try WorkoutRouteGPX.read(stream)
                (file.points, file.skips) = (track.points, track.skips)
                file.summary = StravaExport.summary(times: file.points.map(\.t), altitudes: file.points.compactMap(\.ele), heartRates: track.heartRates)
            default:
                // TCX and FIT through the location import's readers, which Visits offers (`LocationHistory`).
                guard let tracks else { throw StravaFileProblem.unsupported }
                let track: TrackFile
                do {
                    track = try tracks.readTrack(stream, format: format == "tcx" ? .tcx : .fit, maxPoints: AppleHealthExportParser.maxRoutePoints)
                } catch is TrackFileTooLarge {
                    throw StravaFileProblem.tooLarge
                }
                file.points = track.points.map { WorkoutRoutePoint(t: $0.time, lat: $0.latitude, lon: $0.longitude, ele: $0.altitude) }
                for kind in track.skipped.kinds { for skip in kind.skipped { file.skips.append(ImportSkip(kind: kind.kind, reason: skip.reason, at: skip.firstAt ?? "")) } }
                file.summary = StravaExport.summary(times: track.times, altitudes: track.altitudes, heartRates: track.heartRates)
            }
            file.points = file.points.filter { WorkoutRoutePoint.valid(lat: $0.lat, lon: $0.lon) && AppleHealthMapping.plausible($0.t) }
            return file
        } catch let problem as StravaFileProblem {
            throw problem
        } catch {
            throw .unreadable
        }
    }

    enum StravaFileProblem: Error {
        case missing, unsupported, unreadable, tooLarge

        var reason: ImportSkipReason {
            switch self {
            case .missing: .missingFile
            case .unsupported: .unsupported
            case .unreadable: .unreadable
            case .tooLarge: .tooMany
            }
        }
    }

    /// Runs a Strava export as the import job: activities.csv streamed row by row, each activity written in its own
    /// transaction with the job's checkpoint (its row), so an interrupted import resumes after the last activity it stored.
    func runStrava(job: ImportJob, archive: ZipReader, path: String, user: User, progress: @Sendable (ImportJob) -> Void) async throws -> ImportResult {
        var current = job
        current.state = .running
        try await health.jobs.startAttempt(job.id)
        let rows: StravaRows
        do {
            rows = try StravaRows(path: path)
        } catch {
            try await health.jobs.setState(job.id, .failed, error: error.text, now: Date())
            throw error
        }
        var report = current.report
        var spans: [ClosedRange<Int64>] = []
        let (userID, locations) = (user.id, self.locations)
        var index: Int64 = -1
        while true {
            let next: (row: Int, activity: StravaExport.Activity?)?
            do {
                next = try rows.next()
            } catch {
                try await health.jobs.setState(job.id, .failed, error: error.text, now: Date())
                throw error
            }
            guard let item = next else { break }
            index += 1
            guard index >= job.checkpoint else { continue }
            var batch = Batch()
            var fileReport = ImportReport()
            // Progress in the upload's bytes, as the Apple Health import counts it, in proportion to activities.csv read.
            let fraction = Double(rows.bytesRead) / Double(max(rows.size, 1))
            let bytes = min(current.totalBytes, Int64(exactly: (Double(current.totalBytes) * fraction).rounded()) ?? current.totalBytes)
            guard let activity = item.activity else {
                batch.skips.append(ImportSkip(kind: "Workout", reason: .missingValue, at: "row \(item.row)"))
                try await commitStrava(batch, fileReport: fileReport, checkpoint: index + 1, bytes: bytes, report: &report, current: &current,
                                       userID: userID, locations: locations)
                continue
            }
            let at = "row \(item.row) (\(activity.id))"
            var file: StravaFile?
            if let name = activity.file {
                do {
                    file = try Self.readStravaFile(archive, name: name, tracks: locations)
                    if file?.points.isEmpty == true { fileReport.skip(StravaExport.fileKind, .noPoints, at: name) }
                } catch {
                    fileReport.skip(StravaExport.fileKind, error.reason, at: name)
                }
            }
            if var workout = StravaExport.workout(activity, file: file?.summary) {
                if let file, !file.points.isEmpty {
                    workout.points = file.points
                    fileReport.add(StravaExport.fileKind)
                    if let span = Self.span(file.points) { spans.append(span) }
                }
                workout.skips = file?.skips ?? []
                batch.workouts.append(workout)
            } else {
                batch.skips.append(ImportSkip(kind: "Workout", reason: .unparseableDate, at: at))
            }
            try await commitStrava(batch, fileReport: fileReport, checkpoint: index + 1, bytes: bytes, report: &report, current: &current,
                                   userID: userID, locations: locations)
            progress(current)
        }
        current.report = report
        try await ImportJobStore.saveReport(job.id, report, on: health.database.sql)
        if let locations, !spans.isEmpty {
            do {
                _ = try await locations.detectAroundWorkouts(userID: user.id, spans: spans, now: Date())
            } catch {
                logger.warning("strava import: stay detection around workouts failed", metadata: ["job": "\(job.id)", "reason": "\(String(describing: error).prefix(200))"])
            }
        }
        try await health.jobs.setState(job.id, .done, now: Date())
        let badges = try await health.awardBadges(user: user, now: Date())
        current.state = .done
        progress(current)
        logger.info("strava import finished", metadata: ["job": "\(job.id)", "inserted": "\(current.inserted)", "duplicates": "\(current.duplicates)"])
        return ImportResult(job: try await health.jobs.find(id: job.id, userID: user.id) ?? current, newBadges: badges)
    }

    /// One activity through the export import's writer, with the job's checkpoint in the same transaction.
    private func commitStrava(_ batch: Batch, fileReport: ImportReport, checkpoint: Int64, bytes: Int64, report: inout ImportReport, current: inout ImportJob,
                              userID: String, locations: (any LocationHistory)?) async throws {
        let base = report
        let jobID = current.id
        let written = try await health.database.transaction { sql in
            let (added, inserted, duplicates) = try await Self.write(batch, userID: userID, locations: locations, on: sql)
            var merged = base
            merged.merge(added)
            merged.merge(fileReport)
            try await ImportJobStore.advance(jobID, checkpoint: checkpoint, bytesDone: bytes, inserted: inserted, duplicates: duplicates,
                                             report: merged, on: sql)
            return (merged, inserted, duplicates)
        }
        report = written.0
        current.checkpoint = checkpoint
        current.bytesDone = bytes
        current.inserted += Int64(written.1)
        current.duplicates += Int64(written.2)
        current.report = report
    }
}
