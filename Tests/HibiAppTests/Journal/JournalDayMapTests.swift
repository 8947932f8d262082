import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// Issue 18 (a small map of the day with the route between the visits) and issue 17 (workout routes
/// shown on the day page): the drawing on known coordinates, and the day through the API and the page.
@Suite struct DayMapTests {
    @Test func oneOrSeveralPlacesAtOneSpotLandInTheMiddle() throws {
        let one = DayMap.project([(35.0, 139.0)], fitting: [(35.0, 139.0)])
        #expect(one.count == 1 && one[0].x == DayMap.width / 2 && one[0].y == DayMap.height / 2)
        let same = DayMap.project([(35.0, 139.0), (35.0, 139.0)], fitting: [(35.0, 139.0), (35.0, 139.0)])
        #expect(same.allSatisfy { $0.x == DayMap.width / 2 && $0.y == DayMap.height / 2 })
    }

    @Test func northIsUpEastIsRightAndBothAxesShareOneScale() throws {
        // A square 0.01° on a side at the equator: as wide as it is tall, fitted to the 168 px of usable height.
        let square = [(0.0, 0.0), (0.01, 0.0), (0.01, 0.01), (0.0, 0.01)]
        let p = DayMap.project(square, fitting: square)
        #expect(p[1].y < p[0].y)          // north is up
        #expect(p[3].x > p[0].x)          // east is right
        // (the cosine of 0.005° is not quite 1: equal within a millionth of the side)
        #expect(abs((p[3].x - p[0].x) - (p[0].y - p[1].y)) < 1e-5 * (p[0].y - p[1].y))
        #expect(abs((p[0].y - p[1].y) - (DayMap.height - 2 * DayMap.margin)) < 1e-9)
        // At 60° north a degree of longitude is half as long: the same span in degrees is half as wide.
        let north = [(60.0, 0.0), (60.0, 0.02), (60.01, 0.0)]
        let q = DayMap.project(north, fitting: north)
        #expect(abs((q[1].x - q[0].x) - (q[0].y - q[2].y)) < 0.05 * (q[0].y - q[2].y))
    }

    @Test func longTracksAreThinnedKeepingBothEndsAndBadNumbersAreLeftOut() throws {
        let track = (0..<10_000).map { (lat: 35 + Double($0) * 1e-5, lon: 139.0) }
        let thin = DayMap.thin(track, limit: 400)
        #expect(thin.count == 400)
        #expect(thin.first?.lat == track.first?.lat && thin.last?.lat == track.last?.lat)
        #expect(DayMap.thin([1, 2, 3], limit: 400) == [1, 2, 3])
        #expect(DayMap.project([(.nan, 1), (35, 139)], fitting: [(.nan, 1), (35, 139), (.infinity, 0)]).count == 1)
        #expect(DayMap.svg(places: [], tracks: [], label: "x") == nil)
    }

    @Test func placesAreNumberedInOrderAndTheirNamesEscaped() throws {
        let svg = try #require(DayMap.svg(places: [.init(latitude: 35.68, longitude: 139.76, name: "Café <b>&</b>"),
                                                  .init(latitude: 35.66, longitude: 139.70, name: "Park")],
                                          tracks: [[(35.67, 139.72), (35.675, 139.73)]], label: "Map \"of\" the day"))
        #expect(svg.contains("<title>1. Café &lt;b&gt;&amp;&lt;/b&gt;</title>"))
        #expect(svg.contains("<title>2. Park</title>"))
        #expect(svg.contains(#"aria-label="Map &quot;of&quot; the day""#))
        #expect(svg.components(separatedBy: "class=\"day-map-track\"").count == 2)
        #expect(svg.components(separatedBy: "class=\"day-map-way\"").count == 2)
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        // A place that cannot be drawn is left out without shifting the others' numbers off their names.
        let skipping = try #require(DayMap.svg(places: [.init(latitude: .nan, longitude: 139, name: "Nowhere"),
                                                       .init(latitude: 35.66, longitude: 139.70, name: "Park")], tracks: [], label: "x"))
        #expect(skipping.contains("<title>1. Park</title>") && !skipping.contains("Nowhere"))
    }
}

@Suite struct WorkoutSummaryTests {
    @Test func numbersFromAFileAreShownOrLeftOutButNeverStopTheServer() {
        func workout(_ minutes: Double, _ km: Double?, _ kcal: Double?) -> HealthWorkout {
            HealthWorkout(id: "w", activity: "Running", start: Date(), end: Date(), durationMinutes: minutes, distanceKm: km, energyKcal: kcal,
                          device: "", details: nil)
        }
        #expect(HealthDayViews.workoutSummary(workout(30, 12.25, 250.5), units: UnitPreferences(), language: .en)
                == "30 min · \(String(format: "%.1f", 12.25)) km · 251 kcal")
        #expect(HealthDayViews.workoutSummary(workout(30, 10, 100), units: UnitPreferences(distance: .mi, energy: .kJ), language: .ja)
                == "30分 · 6.2 mi · 418 kJ")
        // Values no real workout has, as a hostile export could carry them: shown as numbers or left out.
        #expect(HealthDayViews.workoutSummary(workout(.nan, .infinity, -5), units: UnitPreferences(), language: .en) == "")
        #expect(HealthDayViews.workoutSummary(workout(1e300, nil, 1e300), units: UnitPreferences(energy: .kJ), language: .en).hasSuffix(" kJ"))
    }
}

@Suite(.serialized) struct JournalWorkoutTests {
    @Test func aWorkoutAndItsRouteAreOnItsDayAndOnlyForItsOwner() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try await HealthReportAPITests.importRealExport(browser, api).state == "done")

            // The cycling workout of 2024-05-05 18:00 in Tokyo (09:00 UTC), its route from the GPX file in the zip.
            let day = try await api.call(.get, "/api/v1/days/2024-05-05")
            #expect(day.status == .ok, "\(day.body)")
            let object = try #require(try JSONSerialization.jsonObject(with: day.data) as? [String: Any])
            let workouts = try #require(object["workouts"] as? [[String: Any]])
            #expect(workouts.count == 1)
            #expect(workouts.first?["distanceKm"] as? Double == 12.25)
            #expect((workouts.first?["route"] as? [[Double]])?.count == 3)

            let page = try await browser.get("/day/2024-05-05")
            #expect(page.body.contains(#"id="day-workouts""#))
            #expect(page.body.contains("30 min · \(String(format: "%.1f", 12.25)) km · 251 kcal"))
            #expect(page.body.contains(#"class="day-map""#) && page.body.contains(#"class="day-map-track""#))
            // Drawn from the coordinates alone: the map fetches nothing (no tiles, no links), so where the
            // person was never leaves the server (README).
            let map = try #require(page.body.components(separatedBy: #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320.0 200.0" class="day-map""#)
                .dropFirst().first?.components(separatedBy: "</svg>").first)
            #expect(!map.contains("http") && !map.contains("href") && !map.contains("url("))

            // Ken's day is his own: none of Aiko's workouts.
            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken", password: "kens password!"))
            let kens = try #require(try JSONSerialization.jsonObject(with: try await kenAPI.call(.get, "/api/v1/days/2024-05-05").data) as? [String: Any])
            #expect((kens["workouts"] as? [Any])?.isEmpty == true)
            #expect(!(try await ken.get("/day/2024-05-05")).body.contains("day-workouts"))
        }
    }
}
