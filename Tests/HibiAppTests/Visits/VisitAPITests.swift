import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

/// Runs the app with its core at hand, so a test can reach into the database the way an attacker would.
enum VisitTestApp {
    static func run(allowWebhooksTo networks: [IPRange] = [], _ body: @escaping @Sendable (Browser, AppCore) async throws -> Void) async throws {
        var config = try await TestApp.config()
        config.webhookAllowedNetworks = networks
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            try await body(Browser(client: client), core)
        }
    }

    static func visit(_ name: String = "Tokyo Station", lat: Double = 35.681236, lon: Double = 139.767125, extra: String = "") -> String {
        #"{"name":"\#(name)","latitude":\#(lat),"longitude":\#(lon),"visitedAt":"2024-05-01T09:30:00Z","accuracy":8,"labels":["train","work"],"group":"Tokyo trip","companions":["Ken"]\#(extra)}"#
    }

    static func create(_ api: APIClient, _ json: String = visit()) async throws -> VisitResponse {
        let page = try await api.call(.post, "/api/v1/visits", json: json)
        guard page.status == .created else { throw TestFailure("create failed: \(page.status) \(page.body)") }
        return try APIClient.decode(VisitResponse.self, page)
    }

    static func verify(_ api: APIClient) async throws -> VerifyResponse {
        try APIClient.decode(VerifyResponse.self, try await api.call(.get, "/api/v1/visits/verify"))
    }

    /// Signs Ken up as a second user and returns API clients for both.
    static func twoUsers(_ browser: Browser) async throws -> (aiko: APIClient, ken: APIClient) {
        try await browser.setUp()
        try await browser.get("/admin/users")
        try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
        let aiko = APIClient(browser: browser, token: try await browser.createToken())
        let kenBrowser = Browser(client: browser.client)
        _ = try await kenBrowser.signIn(username: "ken", password: "kens password!")
        return (aiko, APIClient(browser: kenBrowser, token: try await kenBrowser.createToken(name: "ken", password: "kens password!")))
    }

    static let png = TestImages.png
}

extension APIClient {
    func upload(_ uri: String, data: Data, contentType: String) async throws -> Browser.Page {
        var headers: HTTPFields = [.contentType: contentType]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let saved = browser.cookies
        for name in saved.keys { browser.setCookie(name, nil) }
        defer { for (name, value) in saved { browser.setCookie(name, value) } }
        return try await browser.send(uri, method: .post, headers: headers, body: ByteBuffer(bytes: data))
    }
}

@Suite(.serialized) struct VisitAPITests {
    @Test func createReadEditDeleteKeepsHistoryAndTheLogIntact() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let created = try await VisitTestApp.create(api)
            #expect(created.name == "Tokyo Station")
            #expect(created.labels == ["train", "work"])
            #expect(created.group == "Tokyo trip")
            #expect(created.revision == 1)

            let fetched = try APIClient.decode(VisitResponse.self, try await api.call(.get, "/api/v1/visits/\(created.id)"))
            #expect(fetched == created)
            let edited = try await api.call(.put, "/api/v1/visits/\(created.id)", json: VisitTestApp.visit("Tokyo Station Hotel"))
            #expect(edited.status == .ok)
            #expect(try APIClient.decode(VisitResponse.self, edited).revision == 2)

            let history = try APIClient.decode([HistoryEntry].self, try await api.call(.get, "/api/v1/visits/\(created.id)/history"))
            #expect(history.map(\.action) == [.create, .edit])
            #expect(history.map(\.name) == ["Tokyo Station", "Tokyo Station Hotel"])

            #expect(try await api.call(.delete, "/api/v1/visits/\(created.id)").status == .noContent)
            #expect(try await api.call(.get, "/api/v1/visits/\(created.id)").status == .notFound)
            #expect(try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits")).isEmpty)

