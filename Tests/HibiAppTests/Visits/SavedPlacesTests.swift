import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Issue 32, item 4: Google Maps' "Saved Places.json" (Takeout → Maps (your places)) becomes saved places,
/// not visits; a person turns one into a signed visit when they say when they were there.
@Suite struct GoogleSavedPlacesLogicTests {
    static func fixture(_ name: String) throws -> Data { try LocationAPITests.fixture(name) }
    static func kind(_ report: ImportReport) -> ImportReport.Kind? { report.kinds.first { $0.kind == GoogleSavedPlaces.kind } }

    @Test func theOlderLayoutIsReadWithNameAddressLinkAndSavedTime() throws {
        let (places, report) = try GoogleSavedPlaces.parse(try Self.fixture("google-saved-places-2018.json"))
        #expect(places.map(\.name) == ["LimeRed Teahouse", "The Greater Boston Food Bank", "Hopewell Bar & Kitchen"])
        let first = try #require(places.first)
        #expect(first.address == "1092 Commonwealth Avenue, Boston, MA 02215, United States")
        #expect(first.latitude == 42.3518558 && first.longitude == -71.1242253)
        #expect(first.googleMapsURL == "http://maps.google.com/?cid=7925611542958117970")
        #expect(first.savedAt == Date(timeIntervalSince1970: 1_522_952_360))
        #expect(Self.kind(report)?.added == 3 && Self.kind(report)?.skipped.isEmpty == true)
    }

