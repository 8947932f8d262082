import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// Strava's bulk export ZIP through the health import (issue 32, item 3): one workout per activity with the
/// CSV's numbers (the file's where the CSV is silent), each activity's points as its route and in the location
/// history, every activity file reported, a re-import adding nothing, damaged or hostile members skipped.
@Suite(.serialized) struct StravaImportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func export() throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent("strava/strava-export.zip")) }

    static func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? { report.kinds.first { $0.kind == name } }

    static func upload(_ browser: Browser, _ api: APIClient, _ zip: Data) async throws -> ImportJobResponse {
        try await HealthReportAPITests.upload(browser, api, zip, name: "export_1234.zip")
    }

    static func workouts(_ core: AppCore, _ user: User) async throws -> [HealthWorkout] {
        try await core.features.health.service.workouts(user: user, in: DateInterval(start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 2_000_000_000)))
    }

    @Test func theExportBecomesWorkoutsWithRoutesAndASecondImportAddsNothing() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let user = try #require(try await core.users.find(username: "aiko"))
            let job = try await Self.upload(browser, api, try Self.export())
            #expect(job.state == "done", "\(job.error ?? "")")
            // Seven activities with a date: seven workouts, whatever became of their files; the row without a date is said.
            #expect(Self.kind(job.report, "Workout")?.added == 7)
            #expect(Self.kind(job.report, "Workout")?.skipped == [ImportReport.Skip(reason: .unparseableDate, count: 1, firstAt: "row 9 (1008)")])
            let files = try #require(Self.kind(job.report, StravaExport.fileKind))
            #expect(files.added == 3)
            #expect(files.skipped == [ImportReport.Skip(reason: .missingFile, count: 1, firstAt: "activities/1005.fit.gz"),
                                      ImportReport.Skip(reason: .unreadable, count: 1, firstAt: "activities/1006.tcx.gz"),
                                      ImportReport.Skip(reason: .noPoints, count: 1, firstAt: "activities/1007.tcx.gz")])
            // 17 FIT records (python-fitparse's CSV of the walk), 111 TCX trackpoints, 6 GPX points.
            #expect(Self.kind(job.report, "Location")?.added == 134)
            #expect(Self.kind(job.report, AppleHealthImporter.locationHistoryKind)?.added == 134)
            #expect(try await core.features.visits.locations.pointCount(userID: user.id) == 134)
            #expect(job.summary.contains("Strava activity files (routes): 3 added, 1 skipped: file named in the export but not in the upload (first at activities/1005.fit.gz), 1 skipped: file that cannot be read (first at activities/1006.tcx.gz), 1 skipped: file without a position (the workout is kept without a route) (first at activities/1007.tcx.gz)"))

            let stored = try await Self.workouts(core, user)
            #expect(stored.count == 7)
            let walk = try #require(stored.first { $0.start == Date(timeIntervalSince1970: 1_497_191_571) })
            #expect(walk.activity == "Walking" && walk.device == "Strava")
            #expect(walk.durationMinutes == 46.0 / 60)
            #expect(walk.distanceKm == 0.0925) // the metres column, not the summary's rounded km
            // No heart rate in the CSV: the FIT file's records give it (the first record's is 71).
            let walkDetails = try Self.details(walk)
            #expect(walkDetails["heartRateAvg"] != nil && walkDetails["heartRateMax"] != nil)
            let paddle = try #require(stored.first { $0.activity == "PaddleSports" })
            let paddleDetails = try Self.details(paddle)
            #expect(paddleDetails["heartRateAvg"] == "112" && paddleDetails["heartRateMax"] == "131" && paddleDetails["elevationAscentM"] == "3")
            #expect(paddle.energyKcal == 251 && paddle.details?.contains("Evening paddle") == true)
            // What the day page shows of it.
            #expect(HealthDayViews.workoutSummary(paddle, units: UnitPreferences(), language: .en) == "30 min · 2.6 km · 251 kcal · ↑ 3 m · 112 bpm average, 131 max")
            #expect(HealthDayViews.workoutSummary(paddle, units: UnitPreferences(distance: .mi), language: .ja).contains("獲得標高 10 ft · 平均心拍 112 bpm(最大 131)"))
            // The GPX's altitudes climb 3 + 5 + 4 m (a 0.4 m wobble is noise): the CSV has no gain, the file gives it.
            let ride = try #require(stored.first { $0.activity == "Cycling" })
            #expect(try Self.details(ride)["elevationAscentM"] == "12")
            let route = try await core.features.health.service.workoutRoute(user: user, workoutID: ride.id)
            #expect(route.count == 6 && route.first?.ele == 100 && route.last?.ele == 110.4)
            #expect(stored.contains { $0.activity == "TraditionalStrengthTraining" && $0.energyKcal == 180 })

            // The same export again: nothing new, everything said to be there already.
            let again = try await Self.upload(browser, api, try Self.export())
            #expect(again.state == "done")
            #expect(Self.kind(again.report, "Workout")?.added == 0 && Self.kind(again.report, "Workout")?.duplicates == 7)
            #expect(Self.kind(again.report, "Location")?.added == 0 && Self.kind(again.report, "Location")?.duplicates == 134)
            #expect(Self.kind(again.report, AppleHealthImporter.locationHistoryKind)?.added == 0)
            #expect(try await Self.workouts(core, user).count == 7)
            #expect(try await core.features.visits.locations.pointCount(userID: user.id) == 134)

            // Japanese, as the other imports report.
            browser.acceptLanguage = "ja"
            let ja = try await api.call(.get, "/api/v1/health/imports/\(job.id)")
            let answer = try APIClient.decode(ImportJobResponse.self, ja)
            #expect(answer.summary.contains { $0.hasPrefix("Strava のアクティビティのファイル(経路): 3 件追加") && $0.contains("読み込めないファイル 1 件をスキップ") })
        }
    }

    static func details(_ workout: HealthWorkout) throws -> [String: String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data((workout.details ?? "{}").utf8)) as? [String: Any])
        return object.compactMapValues { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue }
    }

    /// A gzip file around `payload`, with the trailer's size field set to `claimedSize` (a lie, for the hostile case).
    static func gzip(_ payload: Data, claimedSize: UInt32? = nil) throws -> Data {
        var deflated = Data()
        let deflater = try Zlib.Deflater(level: 6)
        try payload.withUnsafeBytes { bytes in
            try deflater.process(bytes, finish: true) { deflated.append(contentsOf: $0) }
        }
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        out.append(deflated)
        let crc = CRC32.checksum(payload)
        let size = claimedSize ?? UInt32(truncatingIfNeeded: payload.count)
        for value in [crc, size] { out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }) }
        return out
    }

    static func zip(_ members: [(String, Data)]) throws -> Data {
        var writer = StoredZipWriter()
        var out = Data()
        for (name, data) in members { for part in try writer.add(name: name, data: data, modified: Date(timeIntervalSince1970: 1_700_000_000)) { out.append(part) } }
        out.append(writer.finish())
        return out
    }

    static let header = "Activity ID,Activity Date,Activity Name,Activity Type,Elapsed Time,Distance,Filename,Elapsed Time,Moving Time,Distance\n"

    @Test func aHostileMemberIsSkippedAndTheRestImports() async throws {
        // 64 MB of zeros that say, in the gzip trailer, they are 4 GB; then a FIT file that is not one.
        let bomb = try Self.gzip(Data(count: 64 << 20), claimedSize: 0xFFFF_FFFF)
        let fit = try Data(contentsOf: Self.fixtures.appendingPathComponent("locations/garmin-fenix-5-walk.fit"))
        let csv = Self.header
            + "1,\"Jan 5, 2024, 7:00:00 AM\",Bomb,Run,600,1.0,activities/1.fit.gz,600.0,600.0,1000.0\n"
            + "2,\"Jun 11, 2017, 2:32:51 PM\",Walk,Walk,46,0.09,activities/2.fit.gz,46.0,46.0,92.5\n"
            + "3,\"Jan 6, 2024, 7:00:00 AM\",Rock,Run,600,1.0,activities/3.kml,600.0,600.0,1000.0\n"
        let zip = try Self.zip([("activities.csv", Data(csv.utf8)), ("activities/1.fit.gz", bomb), ("activities/2.fit.gz", try Self.gzip(fit)),
                                ("activities/3.kml", Data("<kml/>".utf8))])
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let job = try await Self.upload(browser, api, zip)
            #expect(job.state == "done", "\(job.error ?? "")")
            let files = try #require(Self.kind(job.report, StravaExport.fileKind))
            #expect(files.added == 1)
            #expect(files.skipped == [ImportReport.Skip(reason: .unreadable, count: 1, firstAt: "activities/1.fit.gz"),
                                      ImportReport.Skip(reason: .unsupported, count: 1, firstAt: "activities/3.kml")])
            #expect(Self.kind(job.report, "Workout")?.added == 3)
            #expect(Self.kind(job.report, "Location")?.added == 17)
        }
    }

    @Test func anExportWithoutANeededColumnIsRefusedSayingWhich() async throws {
        let zip = try Self.zip([("activities.csv", Data("Activity ID,Activity Name,Activity Type\n1,Run,Run\n".utf8))])
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let job = try await Self.upload(browser, api, zip)
            #expect(job.state == "failed")
            #expect(job.error?.contains("activities.csv has no \"Activity Date\" column") == true)
            // Posted to the location import, a Strava export is refused with a pointer to where it goes.
            let misplaced = try await api.call(.post, "/api/v1/locations/import", body: try Self.export(), contentType: "application/zip")
            #expect(misplaced.status == .unprocessableContent && misplaced.body.contains("import a Strava export"))
        }
    }

    @Test func gunzipStopsAtItsLimitWhateverTheFileClaims() throws {
        let bomb = try Self.gzip(Data(count: 8 << 20), claimedSize: 0xFFFF_FFFF)
        let stream = try GunzipStream(MemoryByteStream(Array(bomb)), limit: 1 << 20)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        #expect(throws: GunzipStream.Failure.self) {
            while true {
                let n = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0.baseAddress!, count: $0.count) }
                if n == 0 { break }
                total += n
            }
        }
        #expect(total <= 1 << 20)
        // A whole small file reads back as it was.
        let text = Data("<TrainingCenterDatabase/>".utf8)
        let small = try GunzipStream(MemoryByteStream(Array(try Self.gzip(text))), limit: 1 << 20)
        let n = try buffer.withUnsafeMutableBufferPointer { try small.read(into: $0.baseAddress!, count: $0.count) }
        #expect(Data(buffer[0..<n]) == text)
    }

    @Test func columnsAreFoundByNameAndTheMetresColumnWins() throws {
        let columns = try StravaExport.columns(["Activity Type", "Activity ID", "Distance", "Activity Date", "Distance", "Elapsed Time"])
        let row = StravaExport.activity(["Ride", "9", "18.96", "Oct 7, 2020, 2:43:11 PM", "18962.8", "5601"], columns: columns)
        #expect(abs((row?.distanceKm ?? 0) - 18.9628) < 1e-9 && row?.start == 1_602_081_791 && row?.activity == "Cycling" && row?.elapsedSeconds == 5601)
        #expect(throws: StravaExport.HeaderProblem.missingColumn("Activity Type")) { try StravaExport.columns(["Activity ID", "Activity Date"]) }
        #expect(StravaExport.elevationGain([100, 103, 101, 106, 110, 110.4]) == 12)
        #expect(StravaExport.elevationGain([100, 101, 100, 101, 100, 101]) == 0)
    }
}
