import Foundation
import Testing
@testable import HibiApp

/// Issue 29, item 3: read everything a format holds, or say why not, through the real router.
@Suite(.serialized) struct LocationFormatsReadTests {
    static func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? { report.kinds.first { $0.kind == name } }

    static func gpx(_ times: [String]) -> Data {
        let points = times.enumerated().map { index, time in
            #"<trkpt lat="\#(35.0 + Double(index) * 0.001)" lon="139.0"><time>\#(time)</time></trkpt>"#
        }.joined()
        return Data(#"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\#(points)</trkseg></trk></gpx>"#.utf8)
    }

    static func importData(_ api: APIClient, _ data: Data) async throws -> LocationImportResponse {
        let page = try await api.call(.post, "/api/v1/locations/import", body: data, contentType: "application/gpx+xml")
        guard page.status == .created else { throw TestFailure("import: \(page.status) \(page.body)") }
        return try APIClient.decode(LocationImportResponse.self, page)
    }

    @Test func aSemanticMonthsRawPathAndTimedWaypointsAreRead() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let result = try await LocationAPITests.importFile(api, "semantic-2023_APRIL.json")
            #expect(Self.kind(result.report, "simplifiedRawPath")?.added == 3)
            #expect(Self.kind(result.report, "placeVisit")?.added == 1)
            #expect(Self.kind(result.report, "activitySegment")?.added == 2)
            let waypoints = try #require(Self.kind(result.report, "waypointPath"))
            #expect(waypoints.added == 1)
            #expect(waypoints.skipped.map(\.reason) == [.missingValue])
            #expect(result.pointsStored == 6)
        }
    }

    @Test func aGPXTimeWithoutAZoneIsReadAsUTCAndSaidSo() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let result = try await LocationAPITests.importFile(api, "zoneless-time.gpx")
            let trkpt = try #require(Self.kind(result.report, "trkpt"))
            #expect(trkpt.added == 5 && trkpt.readAsUTC == 5 && trkpt.skipped.isEmpty)
            #expect(result.summary.contains("Track points: 5 added, 5 with a time without a zone, read as UTC"))
            let user = try #require(try await core.users.find(username: "aiko"))
            var first: LocationPoint?
            try await core.features.visits.locations.forEachPointPage(userID: user.id) { page in first = first ?? page.first }
            #expect(first?.time == 1_357_041_600, "2013-01-01T12:00:00Z")
        }
    }

    @Test func bogusTimesAreKeptOutOfTheHistoryWithAReason() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            // The real shape: 184 points at 1901-12-13T20:45:52Z, a 32-bit clock's floor.
            let floor = try await LocationAPITests.importFile(api, "epoch-floor-1901.gpx")
            #expect(floor.pointsStored == 0)
            #expect(floor.summary.contains("Track points: 0 added, 184 skipped: suspicious: a time before 1970 (first at 1901-12-13T20:45:52Z)"))
            #expect(floor.summary.contains("0 track points stored"))

            let stuck = try await Self.importData(api, Self.gpx(Array(repeating: "2020-02-02T02:02:02Z", count: 184)))
            #expect(stuck.pointsStored == 0 && stuck.staysOffered == 0)
            #expect(stuck.summary.contains("Track points: 0 added, 184 skipped: suspicious: all 184 points at the same second (first at 2020-02-02T02:02:02Z)"))
            browser.acceptLanguage = "ja"
            let again = try await Self.importData(api, Self.gpx(Array(repeating: "2020-02-02T02:02:02Z", count: 184)))
            #expect(again.summary.contains { $0.contains("不審な日時(184 件すべてが同じ秒) 184 件をスキップ") })
            browser.acceptLanguage = "en"

            let future = try await Self.importData(api, Self.gpx(["2024-05-01T08:00:00Z", "2099-06-30T12:31:42Z", "2024-05-01T08:05:00Z"]))
            #expect(future.pointsStored == 2)
            #expect(Self.kind(future.report, "trkpt")?.skipped.map(\.reason) == [.inFuture])

            // The stays page does not ask for a GPX track when a history is there.
            let stays = try await browser.get(VisitPaths.stays)
            #expect(stays.body.contains("your location history holds no stay still to decide"))
            #expect(!stays.body.contains("Import a GPX track"))
        }
    }

    @Test func aDayBefore1970IsRefusedInASentenceThatReads() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let english = try await browser.get("/day/1901-12-13")
            #expect(english.status == .badRequest)
            #expect(english.body.contains("The parameter “date” must be a day written YYYY-MM-DD from 1970-01-01 to 9999-12-31 (Hibi keeps no days before 1970).")
                    || english.body.contains("The parameter &quot;date&quot; must be a day written YYYY-MM-DD from 1970-01-01 to 9999-12-31 (Hibi keeps no days before 1970)."))
            browser.acceptLanguage = "ja"
            let japanese = try await browser.get("/day/1901-12-13")
            #expect(japanese.body.contains("パラメーター「date」は1970-01-01〜9999-12-31 の日付を YYYY-MM-DD で指定してください(1970年より前の日は記録されません)。"))
        }
    }

    @Test func timeRules() {
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        #expect(LocationTimeRules.problem(-2_147_483_648, now: now) == .beforeEpoch)
        #expect(LocationTimeRules.problem(-1, now: now) == .beforeEpoch)
        #expect(LocationTimeRules.problem(0, now: now) == nil)
        #expect(LocationTimeRules.problem(1_764_000_000 + 86_400, now: now) == nil, "a phone's clock a day ahead")
        #expect(LocationTimeRules.problem(1_764_000_000 + 86_401, now: now) == .inFuture)
        #expect(LocationTimeRules.problem(4_000_000_000, now: nil) == nil)
        #expect(LocationTimeRules.allAtOneSecond(count: 184, earliest: 5, latest: 5))
        #expect(!LocationTimeRules.allAtOneSecond(count: 2, earliest: 5, latest: 5))
        #expect(!LocationTimeRules.allAtOneSecond(count: 184, earliest: 5, latest: 6))
        #expect(VisitFormats.zonelessAsUTC("2013-01-01T12:00:04")?.timeIntervalSince1970 == 1_357_041_604)
        #expect(VisitFormats.zonelessAsUTC("2013-01-01T12:00:04.5")?.timeIntervalSince1970 == 1_357_041_604.5)
        #expect(VisitFormats.zonelessAsUTC("2013-01-01T12:00:04Z") == nil, "names its zone: read as it is")
        #expect(VisitFormats.zonelessAsUTC("2013-01-01T12:00:04+09:00") == nil)
        #expect(VisitFormats.zonelessAsUTC("yesterday") == nil)
    }
}
