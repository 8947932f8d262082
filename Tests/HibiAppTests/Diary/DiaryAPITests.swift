import Foundation
import HTTPTypes
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

@Suite(.serialized) struct DiaryWebTests {
    @Test func aNewSessionFindsTheDiaryLockedUntilUnlocked() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let locked = try await browser.get("/diary")
            #expect(locked.status == .found)
            #expect(locked.location?.hasPrefix("/diary/unlock") == true)
            let wrong = try await browser.post("/diary/unlock", form: ["password": "not my password", "next": "/diary"])
            #expect(wrong.status == .unauthorized)
            try await browser.unlockDiary()
            #expect(try await browser.get("/diary").status == .ok)
            try await browser.post("/diary/lock", form: [:])
            #expect(try await browser.get("/diary").status == .found)
        }
    }

    @Test func entryWithPhotoSuggestsAMoodThatTheUserConfirms() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            try await browser.get("/diary/new")
            let created = try await browser.postMultipart("/diary/new", fields: [
                "date": "2026-11-20", "time": "21:15", "text": "Picnic in the park with Ken", "tags": "picnic, friends", "mood": "",
            ], files: ["photo": ("me.jpg", TestImages.jpeg)])
            #expect(created.status == .found)
            let location = try #require(created.location)
            let entry = try await browser.get(location)
            #expect(entry.body.contains("Picnic in the park with Ken"))
            #expect(entry.body.contains("Suggested from your photo: 😊 clearly happy"))
            #expect(entry.body.contains("Mood not confirmed yet"))
            let id = String(location.split(separator: "/")[2].split(separator: "?")[0])
            // The user disagrees with the estimate and picks another mood; both are kept.
            try await browser.post("/diary/entries/\(id)/mood", form: ["mood": "surprise"])
            let confirmed = try await browser.get("/diary/entries/\(id)")
            #expect(confirmed.body.contains("Your mood: 😮 Surprised"))
            #expect(confirmed.body.contains("Suggested from your photo: 😊 clearly happy"))
            let stats = try await browser.get("/diary/stats")
            #expect(stats.body.contains(#"data-mood="surprise" data-count="1""#))
            #expect(stats.body.contains(#"data-mood="happiness" data-count="0""#))
            let calendar = try await browser.get("/diary/calendar?month=2026-11")
            #expect(calendar.body.contains(#"data-day="2026-11-20" style="--mood: #ae3ec9" data-mood="surprise""#))
            let photo = try await browser.get("/diary/entries/\(id)/photo")
            #expect(photo.status == .ok)
            #expect(photo.headers[.contentType] == "image/jpeg")
        }
    }

    @Test func badFormInputKeepsWhatWasTyped() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            try await browser.get("/diary/new")
            let notImage = try await browser.postMultipart("/diary/new", fields: ["date": "2026-11-20", "text": "keep me please"],
                                                           files: ["photo": ("x.gif", Data("GIF89a...".utf8))])
            #expect(notImage.status == .badRequest)
            #expect(notImage.body.contains("not a JPEG, PNG or WebP"))
            #expect(notImage.body.contains("keep me please"))
            let badDate = try await browser.postMultipart("/diary/new", fields: ["date": "2026-13-40", "text": "still here"])
            #expect(badDate.status == .badRequest)
            #expect(badDate.body.contains("still here"))
            let tooLong = try await browser.postMultipart("/diary/new", fields: ["date": "2026-11-20",
                                                                               "text": String(repeating: "a", count: DiaryRules.maxTextLength + 1)])
            #expect(tooLong.status == .badRequest)
            #expect(try await browser.get("/diary").body.contains("Your diary is empty"))
        }
    }
}

@Suite(.serialized) struct DiaryAPITests {
    func api(_ browser: Browser) async throws -> APIClient {
        try await browser.setUp()
        return APIClient(browser: browser, token: try await browser.createToken())
    }

