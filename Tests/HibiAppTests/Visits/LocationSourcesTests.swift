import Foundation
import Testing
@testable import HibiApp

/// Trackers that feed the location history by themselves (issue 32): OwnTracks Recorder files, TCX
/// and FIT activities, each told by its content through the one location import, with what was
/// added, already there and skipped (and why), and nothing added by a second import.
@Suite(.serialized) struct LocationSourcesTests {
    static func fixture(_ name: String) throws -> Data { try LocationAPITests.fixture(name) }
    static func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? { report.kinds.first { $0.kind == name } }

    static func post(_ api: APIClient, _ body: Data) async throws -> (status: Int, result: LocationImportResponse?, text: String) {
        let page = try await api.call(.post, "/api/v1/locations/import", body: body, contentType: "application/octet-stream")
        let result = page.status == .created ? try APIClient.decode(LocationImportResponse.self, page) : nil
        return (page.status.code, result, page.body)
    }

    // MARK: through the router

    @Test func anOwnTracksRecorderFileKeepsLocationsAndSaysWhyLastWillsAreSkipped() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let file = try Self.fixture("owntracks-demo-iphone.rec")
            let first = try #require(try await Self.post(api, file).result)
            #expect(first.shape == "owntracks-rec")
            // 25 lines: 23 locations and 2 "lwt" (the broker's last will for the phone), which carry no position.
            #expect(first.pointsStored == 23)
            #expect(Self.kind(first.report, "location")?.added == 23)
            #expect(Self.kind(first.report, "lwt")?.skipped == [ImportReport.Skip(reason: .unsupported, count: 2, firstAt: "line 3")])
            #expect(first.summary.contains { $0.contains("23 points stored") })

            let again = try #require(try await Self.post(api, file).result)
            #expect(again.pointsStored == 0 && again.pointDuplicates == 23)

