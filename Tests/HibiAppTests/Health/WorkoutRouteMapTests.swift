import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Issue 17, items 2 and 3: workout routes as tracks on the visits map (simplified, bounded, the owner's
/// only) and as raw points of the location history (deduplicated, marked with their workout, seen by
/// stay detection), while the day page still draws each route once.
@Suite struct WorkoutTrackLogicTests {
    func point(_ t: Int64, _ lat: Double, _ lon: Double) -> WorkoutRoutePoint { WorkoutRoutePoint(t: t, lat: lat, lon: lon, ele: nil) }

    @Test func aStraightLineKeepsOnlyItsEnds() {
        let line = (0..<1000).map { point(Int64($0), 35 + Double($0) * 1e-5, 139 + Double($0) * 1e-5) }
        #expect(WorkoutTracks.simplify(line) == [line[0], line[999]])
    }

    @Test func cornersAreKeptAndJitterUnderTheToleranceIsNot() {
        // An L: 0.001° north (about 111 m), then 0.001° east; the middle points wobble by well under a metre.
        var route: [WorkoutRoutePoint] = []
        for i in 0...10 { route.append(point(Int64(i), 35 + Double(i) * 1e-4, 139 + (i % 2 == 0 ? 0 : 2e-6))) }
        for i in 1...10 { route.append(point(Int64(10 + i), 35.001, 139 + Double(i) * 1e-4)) }
        let simple = WorkoutTracks.simplify(route)
        #expect(simple.count == 3)
        #expect(simple[1] == route[10])
    }

    @Test func aLongWindingRouteIsCappedWithBothEndsKept() {
        // A spiral of 20,000 points: every point is a corner, so only the cap bounds it.
        let route = (0..<20_000).map { i -> WorkoutRoutePoint in
            let angle = Double(i) / 50
            return point(Int64(i), 35 + 0.01 * sin(angle) * Double(i) / 20_000, 139 + 0.01 * cos(angle) * Double(i) / 20_000)
        }
        let simple = WorkoutTracks.simplify(route)
        #expect(simple.count == WorkoutTracks.maxPointsPerRoute)
        #expect(simple.first == route.first && simple.last == route.last)
        #expect(zip(simple, simple.dropFirst()).allSatisfy { $0.t < $1.t })
    }

    @Test func pointsOffTheGlobeAreLeftOutAndASinglePointIsNoLine() {
        let route = [point(1, .nan, 139), point(2, 35, 139), point(3, 95, 139), point(4, 35.001, 139.001)]
        #expect(WorkoutTracks.simplify(route).map(\.t) == [2, 4])
        let workout = HealthWorkout(id: "w1", activity: "Running", start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60),
                                    durationMinutes: .nan, distanceKm: .infinity, energyKcal: 12, device: "", details: nil)
        let collection = WorkoutTracks.collection([(workout, route), (workout, [point(1, 35, 139)])], truncated: false)
        #expect(collection.features.count == 1)
        #expect(collection.features[0].geometry.coordinates == [[139, 35], [139.001, 35.001]])
        #expect(collection.features[0].properties.points == 4 && collection.features[0].properties.drawnPoints == 2)
        // JSON cannot carry NaN or infinity: such numbers are left out, never a failed answer.
        #expect(collection.features[0].properties.durationMinutes == nil && collection.features[0].properties.distanceKm == nil)
        #expect((try? JSONCoding.encoder.encode(collection)) != nil)
    }

    @Test func detectionWindowsAreWidenedMergedAndNeverWrap() {
        #expect(LocationService.windows([100...200, 5000...6000, 250...300], margin: 100) == [0...400, 4900...6100])
        #expect(LocationService.windows([(Int64.max - 5)...Int64.max, Int64.min...(Int64.min + 1)], margin: 100)
                == [Int64.min...(Int64.min + 101), (Int64.max - 105)...Int64.max])
        #expect(LocationService.windows([], margin: 10).isEmpty)
    }
}

