import Foundation
import SwiftCSV

/// Strava's bulk export ZIP through the health import (the same upload, job and `hibi import` command as an
/// Apple Health export): one workout per row of `activities.csv`, its file's points as the workout's route and
/// in the location history, all written by the export import's writer (`AppleHealthImporter.write`), so a
/// re-import adds nothing. Members are read one at a time through `ZipReader` (`ZipEntryStream`) and gzip
/// through zlib (`GunzipStream`), each straight into its parser: memory holds one activity's points.
extension AppleHealthImporter {
    static let stravaCSV = "activities.csv"
    /// activities.csv is about 1 KB per activity: 64 MB is some 60,000 activities.
    static let stravaCSVLimit: UInt64 = 64 << 20
    /// The most one activity's file may unpack to: a day-long ride recorded every second is about 20 MB of FIT or 60 MB of TCX.
    static let stravaFileLimit: UInt64 = 256 << 20

    /// The archive at `path` when it is a Strava export (activities.csv at its root), else nil.
    static func stravaArchive(path: String) -> ZipReader? {
        guard let archive = try? ZipReader(path: path, maxTotalBytes: ZipEntryStream.maxEntryBytes),
              archive.entries[stravaCSV] != nil, !archive.entries.keys.contains(where: { $0.hasSuffix("export.xml") }) else { return nil }
        return archive
    }

    /// The rows of activities.csv, read by SwiftCSV a row at a time into small `Activity` values.
    static func stravaActivities(_ archive: ZipReader) throws(HealthError) -> [(row: Int, activity: StravaExport.Activity?)] {
        guard let entry = archive.entries[stravaCSV], entry.size <= stravaCSVLimit else {
            throw .notAnExport(Text(en: "activities.csv is larger than \(stravaCSVLimit >> 20) MB.", ja: "activities.csv が \(stravaCSVLimit >> 20) MB を超えています。"))
        }
        let data: Data
        do {
            data = try archive.contents(of: stravaCSV) ?? Data()
        } catch {
            throw .notAnExport(Text(en: "activities.csv cannot be read: \(error.text.en).", ja: "activities.csv を読み込めません: \(error.text.ja)。"))
        }
        final class Rows { var all: [(row: Int, activity: StravaExport.Activity?)] = [] }
        let rows = Rows()
        let text = String(decoding: data, as: UTF8.self)
        let csv: EnumeratedCSV
        do {
            csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false, rowLimit: 0)
        } catch {
            throw .invalidCSV(line: 1, reason: Text(en: "activities.csv cannot be read as CSV", ja: "activities.csv を CSV として読めません"))
        }
        let columns: StravaExport.Columns
        do { columns = try StravaExport.columns(csv.header) } catch { throw .notAnExport(error.text) }
        do {
            try csv.enumerateAsArray(startAt: 1, rowLimit: nil) { fields in
                guard !(fields.count == 1 && fields[0].isEmpty) else { return }
                // Rows are numbered as a spreadsheet shows them: the header is row 1.
                rows.all.append((rows.all.count + 2, StravaExport.activity(fields, columns: columns)))
            }
        } catch {
            throw .invalidCSV(line: rows.all.count + 2, reason: Text(en: "a quote is out of place in activities.csv", ja: "activities.csv の引用符の位置が正しくありません"))
        }
        return rows.all
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
                (file.points, file.skips) = try WorkoutRouteGPX.parse(stream)
                file.summary = StravaExport.summary(times: file.points.map(\.t), altitudes: file.points.compactMap(\.ele), heartRates: [])
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

    /// Runs a Strava export as the import job: each activity written in its own transaction with the job's
    /// checkpoint (its row), so an interrupted import resumes after the last activity it stored.
    func runStrava(job: ImportJob, archive: ZipReader, user: User, progress: @Sendable (ImportJob) -> Void) async throws -> ImportResult {
        var current = job
        current.state = .running
        try await health.jobs.startAttempt(job.id)
        let activities: [(row: Int, activity: StravaExport.Activity?)]
        do {
            activities = try Self.stravaActivities(archive)
        } catch {
            try await health.jobs.setState(job.id, .failed, error: error.text, now: Date())
            throw error
        }
        var report = current.report
        var spans: [ClosedRange<Int64>] = []
        let (userID, locations) = (user.id, self.locations)
        for (index, item) in activities.enumerated() where Int64(index) >= job.checkpoint {
            var batch = Batch()
            var fileReport = ImportReport()
            guard let activity = item.activity else {
                batch.skips.append(ImportSkip(kind: "Workout", reason: .missingValue, at: "row \(item.row)"))
                try await commitStrava(batch, fileReport: fileReport, index: index, count: activities.count, report: &report, current: &current, userID: userID, locations: locations)
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
            try await commitStrava(batch, fileReport: fileReport, index: index, count: activities.count, report: &report, current: &current, userID: userID, locations: locations)
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
    private func commitStrava(_ batch: Batch, fileReport: ImportReport, index: Int, count: Int, report: inout ImportReport, current: inout ImportJob,
                              userID: String, locations: (any LocationHistory)?) async throws {
        let base = report
        let (jobID, checkpoint) = (current.id, Int64(index) + 1)
        // Progress in the upload's bytes, as the Apple Health import counts it, in proportion to the activities done.
        let bytes = Int64(exactly: (Double(current.totalBytes) * Double(checkpoint) / Double(max(count, 1))).rounded()) ?? current.totalBytes
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