            // The same file with its tabs turned into spaces (as an editor or a copy can leave it) is the same points.
            let spaced = Data(String(decoding: file, as: UTF8.self).replacingOccurrences(of: "\t", with: " ").utf8)
            let third = try #require(try await Self.post(api, spaced).result)
            #expect(third.shape == "owntracks-rec" && third.pointsStored == 0 && third.pointDuplicates == 23)
        }
    }

    @Test func aTCXActivityStoresItsTrackpointsAndAPoolSwimWithoutPositionsSaysSo() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let sup = try #require(try await Self.post(api, try Self.fixture("sup-activity-1.tcx")).result)
            #expect(sup.shape == "tcx")
            #expect(sup.pointsStored == 111)
            #expect(Self.kind(sup.report, "Trackpoint")?.added == 111)
            let again = try #require(try await Self.post(api, try Self.fixture("sup-activity-1.tcx")).result)
            #expect(again.pointsStored == 0 && again.pointDuplicates == 111)

            // The activity is also a workout in Health, once however often the file comes, and the report says which.
            #expect(Self.kind(sup.report, "Workout")?.added == 1 && Self.kind(sup.report, "Location")?.added == 111)
            #expect(sup.summary.contains("Workouts: 1 added"))
            #expect(Self.kind(again.report, "Workout")?.added == 0 && Self.kind(again.report, "Workout")?.duplicates == 1)
            #expect(again.summary.contains("Workouts: 0 added, 1 already there"))
            let user = try #require(try await core.users.find(username: "aiko"))
            let paddle = try #require(try await StravaImportTests.workouts(core, user).first)
            #expect(try await StravaImportTests.workouts(core, user).count == 1)
            // Sport="Other"; 16:08:25 to 16:26:57; laps of 1000.0 and 157.51 m, 80 and 12 kcal; heart rates as Python's
            // ElementTree reads the file (111 values averaging 88.1, the highest 106).
            #expect(paddle.activity == "Other" && paddle.device == "TCX")
            #expect(paddle.start == Date(timeIntervalSince1970: 1_657_987_705) && paddle.durationMinutes == 1112.0 / 60)
            #expect(abs((paddle.distanceKm ?? 0) - 1.15751) < 1e-9 && paddle.energyKcal == 92)
            let details = try StravaImportTests.details(paddle)
            #expect(details["heartRateAvg"] == "88" && details["heartRateMax"] == "106")
            #expect(try await core.features.health.service.workoutRoute(user: user, workoutID: paddle.id).count == 111)

            // A pool swim has times and distances but no position: nothing stored, every trackpoint said.
            let pool = try #require(try await Self.post(api, try Self.fixture("pool-swim-activity-1.tcx")).result)
            #expect(pool.pointsStored == 0)
            #expect(Self.kind(pool.report, "Trackpoint")?.skipped == [ImportReport.Skip(reason: .missingValue, count: 32, firstAt: "line 20")])
            // Still a workout (25 min 31 s, its lap's 1500 m and 329 kcal), without a route.
            #expect(Self.kind(pool.report, "Workout")?.added == 1)
            let swim = try #require(try await StravaImportTests.workouts(core, user).first { $0.start == Date(timeIntervalSince1970: 1_661_531_713) })
            #expect(swim.durationMinutes == 1531.0 / 60 && swim.distanceKm == 1.5 && swim.energyKcal == 329)
            #expect(try await core.features.health.service.workoutRoute(user: user, workoutID: swim.id).isEmpty)
        }
    }

    @Test func aFITActivityStoresItsRecordsAndATruncatedOneIsRefusedWithItsPlace() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let walk = try #require(try await Self.post(api, try Self.fixture("garmin-fenix-5-walk.fit")).result)
            #expect(walk.shape == "fit")
            #expect(walk.pointsStored == 17)
            #expect(Self.kind(walk.report, "record")?.added == 17)
            let again = try #require(try await Self.post(api, try Self.fixture("garmin-fenix-5-walk.fit")).result)
            #expect(again.pointsStored == 0 && again.pointDuplicates == 17)
            #expect(Self.kind(walk.report, "Workout")?.added == 1 && Self.kind(again.report, "Workout")?.duplicates == 1)
            let user = try #require(try await core.users.find(username: "aiko"))
            let workouts = try await StravaImportTests.workouts(core, user)
            #expect(workouts.count == 1)
            // python-fitparse's records CSV: 07:32:51 to 07:33:37 PDT, heart rates 71…82 averaging 75.4, 67.85 m by the last record.
            let stroll = try #require(workouts.first)
            #expect(stroll.activity == "Walking" && stroll.device == "FIT")
            #expect(stroll.start == Date(timeIntervalSince1970: 1_497_191_571) && stroll.durationMinutes == 46.0 / 60)
            #expect((stroll.distanceKm ?? 0) >= 0.06785 && (stroll.distanceKm ?? 0) < 0.2)
            let details = try StravaImportTests.details(stroll)
            #expect(details["heartRateAvg"] == "75" && details["heartRateMax"] == "82")
            #expect(try await core.features.health.service.workoutRoute(user: user, workoutID: stroll.id).count == 17)

            let cut = try await Self.post(api, try Self.fixture("activity-unexpected-eof.fit"))
            #expect(cut.status == 422)
            #expect(cut.text.contains("truncated"))
            // Anything else is named among the formats the import reads.
            let other = try await Self.post(api, Data("2024 was a good year\n".utf8))
            #expect(other.status == 422)
            #expect(other.text.contains("OwnTracks Recorder"))
        }
    }

    @Test func aRouteFileWhoseClockNeverRanMakesNoWorkoutAndSaysWhy() async throws {
        // Two positions at one second: the points are taken back out (a clock never set), and no workout is made of it.
        let tcx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>
        <Activity Sport="Biking"><Id>2024-01-01T00:00:00Z</Id><Lap StartTime="2024-01-01T00:00:00Z"><Track>
        <Trackpoint><Time>2024-01-01T00:00:00Z</Time><Position><LatitudeDegrees>35.0</LatitudeDegrees><LongitudeDegrees>139.0</LongitudeDegrees></Position></Trackpoint>
        <Trackpoint><Time>2024-01-01T00:00:00Z</Time><Position><LatitudeDegrees>35.001</LatitudeDegrees><LongitudeDegrees>139.001</LongitudeDegrees></Position></Trackpoint>
        </Track></Lap></Activity></Activities></TrainingCenterDatabase>
        """
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let result = try #require(try await Self.post(api, Data(tcx.utf8)).result)
            #expect(result.shape == "tcx")
            #expect(Self.kind(result.report, "Workout")?.added == 0)
            #expect(Self.kind(result.report, "Workout")?.skipped == [ImportReport.Skip(reason: .sameSecond, count: 1, firstAt: "TCX")])
            #expect(result.summary.contains { $0.hasPrefix("Workouts: 0 added, 1 skipped: suspicious: every point at the same second") })
            let user = try #require(try await core.users.find(username: "aiko"))
            #expect(try await StravaImportTests.workouts(core, user).isEmpty)
        }
    }

    @Test func aRouteFilesSportAndSpanMakeTheWorkoutOrTheReasonItIsNone() {
        func file(_ sport: String?, _ start: Int64, _ end: Int64) -> RecordedWorkout {
            RecordedWorkout(source: "TCX", sport: sport, start: start, end: end, distanceMeters: nil, energyKcal: nil, heartRates: [], altitudes: [], route: [])
        }
        guard case let .workout(ride) = RouteFileWorkout.workout(file("Biking", 1_700_000_000, 1_700_003_600)) else {
            Issue.record("a one-hour ride is a workout")
            return
        }
        #expect(ride.activity == "Cycling" && ride.durationMinutes == 60 && ride.record.device == "TCX")
        #expect(RouteFileWorkout.activity("stand_up_paddleboarding") == "PaddleSports" && RouteFileWorkout.activity("parachuting") == "Other")
        #expect(RouteFileWorkout.workout(file("Running", 1_700_000_000, 1_700_000_000 + 31 * 86400)) == .skipped(.implausibleValue))
        #expect(RouteFileWorkout.workout(file("Running", 1_700_000_000, 1_699_999_000)) == .skipped(.outOfRange))
        #expect(RouteFileWorkout.workout(file(nil, 9_000_000_000, 9_000_000_600)) == .skipped(.outOfRange))
    }

    @Test func theVisitsImportSaysWhichGeoJSONItReadAndSendsAPositionLogToTheHistory() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            // GPSLogger's log: 60 positions, 25 minutes at a café then away. Points, not 60 visits.
            let page = try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("gpslogger-log.geojson"), contentType: "application/geo+json")
            #expect(page.status == .created)
            let log = try APIClient.decode(ImportResponse.self, page)
            #expect(log.dialect == "gpslogger")
            #expect(log.imported == 0 && log.trackPointsStored == 60 && log.staysDetected == 1)
            #expect(log.summary?.first?.contains("GPSLogger") == true)
            #expect(try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits")).isEmpty)
            let again = try APIClient.decode(ImportResponse.self, try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("gpslogger-log.geojson"),
                                                                                    contentType: "application/geo+json"))
            #expect(again.trackPointsStored == 0 && again.staysDetected == 0)
            #expect(Self.kind(try #require(again.report), "feature")?.duplicates == 60)

            // Hibi's own GeoJSON is still visits, and says so.
            let own = try APIClient.decode(ImportResponse.self, try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("waypoints.geojson"),
                                                                                  contentType: "application/geo+json"))
            #expect(own.dialect == "hibi-geojson" && own.imported > 0)

            // Saved Places have no visit time: kept as saved places (SavedPlacesTests), not refused as visits without one.
            let saved = try APIClient.decode(ImportResponse.self, try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("google-saved-places.json"),
                                                                                    contentType: "application/json"))
            #expect(saved.dialect == "google-saved-places" && saved.savedPlaces == 1 && saved.imported == 0)
        }
    }

    // MARK: the FIT reader

    static func records(_ data: Data) throws -> [FITReader.Record] {
        let reader = FITReader(stream: MemoryByteStream(Array(data)))
        var all: [FITReader.Record] = []
        while try reader.next(maxRecords: 7) { all += reader.takeRecords() }
        return all + reader.takeRecords()
    }

    @Test func theFITReaderGivesTheRecordsFitparseReads() throws {
        // python-fitparse's garmin-fenix-5-walk-records.csv: 17 records, the first at Sun Jun 11 07:32:51 PDT 2017,
        // position 456107865, -1463072519 semicircles, heart rate 71; the last 456100917, -1463075331 at 07:33:37.
        let records = try Self.records(try Self.fixture("garmin-fenix-5-walk.fit"))
        #expect(records.count == 17)
        let first = try #require(records.first)
        let degrees = 180.0 / 2_147_483_648.0
        #expect(first.time == 1_497_191_571)
        #expect(first.latitude == 456_107_865 * degrees && first.longitude == -1_463_072_519 * degrees)
        #expect(first.heartRate == 71)
        #expect(records.last?.time == 1_497_191_617)
        #expect(records.last?.latitude == 456_100_917 * degrees)
        // Developer fields are skipped, not misread as the next message.
        #expect(throws: Never.self) { _ = try Self.records(try Self.fixture("developer-data.fit")) }
        #expect(throws: FITReader.Failure.notFIT) { _ = try Self.records(Data("not a fit file at all".utf8)) }
    }

    /// Truncated and mutated real files: the reader answers records or a `Failure`, never a trap, and a
    /// run ends (every loop consumes bytes).
    @Test func theFITReaderNeverTrapsOnCutOrMutatedFiles() throws {
        let files = [try Self.fixture("garmin-fenix-5-walk.fit"), try Self.fixture("developer-data.fit"), try Self.fixture("activity-unexpected-eof.fit")]
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        var runs = 0
        for file in files {
            let bytes = Array(file)
            for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)) {
                runs += 1
                do { _ = try Self.records(Data(bytes[0..<length])) } catch is FITReader.Failure { failures += 1 }
            }
            for _ in 0..<400 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                runs += 1
                do { _ = try Self.records(Data(mutated)) } catch is FITReader.Failure { failures += 1 }
            }
        }
        // Most cut files end mid-message; the test's point is that every run returned.
        #expect(runs > 1000 && failures > 0)
    }

    // MARK: the OwnTracks reader

    @Test func aRecorderLineIsReadWhateverItsBlanksAndOtherTypesAreNamed() throws {
        var reader = OwnTracksRecorder()
        let text = "2024-05-01T06:00:00Z\t*                 \t{\"_type\":\"location\",\"lat\":35.1,\"lon\":139.2,\"tst\":1714543200,\"acc\":8}\n"
            + "2024-05-01T06:00:10Z * {\"_type\":\"location\",\"lat\":35.1,\"lon\":139.2}\n"
            + "2024-05-01T06:00:20Z\t*\t{\"_type\":\"transition\",\"event\":\"leave\"}\n"
            + "2024-05-01T06:00:30Z\t*\t{\"_type\":\"made-up\"}\n"
            + "2024-05-01T06:00:40Z\t*\t{not json\n"
            + "2024-05-01T06:00:50Z\t*\t{\"_type\":\"location\",\"lat\":95,\"lon\":139.2,\"tst\":1714543250}"
        try Array(text.utf8).withUnsafeBufferPointer { try reader.feed($0) }
        try reader.finish()
        // The second line has no tst: the line's own time stands in.
        #expect(reader.points == [LocationPoint(time: 1_714_543_200, latitude: 35.1, longitude: 139.2, accuracy: 8),
                                  LocationPoint(time: 1_714_543_210, latitude: 35.1, longitude: 139.2)])
        #expect(Self.kind(reader.report, "transition")?.skipped.first?.reason == .unsupported)
        #expect(Self.kind(reader.report, "other")?.skipped.first?.reason == .unsupported)
        #expect(Self.kind(reader.report, "location")?.skipped.map(\.reason) == [.missingValue, .outOfRange])
        #expect(OwnTracksRecorder.looksLike(Array(text.utf8)))
        #expect(!OwnTracksRecorder.looksLike(Array("time,latitude,longitude\n".utf8)))
    }
}