@Suite(.serialized) struct WorkoutRouteMapTests {
    static func pointRows(_ core: AppCore, userID: String) async throws -> [(source: String, time: Int64)] {
        try await core.database.sql.select().columns("source", "recorded_at").from("location_points").where("user_id", .equal, userID)
            .orderBy("recorded_at").all().map { (try $0.decode(column: "source", as: String.self), try $0.decode(column: "recorded_at", as: Int64.self)) }
    }

    /// The visits map's API: the routes of the range as LineStrings, newest first, bounded, the owner's only.
    @Test func theRoutesAPIAnswersGeoJSONLinesOfTheOwnerOnly() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try await HealthReportAPITests.importRealExport(browser, api).state == "done")

            let page = try await api.call(.get, "/api/v1/health/workouts/routes")
            #expect(page.status == .ok, "\(page.body)")
            let all = try APIClient.decode(WorkoutTracks.Collection.self, page)
            // Both workouts have a route: the cycling one from its GPX file (2024), the run from its WorkoutRoute (2016).
            #expect(all.features.map(\.properties.activity) == ["Cycling", "Running"])
            #expect(all.features[0].geometry.type == "LineString")
            // The ride's three points lie on one line: drawn as its two ends.
            #expect(all.features[0].geometry.coordinates == [[139.700001, 35.680001], [139.700201, 35.680201]])
            #expect(all.features[0].properties.points == 3 && all.features[0].properties.drawnPoints == 2)
            #expect(all.features[0].properties.distanceKm == 12.25)
            #expect(all.type == "FeatureCollection" && !all.truncated)
            let object = try #require(try JSONSerialization.jsonObject(with: page.data) as? [String: Any])
            #expect(((object["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["type"] as? String == "LineString")

            let recent = try APIClient.decode(WorkoutTracks.Collection.self, try await api.call(.get, "/api/v1/health/workouts/routes?from=2024-01-01T00:00:00Z"))
            #expect(recent.features.map(\.properties.activity) == ["Cycling"])
            let old = try APIClient.decode(WorkoutTracks.Collection.self,
                                           try await api.call(.get, "/api/v1/health/workouts/routes?from=2016-01-01T00:00:00Z&to=2017-01-01T00:00:00Z"))
            #expect(old.features.map(\.properties.activity) == ["Running"])
            let one = try APIClient.decode(WorkoutTracks.Collection.self, try await api.call(.get, "/api/v1/health/workouts/routes?limit=1"))
            #expect(one.features.count == 1 && one.truncated)
            #expect(try await api.call(.get, "/api/v1/health/workouts/routes?limit=0").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/health/workouts/routes?limit=9223372036854775807").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/health/workouts/routes?from=yesterday").status == .badRequest)

            // The visits page points its map at the routes of the range it shows (days in the person's zone, Tokyo).
            let visits = try await browser.get("/visits?from=2024-05-01&to=2024-05-31")
            #expect(visits.body.contains(#"data-routes-url="/api/v1/health/workouts/routes?from=2024-04-30T15:00:00Z&amp;to=2024-05-31T15:00:00Z""#))
            #expect(try await browser.get("/visits").body.contains(#"data-routes-url="/api/v1/health/workouts/routes""#))

            // Ken has no workouts, and Aiko's never show on his map.
            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken", password: "kens password!"))
            let kens = try APIClient.decode(WorkoutTracks.Collection.self, try await kenAPI.call(.get, "/api/v1/health/workouts/routes"))
            #expect(kens.features.isEmpty && !kens.truncated)
            #expect(try await APIClient(browser: ken, token: nil).call(.get, "/api/v1/health/workouts/routes").status == .unauthorized)
        }
    }

    /// The routes' points join the location history once, marked with their workout; the report says how
    /// many; a re-import adds none; the day page still draws the route once.
    @Test func routePointsGoToTheLocationHistoryOnceAndTheDayDrawsThemOnce() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let job = try await HealthReportAPITests.importRealExport(browser, api)
            #expect(job.state == "done")
            let history = try #require(job.report.kinds.first { $0.kind == AppleHealthImporter.locationHistoryKind })
            // Two points of the run's WorkoutRoute and three of the ride's GPX file.
            #expect(history.added == 5 && history.duplicates == 0)
            #expect(job.summary.contains("Location history: 5 added"))
            #expect(try await browser.get("/health/import").body.contains("Location history: 5 added"))

            let again = try await HealthReportAPITests.importRealExport(browser, api)
            #expect(again.report.kinds.first { $0.kind == AppleHealthImporter.locationHistoryKind }.map { ($0.added, $0.duplicates) } ?? (-1, -1) == (0, 5))

            let page = try await browser.get("/day/2024-05-05")
            #expect(page.body.components(separatedBy: #"class="day-map-track""#).count == 2)
        }
    }

    /// Straight through the importer: the points are stored with their workout as source, alongside
    /// other history without doubling it, and a pause in a workout is offered as a stay.
    @Test func aPauseInAWorkoutIsOfferedAsAStay() async throws {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        defer { Task { await core.database.shutdown() } }
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        // A ride: ten minutes moving north (one point a minute, about 220 m apart), a 25-minute stop, ten minutes on.
        let start = 1_714_899_600  // 2024-05-05 09:00:00 UTC
        var locations: [String] = []
        var t = start
        func add(_ lat: Double) {
            let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(t))).replacingOccurrences(of: "T", with: " ")
                .replacingOccurrences(of: "Z", with: " +0000")
            locations.append(#"<Location date="\#(date)" latitude="\#(lat)" longitude="139.7"/>"#)
            t += 60
        }
        for i in 0..<10 { add(35.6 + Double(i) * 0.002) }
        for _ in 0..<26 { add(35.62) }
        for i in 1...10 { add(35.62 + Double(i) * 0.002) }
        func date(_ seconds: Int) -> String {
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds))).replacingOccurrences(of: "T", with: " ")
                .replacingOccurrences(of: "Z", with: " +0000")
        }
        let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="46" durationUnit="min" sourceName="Watch" startDate="\(date(start))" endDate="\(date(t))">
          <WorkoutRoute sourceName="Watch" startDate="\(date(start))" endDate="\(date(t))">
           \(locations.joined(separator: "\n   "))
          </WorkoutRoute>
         </Workout>
        </HealthData>
        """
        // One point of the same ride already came from the phone: it is the same point, not a second one.
        _ = try await core.features.visits.locations.receive(userID: user.id, points: [LocationPoint(time: Int64(start), latitude: 35.6, longitude: 139.7)],
                                                             report: ImportReport(), source: "owntracks", now: Date())
        let path = try ExportFixtures.write(export)
        let importer = core.features.health.importer
        let job = try await importer.prepare(path: path, fileName: "export.xml", user: user, uploadPath: nil, now: Date())
        let result = try await importer.run(job: job, path: path, user: user)
        let history = try #require(result.job.report.kinds.first { $0.kind == AppleHealthImporter.locationHistoryKind })
        #expect(history.added == 45 && history.duplicates == 1)

        let rows = try await Self.pointRows(core, userID: user.id)
        #expect(rows.count == 46)
        let workout = try #require(try await core.features.health.service.workouts(user: user, in: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 2e9)).first)
        #expect(rows.first?.source == "owntracks")
        #expect(rows.dropFirst().allSatisfy { $0.source == LocationService.workoutSource(workout.id) })

        let stays = try await core.features.visits.locations.stays(userID: user.id, status: .open)
        #expect(stays.count == 1)
        let stay = try #require(stays.first)
        #expect(abs(stay.latitude - 35.62) < 1e-6)
        #expect(stay.arrival.timeIntervalSince1970 >= Double(start + 9 * 60) && stay.departure.timeIntervalSince1970 <= Double(start + 36 * 60))
    }
}