    @Test func theNewerLayoutSkipsPlacesAtZeroZeroWithThatReason() throws {
        let (places, report) = try GoogleSavedPlaces.parse(try Self.fixture("google-saved-places-organicmaps.json"))
        #expect(places == [SavedPlaceFields(name: "London Eye", address: "Riverside Building, County Hall, Westminster Bridge Rd, London SE1 7PB, United Kingdom",
                                            latitude: 51.5031864, longitude: -0.1195192, googleMapsURL: "http://maps.google.com/?cid=4796882358840715922",
                                            note: "", savedAt: Date(timeIntervalSince1970: 1_763_370_364))])
        #expect(Self.kind(report)?.skipped == [ImportReport.Skip(reason: .noPosition, count: 2, firstAt: "features[1]")])
        #expect(report.lines(.en) == ["Saved places: 1 added, 2 skipped: no position (written at [0, 0]: Google could not place it) (first at features[1])"])
        #expect(report.lines(.ja).first?.contains("位置なし") == true)
    }

    @Test func outOfRangeAndRepeatedPlacesAreSaidNotStored() throws {
        let file = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","geometry":{"type":"Point","coordinates":[139.7671248,35.6812362]},"properties":{"location":{"name":"Tokyo Station"},"Comment":"meet at the Marunouchi side"}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[139.7671248,95.0]},"properties":{"location":{"name":"Beyond the pole"}}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[200,35]},"properties":{"location":{"name":"Off the map"}}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[139.7671248,35.6812362]},"properties":{"location":{"name":"tokyo station"}}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[139.70,35.66]},"properties":{"location":{"address":"Shibuya"}}},
         {"type":"Feature","properties":{"location":{"name":"No geometry"}}}
        ]}
        """
        let (places, report) = try GoogleSavedPlaces.parse(Data(file.utf8))
        #expect(places.map(\.name) == ["Tokyo Station", "Shibuya"])
        #expect(places.first?.note == "meet at the Marunouchi side")
        let kind = try #require(Self.kind(report))
        #expect(kind.added == 2 && kind.duplicates == 1)
        #expect(kind.skipped == [ImportReport.Skip(reason: .outOfRange, count: 2, firstAt: "features[1]"),
                                 ImportReport.Skip(reason: .missingValue, count: 1, firstAt: "features[5]")])
        #expect(throws: VisitError.self) { _ = try GoogleSavedPlaces.parse(Data(#"{"type":"Feature"}"#.utf8)) }
    }

    @Test func theDialectIsToldFromEitherLayout() throws {
        #expect(VisitFormats.geoJSONDialect(try Self.fixture("google-saved-places-2018.json")) == .googleSavedPlaces)
        #expect(VisitFormats.geoJSONDialect(try Self.fixture("google-saved-places-organicmaps.json")) == .googleSavedPlaces)
    }
}

@Suite(.serialized) struct SavedPlacesAPITests {
    static func importFile(_ api: APIClient, _ name: String) async throws -> ImportResponse {
        let page = try await api.call(.post, "/api/v1/visits/import", body: try GoogleSavedPlacesLogicTests.fixture(name), contentType: "application/json")
        guard page.status == .created else { throw TestFailure("import \(name): \(page.status) \(page.body)") }
        return try APIClient.decode(ImportResponse.self, page)
    }

    static func list(_ api: APIClient, _ query: String = "") async throws -> SavedPlaceListResponse {
        try APIClient.decode(SavedPlaceListResponse.self, try await api.call(.get, "/api/v1/visits/saved-places" + query))
    }

    @Test func bothLayoutsImportAsSavedPlacesOnceAndNoVisitIsMade() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let old = try await Self.importFile(api, "google-saved-places-2018.json")
            #expect(old.dialect == "google-saved-places" && old.savedPlaces == 3 && old.imported == 0)
            #expect(old.summary?.first?.contains("Google Maps saved places") == true)
            let new = try await Self.importFile(api, "google-saved-places-organicmaps.json")
            #expect(new.savedPlaces == 1)
            #expect(GoogleSavedPlacesLogicTests.kind(try #require(new.report))?.skipped.first?.reason == .noPosition)
            // Again: nothing added, each one said to be there already.
            let again = try await Self.importFile(api, "google-saved-places-2018.json")
            #expect(again.savedPlaces == 0)
            #expect(GoogleSavedPlacesLogicTests.kind(try #require(again.report))?.duplicates == 3)
            #expect(again.summary?.contains("Saved places: 0 added, 3 already there") == true)
            let list = try await Self.list(api)
            #expect(list.total == 4 && list.places.count == 4)
            // Newest saved first.
            #expect(list.places.first?.name == "London Eye")
            #expect(try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits")).isEmpty)
            // Paged: two at a time, and a page size out of range is a 400 that names it.
            let firstTwo = try await Self.list(api, "?perPage=2")
            let nextTwo = try await Self.list(api, "?perPage=2&page=2")
            #expect(firstTwo.places.count == 2 && nextTwo.places.count == 2 && firstTwo.total == 4)
            #expect(Set(firstTwo.places.map(\.id)).isDisjoint(with: nextTwo.places.map(\.id)))
            let bad = try await api.call(.get, "/api/v1/visits/saved-places?perPage=0")
            #expect(bad.status == .badRequest && bad.body.contains("perPage"))
        }
    }

    @Test func loggingAVisitHereSignsAVisitIntoTheChain() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await Self.importFile(api, "google-saved-places-2018.json")
            let place = try #require(try await Self.list(api).places.first { $0.name == "Hopewell Bar & Kitchen" })
            let page = try await api.call(.post, "/api/v1/visits/saved-places/\(place.id)/visits", json: #"{"visitedAt":"2024-06-01T19:30:00Z","notes":"dinner"}"#)
            #expect(page.status == .created, "\(page.body)")
            let visit = try APIClient.decode(VisitResponse.self, page)
            #expect(visit.name == "Hopewell Bar & Kitchen" && visit.latitude == 42.3496665 && visit.longitude == -71.1331486)
            #expect(visit.visitedAt == Date(timeIntervalSince1970: 1_717_270_200) && visit.notes == "dinner")
            #expect(visit.address?.street == "1277 Commonwealth Avenue, Allston, MA 02134, United States")
            // Without a time it is now; the place stays for the next visit.
            let now = try APIClient.decode(VisitResponse.self, try await api.call(.post, "/api/v1/visits/saved-places/\(place.id)/visits", json: "{}"))
            #expect(abs(now.visitedAt.timeIntervalSinceNow) < 120)
            let verify = try await VisitTestApp.verify(api)
            #expect(verify.intact && verify.records == 2)
            let history = try await api.call(.get, "/api/v1/visits/\(visit.id)/history")
            #expect(history.status == .ok && history.body.contains("Hopewell"))
            // A time that is not one is a 400 in the reader's words.
            let bad = try await api.call(.post, "/api/v1/visits/saved-places/\(place.id)/visits", json: #"{"visitedAt":"yesterday"}"#)
            #expect(bad.status == .badRequest)
            #expect(try await VisitTestApp.verify(api).records == 2)
        }
    }

    @Test func anotherPersonCannotSeeDeleteOrLogAVisitAtYourPlace() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, ken) = try await VisitTestApp.twoUsers(browser)
            _ = try await Self.importFile(aiko, "google-saved-places-organicmaps.json")
            let place = try #require(try await Self.list(aiko).places.first)
            #expect(try await Self.list(ken).total == 0)
            let read = try await ken.call(.get, "/api/v1/visits/saved-places/\(place.id)")
            #expect(read.status == .notFound && read.body.contains("saved_place_not_found"))
            #expect(try await ken.call(.delete, "/api/v1/visits/saved-places/\(place.id)").status == .notFound)
            #expect(try await ken.call(.post, "/api/v1/visits/saved-places/\(place.id)/visits", json: "{}").status == .notFound)
            #expect(try await VisitTestApp.verify(ken).records == 0)
            // The same file is Ken's to import too: his own copy, not "already there".
            #expect(try await Self.importFile(ken, "google-saved-places-organicmaps.json").savedPlaces == 1)
            // Aiko's place is still hers, and she can remove it.
            #expect(try await aiko.call(.get, "/api/v1/visits/saved-places/\(place.id)").status == .ok)
            #expect(try await aiko.call(.delete, "/api/v1/visits/saved-places/\(place.id)").status == .noContent)
            #expect(try await aiko.call(.get, "/api/v1/visits/saved-places/\(place.id)").status == .notFound)
            #expect(try await Self.list(ken).total == 1)
        }
    }

    @Test func thePageListsLogsAndRefusesAnotherPersonsPlace() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, ken) = try await VisitTestApp.twoUsers(browser)
            let empty = try await ken.browser.get(VisitPaths.savedPlaces)
            #expect(empty.status == .ok && empty.body.contains("saved-places-empty"))
            _ = try await Self.importFile(aiko, "google-saved-places-2018.json")
            let page = try await browser.get(VisitPaths.savedPlaces)
            #expect(page.body.contains("LimeRed Teahouse") && page.body.contains(#"href="\#(VisitPaths.savedPlaces)""#))
            // Past the last page: the way back, not "no saved places yet".
            let past = try await browser.get(VisitPaths.savedPlacesPage(9))
            #expect(past.status == .ok && !past.body.contains("saved-places-empty") && past.body.contains(#"id="newer""#))
            let place = try #require(try await Self.list(aiko).places.first)
            let logged = try await browser.post(VisitPaths.savedPlaceVisit(place.id), form: ["visitedAt": "2024-05-01T12:30"])
            #expect(logged.status == .found)
            let visitPath = try #require(logged.location)
            #expect(try await browser.get(visitPath).body.contains(place.name))
            let wrong = try await browser.post(VisitPaths.savedPlaceVisit(place.id), form: ["visitedAt": "not a time"])
            #expect(wrong.status == .badRequest && wrong.body.contains("visitedAt"))
            // Ken's browser, Aiko's place: not found, and nothing is logged or removed.
            _ = try await ken.browser.get(VisitPaths.savedPlaces)
            #expect(try await ken.browser.post(VisitPaths.savedPlaceVisit(place.id), form: ["visitedAt": "2024-05-01T12:30"]).status == .notFound)
            #expect(try await ken.browser.post(VisitPaths.deleteSavedPlace(place.id), form: [:]).status == .notFound)
            #expect(try await Self.list(aiko).total == 3)
            #expect(try await browser.post(VisitPaths.deleteSavedPlace(place.id), form: [:]).location == VisitPaths.savedPlaceDeleted)
            #expect(try await Self.list(aiko).total == 2)
        }
    }

    @Test func aTakeoutCarriesSavedPlacesIntoAnotherAccountOnce() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.post("/admin/users", form: ["username": "mio", "password": "mios password!"])
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await Self.importFile(api, "google-saved-places-2018.json")
            _ = try await Self.importFile(api, "google-saved-places-organicmaps.json")
            let takeout = try await api.call(.get, "/api/v1/me/export")
            let file = try #require(try ZipReader(data: takeout.data, maxTotalBytes: 1 << 30).contents(of: "visits/saved-places.geojson"))
            #expect(VisitFormats.geoJSONDialect(file) == .googleSavedPlaces)

            let mio = Browser(client: browser.client)
            _ = try await mio.signIn(username: "mio", password: "mios password!")
            try await mio.unlockDiary(password: "mios password!")
            let mioAPI = APIClient(browser: mio, token: try await mio.createToken(name: "mio", scopes: .all, password: "mios password!"))
            let result = try await mioAPI.call(.post, "/api/v1/me/import", body: takeout.data, contentType: "application/zip")
            #expect(result.status == .ok, "\(result.body)")
            #expect(try APIClient.decode(TakeoutService.ImportResult.self, result).savedPlaces == 4)
            let mine = try await Self.list(api).places, theirs = try await Self.list(mioAPI).places
            func facts(_ p: SavedPlaceResponse) -> String { "\(p.name)|\(p.address)|\(p.latitude)|\(p.longitude)|\(p.googleMapsUrl ?? "")|\(p.note)|\(p.savedAt?.timeIntervalSince1970 ?? -1)" }
            #expect(theirs.map(facts) == mine.map(facts))
            let again = try await mioAPI.call(.post, "/api/v1/me/import", body: takeout.data, contentType: "application/zip")
            #expect(try APIClient.decode(TakeoutService.ImportResult.self, again).savedPlaces == 0)
        }
    }
}

@Suite(.serialized) struct SavedPlacesStorageTests {
    @Test func aBackupRestoresSavedPlacesOnTheOtherEngineAndAccountDeletionTakesThem() async throws {
        let source = try BackupFixture.directory("saved-source"), target = try BackupFixture.directory("saved-target")
        let sourceConfig = try await BackupFixture.sqliteConfig(source)
        let core = try await AppCore.open(sourceConfig, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        let before = try await app.test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await SavedPlacesAPITests.importFile(api, "google-saved-places-2018.json")
            return try await SavedPlacesAPITests.list(api).places
        }
        await core.database.shutdown()
        #expect(before.count == 3)
        let archive = (source as NSString).appendingPathComponent("saved.hibi-backup")
        let manifest = try await BackupFixture.backup(sourceConfig, to: archive)
        #expect(manifest.tables.first { $0.name == "saved_places" }?.rows == 3)
        try BackupFixture.copyKeys(from: source, to: target)
        let targetConfig = try await BackupFixture.targetConfig(target)
        try await BackupFixture.restore(archive, into: targetConfig)

        let restored = try await AppCore.open(targetConfig, logger: TestApp.quietLogger)
        let restoredApp = await buildApplication(core: restored)
        try await restoredApp.test(.router) { client in
            let browser = Browser(client: client)
            #expect(try await browser.signIn(username: "aiko").status == .found)
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try await SavedPlacesAPITests.list(api).places == before)
            // Imported again after the restore: still nothing new.
            #expect(try await SavedPlacesAPITests.importFile(api, "google-saved-places-2018.json").savedPlaces == 0)
        }
        // An account that goes takes its saved places with it (ON DELETE CASCADE), on either engine.
        let database = try await Database.open(targetConfig.database, logger: TestApp.quietLogger)
        let count = { try await database.sql.raw("SELECT COUNT(*) AS n FROM saved_places").first()?.decode(column: "n", as: Int.self) }
        #expect(try await count() == 3)
        try await database.sql.delete(from: "users").where("username", .equal, "aiko").run()
        #expect(try await count() == 0)
        await database.shutdown()
    }

    @Test func theSchemaRefusesAnEmptyNameAndAPositionOffTheGlobe() async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        defer { Task { await core.database.shutdown() } }
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        func insert(name: String, latitude: Double, longitude: Double, key: String) async throws {
            try await core.database.sql.insert(into: "saved_places")
                .columns("id", "user_id", "name", "address", "latitude", "longitude", "note", "created_at", "dedupe_key")
                .values(SQLBind(UUID().uuidString), SQLBind(user.id), SQLBind(name), SQLBind(""), SQLBind(latitude), SQLBind(longitude),
                        SQLBind(""), SQLBind(Int64(0)), SQLBind(key)).run()
        }
        try await insert(name: "Tokyo Station", latitude: 35.68, longitude: 139.76, key: "a")
        await #expect(throws: (any Error).self) { try await insert(name: "  ", latitude: 35.68, longitude: 139.76, key: "b") }
        await #expect(throws: (any Error).self) { try await insert(name: "North", latitude: 90.5, longitude: 0, key: "c") }
        await #expect(throws: (any Error).self) { try await insert(name: "East", latitude: 0, longitude: 180.5, key: "d") }
        // One key per person: a second row for the same place is refused by the schema too.
        await #expect(throws: (any Error).self) { try await insert(name: "Tokyo Station", latitude: 35.68, longitude: 139.76, key: "a") }
    }
}