    @Test func createListSearchFilterEditDelete() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let first = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-01T10:00:00Z","text":"Quiet morning at the café","tags":["coffee"],"confirmedMood":"neutral"}"#)
            #expect(first.status == .created)
            let firstID = try APIClient.decode(DiaryEntryResponse.self, first).id
            let photo = TestImages.png.base64EncodedString()
            let second = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-05T10:00:00Z","text":"Exam results came out!","photo":"\#(photo)"}"#)
            let secondEntry = try APIClient.decode(DiaryEntryResponse.self, second)
            #expect(secondEntry.estimatedMood == .surprise)
            #expect(secondEntry.estimatedConfidence == 0.7)
            #expect(secondEntry.confirmedMood == nil)

            let all = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            #expect(all.total == 2)
            #expect(all.entries.map(\.id) == [secondEntry.id, firstID])
            let search = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?q=CAFE"))
            #expect(search.entries.map(\.id) == [firstID])
            // Two words as a browser's search form sends them ("+" for the space).
            let twoWords = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?q=quiet+CAFE"))
            #expect(twoWords.entries.map(\.id) == [firstID])
            let byTag = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?tag=Coffee"))
            #expect(byTag.entries.map(\.id) == [firstID])
            let byMood = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?mood=neutral"))
            #expect(byMood.entries.map(\.id) == [firstID])
            let byDate = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?from=2026-11-04T00:00:00Z"))
            #expect(byDate.entries.map(\.id) == [secondEntry.id])
            let searchAndMood = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?q=exam&mood=neutral"))
            #expect(searchAndMood.total == 0)

