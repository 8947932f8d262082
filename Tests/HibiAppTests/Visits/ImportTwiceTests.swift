import Foundation
import NIOCore
import Testing
@testable import HibiApp

/// Issue 29, item 2: every location and visit fixture imported twice through every importer that takes
/// it; the second import adds nothing (no visit, no chain record, no point, no stay) and says so, kind by
/// kind ("already there"). Before: a GPX or GeoJSON of waypoints doubled its visits, and Google's place
/// visits were reported as "added" again.
@Suite(.serialized) struct ImportTwiceTests {
    static let locationFiles = ["records.json", "semantic-2024_MAY.json", "timeline-android.json", "timeline-ios.json", "two-stops.gpx",
                                "cerknicko-jezero-waypoints.gpx", "semantic-2023_APRIL.json", "zoneless-time.gpx"]
    static let visitFiles = [("two-stops.gpx", "application/gpx+xml"), ("cerknicko-jezero-waypoints.gpx", "application/gpx+xml"),
                             ("waypoints.geojson", "application/geo+json")]

    static func counts(_ api: APIClient) async throws -> (visits: Int, records: Int, stays: Int) {
        let visits = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits?limit=500")).count
        let stays = try await LocationAPITests.stays(api, status: "all").count
        return (visits, try await VisitTestApp.verify(api).records, stays)
    }

    /// The second report: nothing added in any kind, and every kind the first added now "already there".
    static func expectNothingAdded(_ first: ImportReport, _ second: ImportReport, _ lines: [String], _ name: String) {
        #expect(second.added == 0, "\(name): \(lines)")
        for kind in first.kinds where kind.added > 0 {
            #expect(second.kinds.first { $0.kind == kind.kind }?.duplicates == kind.added + kind.duplicates, "\(name) \(kind.kind): \(lines)")
            #expect(lines.contains { $0.hasPrefix("\(ImportReport.kindName(kind.kind).en): 0 added") && $0.contains("\(kind.added + kind.duplicates) already there") },
                    "\(name) \(kind.kind): \(lines)")
        }
    }

    @Test(arguments: locationFiles) func theLocationHistoryImporter(_ name: String) async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let first = try await LocationAPITests.importFile(api, name)
            #expect(first.report.added > 0, "\(name): \(first.summary)")
            let before = try await Self.counts(api)
            let second = try await LocationAPITests.importFile(api, name)
            #expect(second.pointsStored == 0 && second.pointDuplicates == first.pointsStored + first.pointDuplicates)
            #expect(second.visitsImported == 0 && second.staysOffered == 0)
            Self.expectNothingAdded(first.report, second.report, second.summary, name)
            let after = try await Self.counts(api)
            #expect(after == before, "\(name)")
        }
    }

    @Test(arguments: visitFiles) func theVisitImporter(_ file: (String, String)) async throws {
        let (name, type) = file
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            func upload() async throws -> ImportResponse {
                let page = try await api.call(.post, "/api/v1/visits/import", body: try LocationAPITests.fixture(name), contentType: type)
                #expect(page.status == .created, "\(name): \(page.body)")
                return try APIClient.decode(ImportResponse.self, page)
            }
            let first = try await upload()
            let before = try await Self.counts(api)
            let second = try await upload()
            #expect(second.imported == 0 && (second.trackPointsStored ?? 0) == 0 && (second.staysDetected ?? 0) == 0)
            Self.expectNothingAdded(try #require(first.report), try #require(second.report), second.summary ?? [], name)
            let after = try await Self.counts(api)
            #expect(after == before, "\(name)")
            #expect(try await VisitTestApp.verify(api).intact)
        }
    }

    /// The same waypoints through the other importer: the visits are already there, whichever door they came in by.
    @Test func waypointsImportedAsVisitsAreAlreadyThereForTheLocationImporter() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let first = try await api.call(.post, "/api/v1/visits/import", body: try LocationAPITests.fixture("cerknicko-jezero-waypoints.gpx"),
                                           contentType: "application/gpx+xml")
            #expect(try APIClient.decode(ImportResponse.self, first).imported == 7)
            let second = try await LocationAPITests.importFile(api, "cerknicko-jezero-waypoints.gpx")
            #expect(second.visitsImported == 0)
            #expect(second.summary.first == "Waypoints: 0 added, 7 already there")
        }
    }

    /// Phones resend what the server did not acknowledge: the same OwnTracks message or Overland batch twice stores its points once.
    @Test func phonesSendingTheSameBatchTwice() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let user = try #require(try await core.users.find(username: "aiko"))
            for (path, name) in [("owntracks", "owntracks-location.json"), ("overland", "overland-batch.json")] {
                let once = try await api.call(.post, "/api/v1/locations/\(path)", body: try LocationAPITests.fixture(name), contentType: "application/json")
                #expect(once.status == .ok)
                let stored = try await core.features.visits.locations.pointCount(userID: user.id)
                let twice = try await api.call(.post, "/api/v1/locations/\(path)", body: try LocationAPITests.fixture(name), contentType: "application/json")
                #expect(twice.status == .ok)
                #expect(try await core.features.visits.locations.pointCount(userID: user.id) == stored, "\(name)")
            }
        }
    }
}

/// The content key (issue 29): the same second, about the same metre and the same name are the same visit.
@Suite struct VisitContentKeyTests {
    static let base = VisitFields(visitedAt: Date(timeIntervalSince1970: 1_714_555_800), latitude: 35.6812362, longitude: 139.7671248, name: "Tokyo Station")

    @Test func sameAndDifferent() {
        func with(_ change: (inout VisitFields) -> Void) -> VisitFields { var f = Self.base; change(&f); return f }
        let key = VisitContentKey.key(Self.base)
        let same: [(String, VisitFields)] = [
            ("milliseconds a program added", with { $0.visitedAt = $0.visitedAt.addingTimeInterval(0.25) }),
            ("0.3 m north", with { $0.latitude += 0.0000027 }),
            ("letter case and spaces", with { $0.name = "  tokyo   STATION " }),
            ("notes, labels, altitude", with { $0.notes = "met Ken"; $0.labels = ["work"]; $0.altitude = 40 }),
        ]
        for (what, fields) in same { #expect(VisitContentKey.key(fields) == key, "\(what)") }
        let different: [(String, VisitFields)] = [
            ("one second later", with { $0.visitedAt = $0.visitedAt.addingTimeInterval(1) }),
            ("3 m north", with { $0.latitude += 0.000027 }),
            ("3 m east", with { $0.longitude += 0.000033 }),
            ("another name", with { $0.name = "Tokyo Station Hotel" }),
        ]
        for (what, fields) in different { #expect(VisitContentKey.key(fields) != key, "\(what)") }
        // Decomposed and composed spellings of one name are one name.
        #expect(VisitContentKey.normalizedName("が") == VisitContentKey.normalizedName("か\u{3099}"))
    }

    /// A waypoint without a time of its own is the same visit whenever it was imported.
    @Test func anApproximateTimeIsNotPartOfTheKey() {
        var a = Self.base
        a.labels = [VisitFormats.approximateTimeLabel]
        var b = a
        b.visitedAt = b.visitedAt.addingTimeInterval(86400 * 30)
        #expect(VisitContentKey.key(a) == VisitContentKey.key(b))
        #expect(VisitContentKey.key(a) != VisitContentKey.key(Self.base))
    }
}
