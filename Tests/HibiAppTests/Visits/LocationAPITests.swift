import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// Location history through the API (issue 17): GPX tracks, Google's three shapes, stays to confirm
/// or dismiss, stay settings, and phones sending their position (OwnTracks, Overland).
@Suite(.serialized) struct LocationAPITests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/locations/\(name)"))
    }

    static func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? { report.kinds.first { $0.kind == name } }

    static func stays(_ api: APIClient, status: String = "open") async throws -> [DetectedStay] {
        let page = try await api.call(.get, "/api/v1/locations/stays?status=\(status)")
        guard page.status == .ok else { throw TestFailure("stays: \(page.status) \(page.body)") }
        return try APIClient.decode([DetectedStay].self, page)
    }

    static func importFile(_ api: APIClient, _ name: String) async throws -> LocationImportResponse {
        let page = try await api.call(.post, "/api/v1/locations/import", body: try fixture(name), contentType: "application/json")
        guard page.status == .created else { throw TestFailure("import \(name): \(page.status) \(page.body)") }
        return try APIClient.decode(LocationImportResponse.self, page)
    }

    @Test func aGPXTrackGivesTwoStaysToConfirmAndAConfirmedOneIsASignedVisit() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, ken) = try await VisitTestApp.twoUsers(browser)
            let response = try await aiko.call(.post, "/api/v1/visits/import", body: try Self.fixture("two-stops.gpx"), contentType: "application/gpx+xml")
            #expect(response.status == .created)
            let body = try APIClient.decode(ImportResponse.self, response)
            #expect(body.trackPointsStored == 492)
            #expect(body.staysDetected == 2)
            #expect(body.summary?.contains("492 track points stored") == true)

            let open = try await Self.stays(aiko)
            #expect(open.count == 2)
            // Nobody else sees or decides them.
            #expect(try await Self.stays(ken).isEmpty)
            let foreign = try await ken.call(.post, "/api/v1/locations/stays/\(open[0].id)/confirm", json: nil)
            #expect(foreign.status == .notFound)

            let confirmed = try await aiko.call(.post, "/api/v1/locations/stays/\(open[0].id)/confirm", json: #"{"name":"Museum"}"#)
            #expect(confirmed.status == .created)
            let made = try APIClient.decode(ConfirmStayResponse.self, confirmed)
            #expect(made.visit.name == "Museum")
            #expect(made.visit.labels == [LocationService.stayLabel])
            #expect(made.stay.status == .confirmed && made.stay.visitId == made.visit.id)
            let twice = try await aiko.call(.post, "/api/v1/locations/stays/\(open[0].id)/confirm", json: nil)
            #expect(twice.status == .conflict)

            let dismissed = try await aiko.call(.post, "/api/v1/locations/stays/\(open[1].id)/dismiss", json: nil)
            #expect(dismissed.status == .ok)
            #expect(try await Self.stays(aiko).isEmpty)
            #expect(try await Self.stays(aiko, status: "all").count == 2)

            // The same file again: every point a duplicate, and no stay offered twice (dismissed stays stay dismissed).
            let again = try APIClient.decode(ImportResponse.self, try await aiko.call(.post, "/api/v1/visits/import", body: try Self.fixture("two-stops.gpx"),
                                                                                     contentType: "application/gpx+xml"))
            #expect(again.trackPointsStored == 0)
            #expect(Self.kind(try #require(again.report), "trkpt")?.duplicates == 492)
            #expect(again.staysDetected == 0)
            #expect(try await Self.stays(aiko).isEmpty)

            let visits = try APIClient.decode([VisitResponse].self, try await aiko.call(.get, "/api/v1/visits"))
            #expect(visits.map(\.name) == ["Museum"])
            #expect(try await VisitTestApp.verify(aiko).intact)
        }
    }

    @Test func aStayAtAPlaceAlreadyVisitedIsMergedAndOthersAreNamedAfterKnownPlaces() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            // A visit during the café stop (08:15 UTC), and one at the museum a month earlier.
            _ = try await VisitTestApp.create(api, #"{"name":"Café","latitude":35.66503,"longitude":139.74936,"visitedAt":"2024-05-01T08:15:00Z"}"#)
            _ = try await VisitTestApp.create(api, #"{"name":"Art Museum","latitude":35.67804,"longitude":139.7573,"visitedAt":"2024-04-01T10:00:00Z"}"#)
            let body = try APIClient.decode(ImportResponse.self, try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("two-stops.gpx"),
                                                                                   contentType: "application/gpx+xml"))
            #expect(body.staysDetected == 1)
            let open = try await Self.stays(api)
            #expect(open.map(\.name) == ["Art Museum"])
            let merged = try await Self.stays(api, status: "merged")
            #expect(merged.count == 1)
        }
    }

    @Test func googleRecordsJSONIsReadWithReasonsForWhatIsSkipped() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let result = try await Self.importFile(api, "records.json")
            #expect(result.shape == "records")
            #expect(result.pointsStored == 5)
            let location = try #require(Self.kind(result.report, "location"))
            #expect(location.added == 5)
            #expect(location.skipped.map(\.reason) == [.unparseableDate, .missingValue, .outOfRange])
            #expect(location.skipped.first?.firstAt == "locations[5]")
            // 08:00 to 08:20 at Tokyo Station, then away.
            #expect(result.staysOffered == 1)
            let again = try await Self.importFile(api, "records.json")
            #expect(again.pointDuplicates == 5 && again.pointsStored == 0)
        }
    }

    /// The stays of one file are decided in one pass against the stays stored before it and those it has just added:
    /// a place visit inside one already added is not offered twice, nor is one starting at the same second elsewhere.
    @Test func placeVisitsOfOneFileAreOfferedOnceEach() async throws {
        func visit(_ name: String, _ lat: Int, _ lon: Int, _ start: String, _ end: String) -> String {
            #"{"placeVisit":{"location":{"latitudeE7":\#(lat),"longitudeE7":\#(lon),"name":"\#(name)"},"#
                + #""duration":{"startTimestamp":"\#(start)","endTimestamp":"\#(end)"}}}"#
        }
        let file = #"{"timelineObjects":["# + [
            visit("Tokyo Station", 356812360, 1397671250, "2024-05-01T08:00:00Z", "2024-05-01T09:15:00Z"),
            visit("Tokyo Station", 356812360, 1397671250, "2024-05-01T08:30:00Z", "2024-05-01T09:00:00Z"),
            visit("Osaka Station", 347024850, 1354959150, "2024-05-01T08:00:00Z", "2024-05-01T08:20:00Z"),
            visit("Osaka Station", 347024850, 1354959150, "2024-05-01T12:00:00Z", "2024-05-01T13:00:00Z"),
        ].joined(separator: ",") + "]}"
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let page = try await api.call(.post, "/api/v1/locations/import", json: file)
            #expect(page.status == .created)
            let result = try APIClient.decode(LocationImportResponse.self, page)
            #expect(Self.kind(result.report, "placeVisit")?.added == 2)
            #expect(Self.kind(result.report, "placeVisit")?.duplicates == 2)
            #expect(result.staysOffered == 2)
            let stays = try await Self.stays(api).sorted { $0.arrival < $1.arrival }
            #expect(stays.map(\.name) == ["Tokyo Station", "Osaka Station"])
            #expect(stays.map(\.arrival) == [Date(timeIntervalSince1970: 1_714_550_400), Date(timeIntervalSince1970: 1_714_564_800)])
            // The same file again adds nothing.
            let again = try APIClient.decode(LocationImportResponse.self, try await api.call(.post, "/api/v1/locations/import", json: file))
            #expect(Self.kind(again.report, "placeVisit")?.duplicates == 4)
            #expect(again.staysOffered == 0)
        }
    }

    @Test func semanticHistoryAndBothTimelineShapesAreRead() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let semantic = try await Self.importFile(api, "semantic-2024_MAY.json")
            #expect(semantic.shape == "semantic")
            #expect(Self.kind(semantic.report, "placeVisit")?.added == 2)
            #expect(Self.kind(semantic.report, "placeVisit")?.skipped.first?.reason == .missingValue)
            #expect(Self.kind(semantic.report, "activitySegment")?.added == 3)
            #expect(semantic.staysOffered == 2)
            let names = try await Self.stays(api).map(\.name)
            #expect(names.contains("Tokyo Station"))

            let android = try await Self.importFile(api, "timeline-android.json")
            #expect(android.shape == "timeline")
            #expect(Self.kind(android.report, "visit")?.added == 1)
            #expect(Self.kind(android.report, "timelinePath")?.added == 2)
            #expect(Self.kind(android.report, "timelinePath")?.skipped.first?.reason == .missingValue)
            #expect(Self.kind(android.report, "activity")?.added == 2)
            #expect(Self.kind(android.report, "position")?.added == 1)
            #expect(try await Self.stays(api).map(\.name).contains("Home"))

            let ios = try await Self.importFile(api, "timeline-ios.json")
            #expect(ios.shape == "ios-timeline")
            #expect(Self.kind(ios.report, "visit")?.added == 1)
            #expect(Self.kind(ios.report, "timelinePath")?.added == 2)
            #expect(try await Self.stays(api).map(\.name).contains("Work"))

            let broken = try await api.call(.post, "/api/v1/locations/import", json: #"{"locations": [{"latitudeE7": 1"#)
            #expect(broken.status == .unprocessableContent)
            let neither = try await api.call(.post, "/api/v1/locations/import", json: "hello")
            #expect(neither.status == .unprocessableContent)
        }
    }

    @Test func ownTracksAndOverlandStorePointsAndOfferAStayOnceThePhoneLeaves() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let token = try await browser.createToken(scopes: .standard)
            let api = APIClient(browser: browser, token: token)
            let readOnly = try await browser.createToken(name: "reader", scopes: [.read])
            let anonymous = Browser(client: browser.client)
            func basic(_ user: String, _ secret: String) -> String { "Basic " + Data("\(user):\(secret)".utf8).base64EncodedString() }
            func ownTracks(_ body: Data, auth: String) async throws -> Browser.Page {
                try await anonymous.send("/api/v1/locations/owntracks", method: .post, headers: [.authorization: auth, .contentType: "application/json"],
                                         body: ByteBuffer(bytes: body))
            }

            let first = try await ownTracks(try Self.fixture("owntracks-location.json"), auth: basic("aiko", token))
            #expect(first.status == .ok)
            #expect(first.body == "[]")
            let transition = try await ownTracks(try Self.fixture("owntracks-transition.json"), auth: basic("Aiko", token))
            #expect(transition.status == .ok && transition.body == "[]")
            #expect(try await ownTracks(try Self.fixture("owntracks-location.json"), auth: basic("ken", token)).status == .unauthorized)
            #expect(try await ownTracks(try Self.fixture("owntracks-location.json"), auth: basic("aiko", readOnly)).status == .unauthorized)
            #expect(try await ownTracks(try Self.fixture("owntracks-location.json"), auth: basic("aiko", "hibi_wrong")).status == .unauthorized)
            #expect(try await ownTracks(Data("{".utf8), auth: basic("aiko", token)).status == .badRequest)
            let huge = Data(repeating: 0x20, count: LocationAPIRoutes.ownTracksLimit + 1)
            #expect(try await ownTracks(huge, auth: basic("aiko", token)).status == .contentTooLarge)

            // Standing still for 20 minutes: no stay yet (it is still going on)...
            for minute in stride(from: 5, through: 20, by: 5) {
                let message = #"{"_type":"location","lat":35.68124,"lon":139.76713,"tst":\#(1_714_550_400 + minute * 60),"acc":10}"#
                #expect(try await ownTracks(Data(message.utf8), auth: basic("aiko", token)).status == .ok)
            }
            #expect(try await Self.stays(api).isEmpty)
            // ...then a point a kilometre away completes it.
            let away = #"{"_type":"location","lat":35.69,"lon":139.77,"tst":\#(1_714_550_400 + 25 * 60),"acc":10}"#
            #expect(try await api.call(.post, "/api/v1/locations/owntracks", json: away).body == "[]")
            let stays = try await Self.stays(api)
            #expect(stays.count == 1)
            #expect(stays.first?.pointCount == 5)

            let overland = try await api.call(.post, "/api/v1/locations/overland", body: try Self.fixture("overland-batch.json"), contentType: "application/json")
            #expect(overland.status == .ok)
            #expect(overland.body == #"{"result":"ok"}"#)
            #expect(try await Self.stays(api).count == 2)
            let wrongShape = try await api.call(.post, "/api/v1/locations/overland", json: "[]")
            #expect(wrongShape.status == .badRequest)
            let noAuth = try await anonymous.send("/api/v1/locations/overland", method: .post, headers: [.contentType: "application/json"],
                                                  body: ByteBuffer(bytes: try Self.fixture("overland-batch.json")))
            #expect(noAuth.status == .unauthorized)
        }
    }

    @Test func staySettingsAreReadCheckedAndUsed() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try APIClient.decode(StaySettings.self, try await api.call(.get, "/api/v1/locations/settings")) == .standard)
            let set = try await api.call(.put, "/api/v1/locations/settings", json: #"{"distanceMeters":150,"durationMinutes":30}"#)
            #expect(try APIClient.decode(StaySettings.self, set) == StaySettings(distanceMeters: 150, durationMinutes: 30))
            #expect(try await api.call(.put, "/api/v1/locations/settings", json: #"{"distanceMeters":1,"durationMinutes":30}"#).status == .badRequest)
            #expect(try await api.call(.put, "/api/v1/locations/settings", json: #"{"distanceMeters":100,"durationMinutes":0}"#).status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/locations/stays?status=maybe").status == .badRequest)
            // With 30 minutes, the 20-minute café stop is no stay; the 25-minute museum neither.
            let body = try APIClient.decode(ImportResponse.self, try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("two-stops.gpx"),
                                                                                   contentType: "application/gpx+xml"))
            #expect(body.staysDetected == 0)
        }
    }

    @Test func theStaysPageConfirmsDismissesAndSavesSettings() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.post, "/api/v1/visits/import", body: try Self.fixture("two-stops.gpx"), contentType: "application/gpx+xml")
            let page = try await browser.get("/visits/stays")
            #expect(page.status == .ok)
            let open = try await Self.stays(api)
            #expect(page.body.contains("stay-\(open[0].id)"))
            let confirmed = try await browser.post("/visits/stays/\(open[0].id)/confirm", form: ["name": "Café"])
            #expect(confirmed.status == .found)
            let dismissed = try await browser.post("/visits/stays/\(open[1].id)/dismiss", form: [:])
            #expect(dismissed.status == .found)
            #expect(try await Self.stays(api).isEmpty)
            let saved = try await browser.post("/visits/stays/settings", form: ["distance": "200", "duration": "15"])
            #expect(saved.status == .ok)
            let refused = try await browser.post("/visits/stays/settings", form: ["distance": "abc", "duration": "15"])
            #expect(refused.status == .badRequest)
            #expect(try APIClient.decode(StaySettings.self, try await api.call(.get, "/api/v1/locations/settings")) == StaySettings(distanceMeters: 200, durationMinutes: 15))
            #expect(try await VisitTestApp.verify(api).intact)
        }
    }
}