            let report = try await VisitTestApp.verify(api)
            #expect(report.intact)
            #expect(report.records == 3)
        }
    }

    @Test func listFiltersByDateLabelGroupAndDistance() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await VisitTestApp.create(api)
            _ = try await VisitTestApp.create(api, #"{"name":"Osaka Castle","latitude":34.6873,"longitude":135.5262,"visitedAt":"2024-06-10T01:00:00Z","labels":["castle"]}"#)
            func names(_ query: String) async throws -> [String] {
                let page = try await api.call(.get, "/api/v1/visits?\(query)")
                return try APIClient.decode([VisitResponse].self, page).map(\.name)
            }
            #expect(try await names("") == ["Osaka Castle", "Tokyo Station"])
            #expect(try await names("label=CASTLE") == ["Osaka Castle"])
            #expect(try await names("group=Tokyo%20trip") == ["Tokyo Station"])
            #expect(try await names("from=2024-06-01&to=2024-06-30") == ["Osaka Castle"])
            #expect(try await names("near=35.68,139.76&radius=5") == ["Tokyo Station"])
            #expect(try await api.call(.get, "/api/v1/visits?near=91,0").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/visits?from=yesterday").status == .badRequest)
        }
    }

    @Test func anotherUsersVisitIsNotFoundLikeAMadeUpOne() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, ken) = try await VisitTestApp.twoUsers(browser)
            let kens = try await VisitTestApp.create(ken)
            let photo = try await ken.upload("/api/v1/visits/\(kens.id)/photos", data: VisitTestApp.png, contentType: "image/png")
            let photoID = try APIClient.decode(VisitPhotoRef.self, photo).id
            for id in [kens.id, "made-up-id"] {
                #expect(try await aiko.call(.get, "/api/v1/visits/\(id)").status == .notFound)
                #expect(try await aiko.call(.put, "/api/v1/visits/\(id)", json: VisitTestApp.visit("mine now")).status == .notFound)
                #expect(try await aiko.call(.delete, "/api/v1/visits/\(id)").status == .notFound)
                #expect(try await aiko.call(.get, "/api/v1/visits/\(id)/history").status == .notFound)
                #expect(try await aiko.upload("/api/v1/visits/\(id)/photos", data: VisitTestApp.png, contentType: "image/png").status == .notFound)
                #expect(try await aiko.call(.get, "/api/v1/visits/\(id)/photos/\(photoID)").status == .notFound)
                #expect(try await aiko.call(.delete, "/api/v1/visits/\(id)/photos/\(photoID)").status == .notFound)
            }
            #expect(try await aiko.call(.get, "/api/v1/visits/map").body == "[]")
            // Ken's visit is untouched and his log intact; the web page is 404 for Aiko too.
            let still = try APIClient.decode(VisitResponse.self, try await ken.call(.get, "/api/v1/visits/\(kens.id)"))
            #expect(still.name == "Tokyo Station")
            #expect(still.photos.count == 1)
            #expect(try await VisitTestApp.verify(ken).intact)
            #expect(try await browser.get("/visits/\(kens.id)").status == .notFound)
            #expect(try await browser.get("/visits/\(kens.id)/edit").status == .notFound)
        }
    }

    @Test func badInputIsRefusedWithAClearMessageAndNothingIsWritten() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let latitude = try await api.call(.post, "/api/v1/visits", json: VisitTestApp.visit(lat: 91))
            #expect(latitude.status == .badRequest)
            #expect(latitude.body.contains("invalid_latitude"))
            let nan = try await api.call(.post, "/api/v1/visits", json: #"{"name":"x","latitude":NaN,"longitude":0}"#)
            #expect(nan.status == .badRequest)
            let nanString = try await api.call(.post, "/api/v1/visits", json: #"{"name":"x","latitude":"NaN","longitude":0}"#)
            #expect(nanString.status == .badRequest)
            let empty = try await api.call(.post, "/api/v1/visits", json: VisitTestApp.visit(" "))
            #expect(empty.status == .badRequest)
            #expect(empty.body.contains("name_required"))
            let longitude = try await api.call(.post, "/api/v1/visits", json: VisitTestApp.visit(lon: -181))
            #expect(longitude.body.contains("invalid_longitude"))
            #expect(try await api.call(.post, "/api/v1/visits", json: "not json").status == .badRequest)

            let visit = try await VisitTestApp.create(api)
            let big = Data(repeating: 1, count: VisitRules.maxPhotoBytes + 1)
            let oversized = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: big, contentType: "image/jpeg")
            #expect(oversized.status == .contentTooLarge)
            #expect(oversized.body.contains("photo_too_large"))
            let wrongType = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: Data("hello".utf8), contentType: "text/plain")
            #expect(wrongType.status == .unsupportedMediaType)
            let badEdit = try await api.call(.put, "/api/v1/visits/\(visit.id)", json: VisitTestApp.visit(lat: 91))
            #expect(badEdit.status == .badRequest)

            // Only the one good visit, unchanged, and one record.
            let list = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            #expect(list.count == 1)
            #expect(list.first?.photos.isEmpty == true)
            #expect(list.first?.revision == 1)
            #expect(try await VisitTestApp.verify(api).records == 1)

            // The web form says what is wrong and keeps what was typed.
            try await browser.get("/visits/new")
            let form = try await browser.post("/visits", form: ["name": "Somewhere", "latitude": "NaN", "longitude": "10"])
            #expect(form.status == .badRequest)
            #expect(form.body.contains("Latitude must be a number from -90 to 90."))
            #expect(form.body.contains("value=\"Somewhere\""))
        }
    }

    @Test func photosAreEncryptedAtRestAndComeBackIntact() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let token = try await browser.createToken()
            let api = APIClient(browser: browser, token: token)
            let visit = try await VisitTestApp.create(api)
            let uploaded = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: VisitTestApp.png, contentType: "image/png")
            #expect(uploaded.status == .created)
            let ref = try APIClient.decode(VisitPhotoRef.self, uploaded)
            let back = try await browser.client.executeRequest(uri: "/api/v1/visits/\(visit.id)/photos/\(ref.id)", method: .get,
                                                               headers: [.authorization: "Bearer \(token)"], body: nil)
            #expect(Data(buffer: back.body) == VisitTestApp.png)
            #expect(back.headers[.contentType] == "image/png")
            let row = try #require(try await core.database.sql.select().column("data").from("visit_photos").first())
            let stored = try row.decode(column: "data", as: Data.self)
            #expect(stored.range(of: VisitTestApp.png.prefix(8)) == nil)
            #expect(try await api.call(.delete, "/api/v1/visits/\(visit.id)/photos/\(ref.id)").status == .noContent)
            #expect(try await api.call(.get, "/api/v1/visits/\(visit.id)/photos/\(ref.id)").status == .notFound)
            #expect(try await VisitTestApp.verify(api).intact)
        }
    }

    @Test func theSigningKeyIsSealedInTheDatabaseAndNeverWrittenToAFile() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await VisitTestApp.create(api)
            let path = (core.config.dataDirectory as NSString).appendingPathComponent(VisitSigner.fileName)
            #expect(!FileManager.default.fileExists(atPath: path))
            let sealed = try await core.database.sql.raw("SELECT sealed FROM instance_secrets WHERE name = 'visits-signing-key'").first()?
                .decode(column: "sealed", as: Data.self)
            #expect(sealed != nil)
        }
    }

    @Test func exportThenImportGivesTheSameVisitsAndBadFilesLeaveNothing() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, ken) = try await VisitTestApp.twoUsers(browser)
            _ = try await VisitTestApp.create(aiko, VisitTestApp.visit(extra: #","altitude":12.5,"notes":"Met \"Ken\" & co.","address":{"country":"日本","region":"東京都","locality":"千代田区"}"#))
            _ = try await VisitTestApp.create(aiko, #"{"name":"Sydney <Opera>","latitude":-33.8568,"longitude":151.2153,"simulated":true,"visitedAt":"2023-01-02T03:04:05Z"}"#)
            let fields: (APIClient) async throws -> [VisitFields] = { api in
                try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits")).map {
                    VisitFields(visitedAt: $0.visitedAt, latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy, altitude: $0.altitude,
                                simulated: $0.simulated, name: $0.name, address: $0.address, labels: $0.labels, group: $0.group,
                                companions: $0.companions, notes: $0.notes)
                }
            }
            let original = try await fields(aiko)
            for format in ["geojson", "gpx"] {
                let exported = try await aiko.call(.get, "/api/v1/visits/export?format=\(format)")
                #expect(exported.status == .ok)
                let type = format == "gpx" ? "application/gpx+xml" : "application/geo+json"
                let imported = try await ken.call(.post, "/api/v1/visits/import", json: exported.body, contentType: type)
                #expect(imported.status == .created)
                #expect(try APIClient.decode(ImportResponse.self, imported).imported == 2)
                #expect(try await fields(ken) == original)
                for visit in try APIClient.decode([VisitResponse].self, try await ken.call(.get, "/api/v1/visits")) {
                    #expect(try await ken.call(.delete, "/api/v1/visits/\(visit.id)").status == .noContent)
                }
            }
            let geojson = try await aiko.call(.get, "/api/v1/visits/export?format=geojson")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(geojson.body.utf8)) as? [String: Any])
            let chain = try #require(object["hibi"] as? [String: Any])
            #expect((chain["records"] as? [Any])?.count == 2)
            #expect(chain["publicKey"] is String)

            let broken = geojson.body.replacingOccurrences(of: "151.2153", with: "251.2153")
            let refused = try await ken.call(.post, "/api/v1/visits/import", json: broken, contentType: "application/geo+json")
            #expect(refused.status == .unprocessableContent)
            #expect(refused.body.contains("features[") && refused.body.contains("Longitude"))
            let badXML = try await ken.call(.post, "/api/v1/visits/import", json: "<gpx>\n<wpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</time><name>ok</name></wpt>\n<wpt lat=\"1\" lon=\"2\"><time>yesterday</time><name>x</name></wpt>\n</gpx>",
                                            contentType: "application/gpx+xml")
            #expect(badXML.status == .unprocessableContent)
            #expect(badXML.body.contains("line 3"))
            #expect(try await fields(ken).isEmpty)
            #expect(try await VisitTestApp.verify(ken).intact)
        }
    }

    @Test func mapStatsAndPagesShowTheVisits() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await VisitTestApp.create(api)
            _ = try await VisitTestApp.create(api)
            let points = try APIClient.decode([MapPoint].self, try await api.call(.get, "/api/v1/visits/map"))
            #expect(points.count == 2)
            // The map page's compact columns carry the same points, and each short id opens its visit.
            let compact = try APIClient.decode(CompactMap.self, try await api.call(.get, "/api/v1/visits/map?format=compact"))
            #expect(compact.count == 2 && compact.names == ["Tokyo Station"])
            for (index, point) in points.enumerated() {
                let prefix = String(Array(compact.ids)[(index * compact.idLength)..<((index + 1) * compact.idLength)])
                let opened = try await browser.get("/visits/\(prefix)")
                #expect(opened.status == .found && opened.location == "/visits/\(point.id)", "\(prefix) opens \(point.id)")
            }
            #expect(try await browser.get("/visits/zzzzzzzz").status == .notFound)
            #expect(try await browser.get("/visits/%25%25%25%25%25%25").status == .notFound, "a LIKE wildcard finds nothing")
            let stats = try APIClient.decode(PlaceStats.self, try await api.call(.get, "/api/v1/visits/stats"))
            #expect(stats.topPlaces.first == .init(name: "Tokyo Station", count: 2, latitude: 35.681236, longitude: 139.767125))
            #expect(stats.perMonth == [.init(month: "2024-05", count: 2)])

            let list = try await browser.get("/visits")
            #expect(list.status == .ok)
            #expect(list.body.contains("Tokyo Station"))
            #expect(try await browser.get("/visits/places").body.contains("2024-05"))
            let verify = try await browser.get("/visits/verify")
            #expect(verify.body.contains("Consistent with itself: 2 records"))
            browser.acceptLanguage = "ja"
            try await browser.post("/language", form: ["language": "ja"])
            #expect(try await browser.get("/visits/verify").body.contains("ログ自体に矛盾はありません"))
        }
    }

    @Test func webFormCreatesAndEditsAVisit() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            try await browser.get("/visits/new")
            let created = try await browser.post("/visits", form: [
                "name": "Kyoto Tower", "visited_at": "2024-05-01T10:00", "latitude": "34.9875", "longitude": "135.7592",
                "accuracy": "15", "labels": "tower、view", "group": "Kansai", "region": "京都府", "locality": "京都市",
            ])
            #expect(created.status == .found)
            let location = try #require(created.location)
            let detail = try await browser.get(location)
            #expect(detail.body.contains("Kyoto Tower"))
            // Asia/Tokyo is the user's zone: 10:00 there is 01:00 UTC.
            let id = String(location.split(separator: "/").last!.split(separator: "?").first!)
            try await browser.get("/visits/\(id)/edit")
            let edited = try await browser.post("/visits/\(id)", form: ["name": "Kyoto Tower (night)", "visited_at": "2024-05-01T21:00",
                                                                       "latitude": "34.9875", "longitude": "135.7592"])
            #expect(edited.status == .found)
            let page = try await browser.get("/visits/\(id)")
            #expect(page.body.contains("Kyoto Tower (night)"))
            #expect(page.body.contains("#2"))
            let deleted = try await browser.post("/visits/\(id)/delete", form: [:])
            #expect(deleted.location == "/visits?deleted=1")
            #expect(try await browser.get("/visits/verify").body.contains("Consistent with itself: 3 records"))
        }
    }
}
