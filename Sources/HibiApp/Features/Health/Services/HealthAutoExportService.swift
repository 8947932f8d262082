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
    /// The most one post may carry. The app's "Batch requests" setting splits a long period into posts
    /// below this. A body is parsed whole (JSONSerialization), so the bound is also the memory bound:
    /// a 29 MB post of 300,000 heart-rate points peaked at 1.25 GB RSS (debug build, from 176 MB), a 7.8 MB one
    /// of 80,000 at 485 MB (from 177 MB). Reading the body as a stream would lift this bound; not done yet.
    public static let autoExportLimit = 8 * 1_048_576

    /// Stores one Health Auto Export post in one transaction, through the export import's writer: the same
    /// records, the same duplicate rule (a re-sent range adds nothing), the same workouts and route points.
    public func receiveAutoExport(_ data: Data, user: User, language: Language) async throws -> AutoExportResponse {
        let payload: HealthAutoExport.Payload
        do {
            payload = try HealthAutoExport.parse(data)
        } catch .notJSON {
            throw HealthError.invalidPayload(Text(en: "the body is not valid JSON.", ja: "本文が正しい JSON ではありません。"))
        } catch let .wrongShape(what) {
            throw HealthError.invalidPayload(Text(en: what, ja: what))
        }
        let batch = Batch(others: payload.records, workouts: payload.workouts, skips: payload.skips)
        let locations = self.locations
        let userID = user.id
        let written = try await health.database.transaction { sql in
            try await Self.write(batch, userID: userID, locations: locations, on: sql)
        }
        let report = written.report
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

    /// The night that ended on a day, for the day page (the longest when there are several, a nap besides).
    public func sleepNight(user: User, day: Int) async throws -> SleepNights.Night? {
        try await sleepNights(user: user, firstDay: day, lastDay: day).max { $0.asleepHours + $0.inBedHours < $1.asleepHours + $1.inBedHours }
    }
}
