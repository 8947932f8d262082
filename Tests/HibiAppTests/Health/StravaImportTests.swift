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
            // A GPX-only activity: the heart rates of its points (`<gpxtpx:hr>` 118…130) give what the CSV does not.
            #expect(try Self.details(ride)["heartRateAvg"] == "125" && Self.details(ride)["heartRateMax"] == "130")
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

    // MARK: issue 32, the localized exports, the streamed CSV and GPX heart rates

    static func fixture(_ path: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(path)) }

    @Test func aGermanAndAFrenchExportAreReadByTheirOwnHeaders() async throws {
        // Real headers (Tests/Fixtures/strava/SOURCES.md): German's 92 columns, French's first 21 and its average heart rate.
        let german = try Self.zip([("activities.csv", try Self.fixture("strava/src/activities-de.csv")),
                                   ("activities/2002.gpx", try Self.fixture("strava/garmin-tpx.gpx"))])
        let french = try Self.zip([("activities.csv", try Self.fixture("strava/src/activities-fr.csv")),
                                   ("activities/3001.tcx.gz", try Self.gzip(try Self.fixture("locations/sup-activity-1.tcx")))])
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let user = try #require(try await core.users.find(username: "aiko"))
            let de = try await Self.upload(browser, api, german)
            #expect(de.state == "done", "\(de.error ?? "")")
            #expect(Self.kind(de.report, "Workout")?.added == 2 && Self.kind(de.report, StravaExport.fileKind)?.added == 1)
            let fr = try await Self.upload(browser, api, french)
            #expect(fr.state == "done", "\(fr.error ?? "")")
            #expect(Self.kind(fr.report, "Workout")?.added == 1 && Self.kind(fr.report, "Location")?.added == 111)
            let stored = try await Self.workouts(core, user)
            #expect(stored.count == 3)

            // "Lauf", "21.07.2026, 15:09:27", "2,81" km in the summary and 2810.0 m in the detail, German headers for the rest.
            let run = try #require(stored.first { $0.details?.contains("Lauf am Nachmittag, kurz") == true })
            #expect(run.activity == "Running" && run.start == Date(timeIntervalSince1970: 1_784_646_567))
            #expect(run.durationMinutes == 1390.0 / 60 && run.distanceKm == 2.81 && run.energyKcal == 299)
            let runDetails = try Self.details(run)
            #expect(runDetails["heartRateAvg"] == "148" && runDetails["heartRateMax"] == "190" && runDetails["elevationAscentM"] == "12")
            #expect(runDetails["movingMinutes"] == "22.5")

            // "Radfahrt" with a GPX only (gpxpy's garmin_tpx.gpx, `<ns3:hr>` 113, 112, 138): the heart rate is the file's.
            let ride = try #require(stored.first { $0.details?.contains("Rennrad") == true })
            #expect(ride.activity == "Cycling" && ride.start == Date(timeIntervalSince1970: 1_511_090_587))
            #expect(abs((ride.distanceKm ?? 0) - 24.5678) < 1e-9)
            #expect(try Self.details(ride)["heartRateAvg"] == "121" && Self.details(ride)["heartRateMax"] == "138")
            #expect(try await core.features.health.service.workoutRoute(user: user, workoutID: ride.id).count == 3)

            // "Course à pied", "16 juil. 2022, 16:08:25", "112,3" and "3,0" with a decimal comma.
            let paddle = try #require(stored.first { $0.details?.contains("Paddle du soir") == true })
            #expect(paddle.activity == "Running" && paddle.start == Date(timeIntervalSince1970: 1_657_987_705))
            #expect(abs((paddle.distanceKm ?? 0) - 2.6134) < 1e-9 && paddle.durationMinutes == 1808.0 / 60)
            let paddleDetails = try Self.details(paddle)
            #expect(paddleDetails["heartRateAvg"] == "112" && paddleDetails["heartRateMax"] == "131" && paddleDetails["elevationAscentM"] == "3")

            // Both again: nothing new.
            let again = try await Self.upload(browser, api, german)
            #expect(Self.kind(again.report, "Workout")?.added == 0 && Self.kind(again.report, "Workout")?.duplicates == 2)
            #expect(try await Self.workouts(core, user).count == 3)
        }
    }

    @Test func aLargeCSVIsReadWhileItsActivitiesFilesAre() async throws {
        // activities.csv is inflated on its own thread while each row's file is read: 2 MB of CSV (long descriptions)
        // whose 150 rows all name one gzipped TCX. Every file must read whole (a shared file handle would mix them up).
        let tcx = try Self.gzip(try Self.fixture("locations/sup-activity-1.tcx"))
        var csv = "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Filename\n"
        for i in 0..<150 {
            let hour = i % 24, day = 1 + i / 24
            csv += "\(5000 + i),\"Jan \(day), 2023, \((hour + 11) % 12 + 1):00:00 \(hour < 12 ? "AM" : "PM")\",Paddle \(i),Stand Up Paddling,"
            csv += "\"\(String(repeating: "a, \"\"b\"\" ", count: 1400))\",600,activities/1.tcx.gz\n"
        }
        let zip = try Self.zip([("activities.csv", Data(csv.utf8)), ("activities/1.tcx.gz", tcx)])
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let job = try await Self.upload(browser, api, zip)
            #expect(job.state == "done", "\(job.error ?? "")")
            #expect(Self.kind(job.report, "Workout")?.added == 150)
            #expect(Self.kind(job.report, StravaExport.fileKind)?.added == 150 && Self.kind(job.report, StravaExport.fileKind)?.skipped == [])
        }
    }

    @Test func aResumedImportStartsAfterItsCheckpointRow() async throws {
        // A job whose checkpoint says four activities are in (as an interrupted run leaves it): the streamed CSV is
        // read from the top and the rows after the fourth are the ones written (1005, 1006 and 1007 make workouts,
        // 1008 has no date).
        let f = try await AppleHealthImportTests().fixture()
        defer { Task { await f.core.database.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strava-\(UUID().uuidString).zip").path
        try Self.export().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let job = try await f.importer.prepare(path: path, fileName: "export_1234.zip", user: f.user, uploadPath: nil, now: Date())
        try await ImportJobStore.advance(job.id, checkpoint: 4, bytesDone: 0, inserted: 0, duplicates: 0, on: f.core.database.sql)
        let resumed = try #require(try await f.health.jobs.find(id: job.id, userID: f.user.id))
        let result = try await f.importer.run(job: resumed, path: path, user: f.user)
        #expect(result.job.state == .done)
        #expect(Self.kind(result.job.report, "Workout")?.added == 3)
        #expect(Self.kind(result.job.report, "Workout")?.skipped == [ImportReport.Skip(reason: .unparseableDate, count: 1, firstAt: "row 9 (1008)")])
        let stored = try await Self.workouts(f.core, f.user)
        #expect(Set(stored.compactMap { try? Self.details($0)["id"] }) == ["1005", "1006", "1007"])
    }

    @Test func aHeaderInALanguageNotConfirmedIsRefusedNamingTheColumn() async throws {
        // Spanish is not among the languages read (no real export's header was found): refused, saying which are.
        let csv = "ID de la actividad,Fecha de la actividad,Nombre de la actividad,Tipo de actividad\n1,\"7 oct 2020, 14:43:11\",Carrera,Carrera\n"
        let zip = try Self.zip([("activities.csv", Data(csv.utf8))])
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let user = try #require(try await core.users.find(username: "aiko"))
            let job = try await Self.upload(browser, api, zip)
            #expect(job.state == "failed")
            #expect(job.error?.contains("activities.csv has no \"Activity ID\" column (Hibi reads Strava's export in English, German and French") == true)
            #expect(try await Self.workouts(core, user).isEmpty)
        }
        // A German header without its date column names it in German.
        #expect(throws: StravaExport.HeaderProblem.missingColumn("Aktivitätsdatum")) { try StravaExport.columns(["Aktivitäts-ID", "Aktivitätsart"]) }
    }

    @Test func theCSVIsReadTheSameWhereverTheBuffersSplitIt() throws {
        let text = "\u{FEFF}Activity ID,Activity Name,Filename\r\n1,\"Morning, \"\"easy\"\"\nrun\",activities/1.fit.gz\r\n\n2,Ride,\r\n3,\"\",x"
        let expected = [["\u{FEFF}Activity ID", "Activity Name", "Filename"], ["1", "Morning, \"easy\"\nrun", "activities/1.fit.gz"], ["2", "Ride", ""], ["3", "", "x"]]
        let bytes = Array(text.utf8)
        for size in [1, 2, 3, 7, 64, bytes.count] {
            var reader = CSVRowReader()
            var rows: [[String]] = []
            var start = 0
            while start < bytes.count {
                let end = min(start + size, bytes.count)
                try bytes[start..<end].withUnsafeBufferPointer { try reader.feed($0) { rows.append($0) } }
                start = end
            }
            try reader.finish { rows.append($0) }
            #expect(rows == expected, "buffers of \(size) bytes")
        }
        // A quote inside an unquoted field, or a quoted field never closed: refused with the record's number.
        func read(_ text: String) throws {
            var reader = CSVRowReader()
            try Array(text.utf8).withUnsafeBufferPointer { try reader.feed($0) { _ in } }
            try reader.finish { _ in }
        }
        #expect(throws: CSVRowReader.Failure.misplacedQuote(record: 2)) { try read("a,b\n1,x\"y\n") }
        #expect(throws: CSVRowReader.Failure.misplacedQuote(record: 2)) { try read("a,b\n1,\"open\n") }
        #expect(throws: CSVRowReader.Failure.misplacedQuote(record: 1)) { try read("\"a\"b,c\n") }
        // One field past the limit: refused, not held.
        #expect(throws: CSVRowReader.Failure.fieldTooLong(record: 1)) { try read(String(repeating: "x", count: CSVRowReader.maxFieldBytes + 1)) }
    }

    @Test func numbersAndDatesAreReadInTheExportsLanguage() throws {
        let german = try #require(StravaExport.languages.first { $0.code == "de" })
        #expect(StravaExport.normalized("1.234,5", decimalComma: true) == "1234.5" && StravaExport.normalized("2810.0", decimalComma: true) == "2810.0")
        #expect(StravaExport.normalized("1,234.5", decimalComma: false) == "1234.5")
        #expect(StravaExport.parseDate("21.07.2026, 15:09:27", language: german) == 1_784_646_567)
        // A later "Distanz" that repeats the summary ("2,81" twice, as one German export was seen) is not read as 2.81 metres.
        let columns = try StravaExport.columns(["Aktivitäts-ID", "Aktivitätsdatum", "Aktivitätsart", "Distanz", "Distanz"])
        #expect(StravaExport.activity(["1", "21.07.2026, 15:09:27", "Lauf", "2,81", "2,81"], columns: columns)?.distanceKm == 2.81)
    }

    @Test func heartRatesInGarminsGPXExtensionAreRead() throws {
        // gpxpy's garmin_tpx.gpx: three points with <ns3:hr> 113, 112 and 138.
        let track = try WorkoutRouteGPX.read(MemoryByteStream(Array(try Self.fixture("strava/garmin-tpx.gpx"))))
        #expect(track.points.count == 3 && track.heartRates == [113, 112, 138])
        let summary = StravaExport.summary(times: track.points.map(\.t), altitudes: [], heartRates: track.heartRates)
        #expect(summary.averageHeartRate == 121 && summary.maxHeartRate == 138)
    }
}
