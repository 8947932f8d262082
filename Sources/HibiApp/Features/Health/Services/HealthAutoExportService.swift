import Foundation
import SQLKit

/// What a Health Auto Export post answers: per report kind (the app's metric names, `Workout`,
/// `workout heartRateData`, `Location`), what was added, already there, and skipped with a reason.
public struct AutoExportResponse: Codable, Sendable, Equatable {
    public var added: Int
    public var duplicates: Int
    public var skipped: Int
    public var report: ImportReport
    public var summary: [String]
}

extension AppleHealthImporter {
    /// The most one post may carry unless `HIBI_HEALTH_AUTO_EXPORT_MAX_MB` says otherwise: 512 MB. A first
    /// push sends everything since the chosen start date in one body; a year of minute-level points is
    /// 525,600 per metric, about 100 bytes each as the app writes them (`Benchmarks/health-auto-export-gen.py`:
    /// 53 MB of heart rate with Min/Avg/Max, 35 MB of steps), so a year of the half-dozen metrics a watch
    /// records every minute is 250 to 350 MB. The body is spooled to disk and read a chunk at a time,
    /// so the bound is one of disk and time, not memory.
    public static let autoExportLimit: Int64 = 512 << 20

    /// Bytes read from the spooled body at a time.
    static let autoExportChunkBytes = 256 * 1024

    static func invalidAutoExport(_ failure: HealthAutoExport.Failure) -> HealthError {
        switch failure {
        case .notJSON: HealthError.invalidPayload(Text(en: "the body is not valid JSON.", ja: "本文が正しい JSON ではありません。"))
        case let .wrongShape(what): HealthError.invalidPayload(Text(en: what, ja: what))
        }
    }

    /// Stores one Health Auto Export post, spooled to `path`, through the export import's writer: the same
    /// records, the same duplicate rule (a re-sent range adds nothing), the same workouts and route points.
    /// Two passes of a chunk at a time, so memory stays flat whatever the body's size: the first checks the
    /// whole body is JSON and keeps its outline (the metrics' names and units), so a body that breaks off
    /// or goes wrong halfway stores nothing; the second writes in batches of `batchSize`, each in its
    /// own transaction (a first push does not hold SQLite's writer for the whole body). Should the database
    /// fail between batches, what was committed is there once, and the app's retry finds it already there.
    /// Badges are awarded afterwards, as after an export import.
    public func receiveAutoExport(path: String, user: User, language: Language, now: Date) async throws -> AutoExportResponse {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HealthError.renderFailed }
        defer { try? handle.close() }
        let metrics: HealthAutoExport.Outline.Metrics
        do {
            var outline = HealthAutoExport.Outline()
            while let chunk = try handle.read(upToCount: Self.autoExportChunkBytes), !chunk.isEmpty { try outline.feed(chunk) }
            metrics = try outline.finish()
        } catch let failure as HealthAutoExport.Failure {
            throw Self.invalidAutoExport(failure)
        }
        try handle.seek(toOffset: 0)
        var reader = HealthAutoExport.Reader(metrics)
        var payload = HealthAutoExport.Payload()
        var report = ImportReport()
        let (database, locations, userID) = (health.database, self.locations, user.id)
        func flush() async throws {
            let batch = Batch(others: payload.records, workouts: payload.workouts, skips: payload.skips)
            payload = HealthAutoExport.Payload()
            guard !batch.isEmpty else { return }
            let written = try await database.bulkTransaction { sql in
                try await Self.write(batch, userID: userID, locations: locations, on: sql)
            }
            report.merge(written.report)
        }
        do {
            while let chunk = try handle.read(upToCount: Self.autoExportChunkBytes), !chunk.isEmpty {
                try reader.feed(chunk, into: &payload)
                let held = payload.records.count + payload.skips.count + payload.workouts.reduce(payload.workouts.count) { $0 + $1.points.count }
                if held >= batchSize { try await flush() }
            }
        } catch let failure as HealthAutoExport.Failure {
            // The first pass read the same bytes; only a spool changed under us gets here.
            throw Self.invalidAutoExport(failure)
        }
        reader.finish(into: &payload)
        try await flush()
        // As after an export import: a goal the new records reach earns its badge now.
        _ = try await health.awardBadges(user: user, now: now)
        return AutoExportResponse(added: report.added, duplicates: report.duplicates, skipped: report.skipped, report: report,
                                  summary: report.lines(language))
    }
}

extension HealthService {
    /// Sleep records of a time span as the night logic reads them.
    static func sleepSample(_ record: HealthRecord) -> SleepNights.Sample? {
        guard let stage = SleepNights.Stage.of(category: record.category) else { return nil }
        // A total (Health Auto Export's summarized night, or a number typed in) rather than a stage sample.
        let isTotal = record.category.isEmpty || record.details?.contains("\"\(HealthAutoExport.aggregatedMarker)\"") == true
        return SleepNights.Sample(start: Int64(saturating: record.start.timeIntervalSince1970), end: Int64(saturating: record.end.timeIntervalSince1970),
                                  stage: stage, hours: record.value, isTotal: isTotal)
    }

    /// Bounds the sleep records read for one window: ten years of stage samples are about 100,000.
    static let sleepRecordLimit = 400_000

    /// The nights that end on the local days `firstDay...lastDay`.
    public func sleepNights(user: User, firstDay: Int, lastDay: Int) async throws -> [SleepNights.Night] {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        // A night ending on the first day starts the evening before; a day's instants lie within a day of its UTC midnight.
        let from = Int64(firstDay - 2) * 86400, to = Int64(lastDay + 2) * 86400
        let rows = try await records.list(userID: user.id, filter: .init(type: HealthDataType.sleep.rawValue,
                                                                         from: Date(timeIntervalSince1970: TimeInterval(from)),
                                                                         to: Date(timeIntervalSince1970: TimeInterval(to)), limit: Self.sleepRecordLimit))
        return SleepNights.nights(rows.compactMap(Self.sleepSample), timeZone: zone).filter { $0.day >= firstDay && $0.day <= lastDay }
    }

    /// Hours asleep in the nights (and naps) that end between `from` and `to`, for sleep goals. A night
    /// that ends in the window may begin a day before it.
    func sleepHours(user: User, endingFrom from: Int64, to: Int64) async throws -> Double {
        guard from <= to else { return 0 }
        let rows = try await records.list(userID: user.id, filter: .init(type: HealthDataType.sleep.rawValue,
                                                                         from: Date(timeIntervalSince1970: TimeInterval(from &- 86400)),
                                                                         to: Date(timeIntervalSince1970: TimeInterval(to)), limit: Self.sleepRecordLimit))
        let nights = SleepNights.nights(rows.compactMap(Self.sleepSample), timeZone: TimeZone(identifier: user.timeZone) ?? .gmt)
        return SleepNights.asleepHours(nights, endingIn: from...to)
    }

    /// The night that ended on a day, for the day page (the longest when there are several, a nap besides).
    public func sleepNight(user: User, day: Int) async throws -> SleepNights.Night? {
        try await sleepNights(user: user, firstDay: day, lastDay: day).max { $0.asleepHours + $0.inBedHours < $1.asleepHours + $1.inBedHours }
    }
}
