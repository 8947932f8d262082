import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

/// The attacks of "No request can take Hibi down", each performed through the real router and each
/// followed by a request that must still be served.
@Suite struct CrashAttackTests {
    /// The five lines that made Foundation's XMLParser (libxml2) fault: an attribute default in the DTD.
    static let attlistGPX = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [ <!ATTLIST gpx version CDATA #REQUIRED> ]>
        <gpx version="1.1" creator="x"><wpt lat="35.0" lon="139.0"><time>2024-05-01T09:30:00Z</time>
        <name>Shrine &amp; garden</name><desc><![CDATA[steps ]]]]><![CDATA[> and gates]]></desc></wpt></gpx>
        """

    static func stillServing(_ browser: Browser) async throws {
        #expect(try await browser.get("/healthz").status == .ok)
    }

    @Test func gpxWithAnAttributeListInItsDTDImportsThroughTheAPIAndThePage() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let viaToken = try await api.call(.post, "/api/v1/visits/import", body: Data(Self.attlistGPX.utf8), contentType: "application/gpx+xml")
            #expect(viaToken.status == .created)
            #expect(try APIClient.decode(ImportResponse.self, viaToken).imported == 1)
            // The import page posts the file with the session cookie and the page's CSRF header.
            try await browser.get("/visits/transfer")
            let csrf = try #require(browser.csrf)
            let viaPage = try await browser.send("/api/v1/visits/import", method: .post,
                                                 headers: [.contentType: "application/gpx+xml", .csrfToken: csrf],
                                                 body: ByteBuffer(string: Self.attlistGPX))
            #expect(viaPage.status == .created)
            // The same file twice: the second import finds its visit already there (issue 29) and adds nothing.
            #expect(try APIClient.decode(ImportResponse.self, viaPage).imported == 0)
            let visits = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            #expect(visits.count == 1)
            #expect(visits.allSatisfy { $0.name == "Shrine & garden" && $0.notes == "steps ]]> and gates" })
            try await Self.stillServing(browser)
        }
    }

    @Test func aHugePageNumberShowsTheLastPageOnTheWebAndIsRefusedByTheAPI() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-01T10:00:00Z","text":"one"}"#).status == .created)
            try await browser.unlockDiary()
            let page = try await browser.get("/diary?page=9223372036854775807")
            #expect(page.status == .ok)
            #expect(try await browser.get("/diary?page=-9223372036854775808").body.contains("one"))
            let refused = try await api.call(.get, "/api/v1/diary/entries?page=9223372036854775807")
            #expect(refused.status == .badRequest)
            #expect(refused.body.contains("invalid_parameter"))
            #expect(try await api.call(.get, "/api/v1/health/records?offset=99999999999999999999").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/visits?from=2024-99999999999999-01").status == .badRequest)
            // NUL in a filter: PostgreSQL cannot compare text with it (schemathesis found the 500).
            let nul = try await api.call(.get, "/api/v1/diary/entries?tag=%00&q=")
            #expect(nul.status == .badRequest)
            #expect(nul.body.contains("invalid_parameter"))
            try await Self.stillServing(browser)
        }
    }

    // MARK: bodies only for someone allowed to send them

    static func bigMultipart(firstPart: String, size: Int) -> (ByteBuffer, String) {
        let boundary = "attack-\(UUID().uuidString)"
        var body = ByteBuffer()
        body.writeString("--\(boundary)\r\n\(firstPart)\r\n")
        body.writeRepeatingByte(0x41, count: size)
        body.writeString("\r\n--\(boundary)--\r\n")
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    @Test func anonymousUploadsAreRefusedBeforeTheirBodyIsRead() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.signOut()
            let (body, type) = Self.bigMultipart(firstPart: "Content-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n", size: 20 << 20)
            for path in ["/diary/import", "/diary/new", "/visits", "/settings/profile"] {
                let page = try await browser.send(path, method: .post, headers: [.contentType: type], body: body)
                #expect(page.status == .unauthorized, "\(path)")
            }
            let api = try await browser.send("/api/v1/visits/import", method: .post, headers: [.contentType: "application/gpx+xml"], body: body)
            #expect(api.status == .unauthorized)
            // Sign-in forms stay small: a large anonymous form is refused, not parsed.
            try await browser.get("/login")
            var form = ByteBuffer(string: "_csrf=\(browser.csrf ?? "")&username=aiko&password=")
            form.writeRepeatingByte(0x61, count: 1 << 20)
            let login = try await browser.send("/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: form)
            #expect(login.status == .contentTooLarge)
            try await Self.stillServing(browser)
        }
    }

    @Test func aSignedInFormMustLeadWithItsToken() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            // A file first: the middleware reads no further than a small first part and refuses.
            let (fileFirst, type) = Self.bigMultipart(firstPart: "Content-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n", size: 8 << 20)
            #expect(try await browser.send("/diary/import", method: .post, headers: [.contentType: type], body: fileFirst).status == .forbidden)
            // The wrong token first.
            let (wrong, wrongType) = Self.bigMultipart(firstPart: "Content-Disposition: form-data; name=\"_csrf\"\r\n\r\nnot-the-token", size: 10)
            #expect(try await browser.send("/diary/import", method: .post, headers: [.contentType: wrongType], body: wrong).status == .forbidden)
            // The right token first: the route reads the rest (here an archive that is not one).
            try await browser.get("/diary/data")
            let page = try await browser.postMultipart("/diary/import", fields: [:], files: ["file": ("diary.json", Data("{}".utf8))])
            #expect(page.status == .badRequest || page.status == .unprocessableContent)
            #expect(page.body.contains("Hibi"))
            try await Self.stillServing(browser)
        }
    }

    // MARK: races between writes of one's own records

    /// Sends all requests at once on the same client; answers come back in request order.
    static func concurrently(_ browser: Browser, token: String, _ requests: [(HTTPRequest.Method, String, String?)]) async throws -> [HTTPResponse.Status] {
        try await withThrowingTaskGroup(of: (Int, HTTPResponse.Status).self) { group in
            for (index, (method, uri, json)) in requests.enumerated() {
                group.addTask {
                    var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                    if json != nil { headers[.contentType] = "application/json" }
                    let response = try await browser.client.executeRequest(uri: uri, method: method, headers: headers,
                                                                           body: json.map { ByteBuffer(string: $0) })
                    return (index, response.status)
                }
            }
            var statuses = [HTTPResponse.Status](repeating: .ok, count: requests.count)
            for try await (index, status) in group { statuses[index] = status }
            return statuses
        }
    }

    static func expectNoServerError(_ statuses: [HTTPResponse.Status], _ what: String) {
        for status in statuses { #expect(status.code < 500, "\(what): \(status)") }
    }

    @Test func updatesRacingADeleteNeverFailTheServer() async throws {
        // A database file as in production (in-memory SQLite shares one cache, whose table locks do not wait).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-race-\(UUID().uuidString)").path
        let database: DatabaseLocation? = TestApp.postgresURL == nil ? .sqliteFile(path: directory + "/hibi.sqlite") : nil
        try await TestApp.run(config: try await TestApp.config(dataDirectory: directory, database: database)) { browser in
            try await browser.setUp()
            let token = try await browser.createToken()
            let api = APIClient(browser: browser, token: token)
            let start = Date().addingTimeInterval(-3600).formatted(.iso8601)
            for round in 0..<5 {
                // Health records: three PUTs and one DELETE at the same moment.
                let created = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":\#(100 + round),"start":"\#(start)"}"#)
                let record = try APIClient.decode(HealthRecordCreated.self, created).record
                let put = #"{"type":"steps","value":\#(200 + round),"start":"\#(start)"}"#
                Self.expectNoServerError(try await Self.concurrently(browser, token: token, [
                    (.put, "/api/v1/health/records/\(record.id)", put), (.put, "/api/v1/health/records/\(record.id)", put),
                    (.delete, "/api/v1/health/records/\(record.id)", nil), (.put, "/api/v1/health/records/\(record.id)", put),
                ]), "health record")
                // Goals: created while deleted.
                let goal = try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10000,"deadline":"2030-01-01T00:00:00Z"}"#)
                let goalID = try #require(try JSONSerialization.jsonObject(with: Data(goal.body.utf8)) as? [String: Any])["id"] as? String
                Self.expectNoServerError(try await Self.concurrently(browser, token: token, [
                    (.delete, "/api/v1/health/goals/\(goalID ?? "")", nil),
                    (.post, "/api/v1/health/goals", #"{"type":"steps","targetValue":9000,"deadline":"2030-01-01T00:00:00Z"}"#),
                    (.delete, "/api/v1/health/goals/\(goalID ?? "")", nil),
                ]), "goal")
                // Visits: edits racing a delete.
                let visit = try await VisitTestApp.create(api)
                Self.expectNoServerError(try await Self.concurrently(browser, token: token, [
                    (.put, "/api/v1/visits/\(visit.id)", VisitTestApp.visit("A")), (.delete, "/api/v1/visits/\(visit.id)", nil),
                    (.put, "/api/v1/visits/\(visit.id)", VisitTestApp.visit("B")),
                ]), "visit")
                // Diary entries: patches racing a delete.
                let entry = try APIClient.decode(DiaryEntryResponse.self,
                                                 try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-01T10:00:00Z","text":"race \#(round)"}"#))
                Self.expectNoServerError(try await Self.concurrently(browser, token: token, [
                    (.patch, "/api/v1/diary/entries/\(entry.id)", #"{"text":"one"}"#), (.delete, "/api/v1/diary/entries/\(entry.id)", nil),
                    (.patch, "/api/v1/diary/entries/\(entry.id)", #"{"text":"two"}"#),
                ]), "diary entry")
                // Playlists: renames racing a delete.
                let playlist = try await api.call(.post, "/api/v1/playlists", json: #"{"name":"Road trip"}"#)
                let playlistID = (try JSONSerialization.jsonObject(with: Data(playlist.body.utf8)) as? [String: Any])?["id"] as? String ?? ""
                Self.expectNoServerError(try await Self.concurrently(browser, token: token, [
                    (.patch, "/api/v1/playlists/\(playlistID)", #"{"name":"A"}"#), (.delete, "/api/v1/playlists/\(playlistID)", nil),
                    (.patch, "/api/v1/playlists/\(playlistID)", #"{"name":"B"}"#),
                ]), "playlist")
            }
            try await Self.stillServing(browser)
        }
    }

    struct HealthRecordCreated: Decodable {
        struct Record: Decodable { let id: String }
        let record: Record
    }
}

/// Imports that cost memory or time beyond their size are refused, and a crash-looping import is given up.
@Suite(.serialized) struct BoundedImportTests {
    static func export(metadataEntries: Int, valueBytes: Int) -> String {
        let value = String(repeating: "x", count: valueBytes)
        let entries = (0..<metadataEntries).map { #"  <MetadataEntry key="k\#($0)" value="\#(value)"/>"# }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" startDate="2024-05-01 08:00:00 +0900" endDate="2024-05-01 08:10:00 +0900" value="120"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" startDate="2024-05-01 09:00:00 +0900" endDate="2024-05-01 09:10:00 +0900" value="130">
            \(entries)
             </Record>
            </HealthData>
            """
    }

    func importText(_ text: String) async throws -> (ImportJob?, (any Error)?, HealthService, AppCore) {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let health = core.features.health.service
        let importer = core.features.health.importer
        let path = try ExportFixtures.write(text)
        let job = try await importer.prepare(path: path, fileName: "export.xml", user: user, uploadPath: nil, now: Date())
        do {
            _ = try await importer.run(job: job, path: path, user: user)
            return (try await health.jobs.find(id: job.id, userID: user.id), nil, health, core)
        } catch {
            return (try await health.jobs.find(id: job.id, userID: user.id), error, health, core)
        }
    }

    @Test func aMetadataBombIsRefusedWithItsLineAndKeepsWhatCameBefore() async throws {
        // 300 entries of 1 MB each in a 300 KB ZIP once cost 1.3 GB; each value is now refused past 16 KB.
        let (bigJob, bigError, _, bigCore) = try await importText(Self.export(metadataEntries: 3, valueBytes: 100_000))
        #expect(bigJob?.state == .failed)
        #expect((bigError as? HealthError)?.code == "malformed_file")
        #expect(bigJob?.errorMessage?.en.contains("too large") == true)
        await bigCore.database.shutdown()
        // Many small entries: refused by count, the first record kept.
        let (job, error, _, core) = try await importText(Self.export(metadataEntries: 300, valueBytes: 10))
        #expect((error as? HealthError)?.code == "too_much_metadata")
        #expect(job?.state == .failed)
        #expect(job?.inserted == 1)
        #expect(job?.errorMessage?.en.contains("more metadata than Hibi keeps") == true)
        await core.database.shutdown()
    }

    @Test func anImportThatStoppedTheServerTwiceIsNotResumedAgain() async throws {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let health = core.features.health.service
        let importer = core.features.health.importer
        let path = try ExportFixtures.write(Self.export(metadataEntries: 1, valueBytes: 10))
        let job = try await importer.prepare(path: path, fileName: "export.xml", user: user, uploadPath: path, now: Date())
        // Two runs that started and never finished, as after two out-of-memory kills.
        try await health.jobs.startAttempt(job.id)
        try await health.jobs.startAttempt(job.id)
        let service = HealthBackgroundService(health: health, importer: importer,
                                              sender: ReminderSender(reminders: health.reminders, logger: TestApp.quietLogger),
                                              users: core.users,
                                              launcher: HealthImportLauncher(importer: importer, leases: JobLeases(database: core.database, holder: core.instanceID),
                                                                             logger: TestApp.quietLogger),
                                              logger: TestApp.quietLogger)
        await service.resumeInterrupted()
        let after = try #require(try await health.jobs.find(id: job.id, userID: user.id))
        #expect(after.state == .failed)
        #expect(after.errorMessage?.en.contains("stopped the server twice") == true)
        #expect(after.inserted == 0)
        await core.database.shutdown()
    }

    @Test func oneHeavyImportPerPersonAtATime() async throws {
        let work = HeavyWork(slots: 1)
        let (startedStream, started) = AsyncStream.makeStream(of: Void.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await work.exclusive(userID: "aiko") {
                started.yield()
                for await _ in gate { break }
                return 1
            }
        }
        for await _ in startedStream { break }
        await #expect(throws: RequestError.busy) { try await work.run(userID: "aiko") { 2 } }
        // Someone else waits for the slot instead of being refused.
        let other = Task { try await work.run(userID: "ken") { 3 } }
        open.yield()
        #expect(try await first.value == 1)
        #expect(try await other.value == 3)
        #expect(!work.isBusy(userID: "aiko"))
    }
}