            let patched = try await api.call(.patch, "/api/v1/diary/entries/\(secondEntry.id)", json: #"{"confirmedMood":"happiness","text":"Exam results: passed!"}"#)
            #expect(try APIClient.decode(DiaryEntryResponse.self, patched).confirmedMood == .happiness)
            // Search sees the edit at once.
            let found = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?q=passed"))
            #expect(found.entries.map(\.id) == [secondEntry.id])

            let stats = try APIClient.decode(MoodStatistics.self, try await api.call(.get, "/api/v1/diary/statistics"))
            #expect(stats.totalEntries == 2)
            #expect(stats.count(.happiness) == 1)
            #expect(stats.count(.neutral) == 1)

            #expect(try await api.call(.delete, "/api/v1/diary/entries/\(firstID)").status == .noContent)
            #expect(try await api.call(.get, "/api/v1/diary/entries/\(firstID)").status == .notFound)
        }
    }

    @Test func anotherUsersEntriesAreNotFound() async throws {
        try await TestApp.run { browser in
            let aiko = try await api(browser)
            let created = try await aiko.call(.post, "/api/v1/diary/entries", json: #"{"text":"private thoughts","photo":"\#(TestImages.jpeg.base64EncodedString())"}"#)
            let id = try APIClient.decode(DiaryEntryResponse.self, created).id
            try await browser.get("/admin/users")
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let kenBrowser = Browser(client: browser.client)
            _ = try await kenBrowser.signIn(username: "ken", password: "kens password!")
            let ken = APIClient(browser: kenBrowser, token: try await kenBrowser.createToken(password: "kens password!"))
            for (method, path, body) in [(HTTPRequest.Method.get, "/api/v1/diary/entries/\(id)", nil as String?),
                                         (.patch, "/api/v1/diary/entries/\(id)", #"{"text":"hacked"}"#),
                                         (.delete, "/api/v1/diary/entries/\(id)", nil),
                                         (.get, "/api/v1/diary/entries/\(id)/photo", nil)] {
                let page = try await ken.call(method, path, json: body)
                #expect(page.status == .notFound, "\(method) \(path)")
                #expect(!page.body.contains("private thoughts"))
            }
            #expect(try APIClient.decode(DiaryEntryPage.self, try await ken.call(.get, "/api/v1/diary/entries?q=private")).total == 0)
            try await kenBrowser.unlockDiary(password: "kens password!")
            #expect(try await kenBrowser.get("/diary/entries/\(id)").status == .notFound)
            #expect(try await kenBrowser.get("/diary/entries/\(id)/photo").status == .notFound)
            // Aiko's entry is untouched.
            #expect(try APIClient.decode(DiaryEntryResponse.self, try await aiko.call(.get, "/api/v1/diary/entries/\(id)")).text == "private thoughts")
        }
    }

    @Test func badInputIsRefusedClearly() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let long = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"\#(String(repeating: "x", count: DiaryRules.maxTextLength + 1))"}"#)
            #expect(long.status == .badRequest)
            #expect(long.body.contains("text_too_long"))
            let notImage = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"x","photo":"\#(Data("%PDF-1.7".utf8).base64EncodedString())"}"#)
            #expect(notImage.body.contains("photo_not_an_image"))
            let badDate = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"x","date":"yesterday"}"#)
            #expect(badDate.status == .badRequest)
            let future = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"x","date":"2999-01-01T00:00:00Z"}"#)
            #expect(future.body.contains("date_in_future"))
            let mood = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"x","confirmedMood":"ecstatic"}"#)
            #expect(mood.status == .badRequest)
            let range = try await api.call(.get, "/api/v1/diary/statistics?from=2026-11-10T00:00:00Z&to=2026-11-01T00:00:00Z")
            #expect(range.body.contains("invalid_date_range"))
            let perPage = try await api.call(.get, "/api/v1/diary/entries?perPage=5000")
            #expect(perPage.status == .badRequest)
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 0)
        }
    }

    @Test func textAndPhotosAreEncryptedAtRest() async throws {
        var config = try await TestApp.config()
        // A file, not the in-memory default, so a second connection sees the same rows.
        if TestApp.postgresURL == nil { config.database = .sqliteFile(path: config.dataDirectory + "/hibi.sqlite") }
        let fixed = config
        try await TestApp.run(config: fixed) { browser in
            let api = try await api(browser)
            let created = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"my secret crush","photo":"\#(TestImages.jpeg.base64EncodedString())"}"#)
            let id = try APIClient.decode(DiaryEntryResponse.self, created).id
            let database = try await Database.open(fixed.database, logger: TestApp.quietLogger)
            let row = try? await database.sql.select().column("text_sealed").from("diary_entries").where("id", .equal, id).first()
            await database.shutdown()
            let sealed = try #require(try row?.decode(column: "text_sealed", as: Data.self))
            #expect(sealed.range(of: Data("secret".utf8)) == nil)
            let photoDirectory = fixed.dataDirectory + "/diary-photos"
            let files = FileManager.default.subpaths(atPath: photoDirectory)?.filter { $0.hasSuffix(".sealed") } ?? []
            #expect(files.count == 1)
            let stored = try #require(FileManager.default.contents(atPath: photoDirectory + "/" + files[0]))
            #expect(stored.range(of: Data("fake jpeg body".utf8)) == nil)
        }
    }

    @Test func aBrokenImportChangesNothing() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let good = #"{"id":"\#(UUID().uuidString)","date":"2026-10-01T08:00:00Z","text":"ok","tags":[],"createdAt":"2026-10-01T08:00:00Z","updatedAt":"2026-10-01T08:00:00Z"}"#
            let bad = #"{"id":"\#(UUID().uuidString)","date":"2026-10-01T08:00:00Z","text":"","tags":[],"createdAt":"2026-10-01T08:00:00Z","updatedAt":"2026-10-01T08:00:00Z"}"#
            let file = #"{"format":"hibi-diary","version":1,"exportedAt":"2026-10-05T00:00:00Z","entries":[\#(good),\#(bad)]}"#
            let page = try await api.call(.post, "/api/v1/diary/import", json: file)
            #expect(page.status == .badRequest)
            #expect(page.body.contains("entry 2"))
            let notJSON = try await api.call(.post, "/api/v1/diary/import", json: "{not json")
            #expect(notJSON.status == .badRequest)
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 0)
        }
    }
}
