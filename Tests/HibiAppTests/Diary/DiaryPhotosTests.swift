import Foundation
import Crypto
import HTTPTypes
import Testing
@testable import HibiApp

/// Issue 19, item 15: several photos per entry, any photo; the mood comes from the one with a face; the
/// list grouped by day with thumbnails and its text as text.
@Suite struct DiaryPhotosTests {
    func api(_ browser: Browser) async throws -> APIClient {
        try await browser.setUp()
        return APIClient(browser: browser, token: try await browser.createToken())
    }

    static func photoFiles(_ config: AppConfig) -> [String] {
        let root = config.mediaDirectory + "/diary-photos"
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".sealed") }
    }

    @Test func severalPhotosAndTheMoodComesFromTheFirstWithAFace() async throws {
        let config = try await TestApp.config()
        try await TestApp.run(config: config) { browser in
            let api = try await api(browser)
            // A landscape first (no face), then a JPEG the fake engine reads as happy, then a PNG it reads as surprised.
            let photos = [TestImages.noFace, TestImages.jpeg, TestImages.png].map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",")
            let created = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-02T09:00:00Z","text":"Hike","photos":[\#(photos)]}"#)
            #expect(created.status == .created, "\(created.body)")
            let entry = try APIClient.decode(DiaryEntryResponse.self, created)
            #expect(entry.photos.count == 3)
            #expect(entry.photos.map(\.hasFace) == [false, true, true])
            #expect(entry.photos.map(\.moodSource) == [false, true, false])
            #expect(entry.estimatedMood == .happiness)
            for (photo, bytes) in zip(entry.photos, [TestImages.noFace, TestImages.jpeg, TestImages.png]) {
                let got = try await api.call(.get, photo.url)
                #expect(got.status == .ok)
                #expect(got.data == bytes)
            }
            #expect(Self.photoFiles(config).count == 3)

            // Removing the photo the mood came from reads it again from the next photo with a face.
            let patched = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.patch, "/api/v1/diary/entries/\(entry.id)",
                json: #"{"removePhotoIds":["\#(entry.photos[1].id)"]}"#))
            #expect(patched.photos.map(\.id) == [entry.photos[0].id, entry.photos[2].id])
            #expect(patched.estimatedMood == .surprise)
            #expect(patched.photos.map(\.moodSource) == [false, true])
            #expect(Self.photoFiles(config).count == 2)
            #expect(try await api.call(.get, entry.photos[1].url).status == .notFound)

            // Removing the rest leaves no estimate and no files; a photo id the entry does not have is a clear 404.
            let unknown = try await api.call(.patch, "/api/v1/diary/entries/\(entry.id)", json: #"{"removePhotoIds":["\#(UUID().uuidString.lowercased())"]}"#)
            #expect(unknown.status == .notFound)
            #expect(unknown.body.contains("photo_not_found"))
            let bare = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.patch, "/api/v1/diary/entries/\(entry.id)",
                json: #"{"removePhotoIds":["\#(entry.photos[0].id)","\#(entry.photos[2].id)"]}"#))
            #expect(bare.photos.isEmpty && !bare.hasPhoto && bare.moodScores == nil)
            #expect(Self.photoFiles(config).isEmpty)
        }
    }

    @Test func tooManyPhotosAreRefusedAndNothingIsWritten() async throws {
        let config = try await TestApp.config()
        try await TestApp.run(config: config) { browser in
            let api = try await api(browser)
            let nine = Array(repeating: "\"\(TestImages.png.base64EncodedString())\"", count: DiaryRules.maxPhotosPerEntry + 1).joined(separator: ",")
            let refused = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"many","photos":[\#(nine)]}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.body.contains("too_many_photos"))
            #expect(refused.body.contains("At most \(DiaryRules.maxPhotosPerEntry) photos per entry."))
            // One bad image among good ones refuses the whole save: no entry, no file.
            let mixed = try await api.call(.post, "/api/v1/diary/entries",
                                           json: #"{"text":"mixed","photos":["\#(TestImages.png.base64EncodedString())","\#(Data("%PDF-1.7".utf8).base64EncodedString())"]}"#)
            #expect(mixed.body.contains("photo_not_an_image"))
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 0)
            #expect(Self.photoFiles(config).isEmpty)
        }
    }

    @Test func anotherPersonCannotReadAPhotoByItsID() async throws {
        try await TestApp.run { browser in
            let aiko = try await api(browser)
            let entry = try APIClient.decode(DiaryEntryResponse.self, try await aiko.call(.post, "/api/v1/diary/entries",
                json: #"{"text":"mine","photos":["\#(TestImages.png.base64EncodedString())"]}"#))
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let kenBrowser = Browser(client: browser.client)
            _ = try await kenBrowser.signIn(username: "ken", password: "kens password!")
            let ken = APIClient(browser: kenBrowser, token: try await kenBrowser.createToken(password: "kens password!"))
            let photo = try #require(entry.photos.first)
            #expect(try await ken.call(.get, photo.url).status == .notFound)
            // Ken's own entry id with Aiko's photo id finds nothing either.
            let kens = try APIClient.decode(DiaryEntryResponse.self, try await ken.call(.post, "/api/v1/diary/entries", json: #"{"text":"his"}"#))
            #expect(try await ken.call(.get, "/api/v1/diary/entries/\(kens.id)/photos/\(photo.id)").status == .notFound)
            try await kenBrowser.unlockDiary(password: "kens password!")
            #expect(try await kenBrowser.get("/diary/entries/\(entry.id)/photos/\(photo.id)").status == .notFound)
        }
    }

    @Test func theWebFormTakesSeveralPhotosAndRemovesOne() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            try await browser.get("/diary/new")
            let saved = try await browser.postMultipart("/diary/new", fields: ["date": "2026-11-03", "time": "12:00", "text": "Lunch with Mei"],
                                                        several: [("photos", "food.jpg", TestImages.noFace), ("photos", "us.png", TestImages.png)])
            #expect(saved.status == .found, "\(saved.body)")
            let location = try #require(saved.headers[.location])
            let detail = try await browser.get(location)
            #expect(detail.body.components(separatedBy: "class=\"entry-photo\"").count - 1 == 2)
            // The estimate came from the second photo, the one with a face.
            #expect(detail.body.contains("Suggested from your photo: 😮"))
            let entryID = try #require(location.split(separator: "/").last.map { String($0.split(separator: "?")[0]) })
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let entry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.get, "/api/v1/diary/entries/\(entryID)"))
            let form = try await browser.get("/diary/entries/\(entryID)/edit")
            #expect(form.body.contains("remove_photo_\(entry.photos[0].id)"))
            let edited = try await browser.postMultipart("/diary/entries/\(entryID)/edit", fields: [
                "date": "2026-11-03", "time": "12:00", "text": "Lunch with Mei", "remove_photo_\(entry.photos[0].id)": "on"])
            #expect(edited.status == .found, "\(edited.body)")
            let after = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.get, "/api/v1/diary/entries/\(entryID)"))
            #expect(after.photos.map(\.id) == [entry.photos[1].id])
        }
    }

    @Test func theListIsGroupedByDayWithThumbnailsAndOneLinkPerEntry() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            for (date, text, photo) in [("2026-11-01T09:00:00Z", "Morning run", nil), ("2026-11-01T20:00:00Z", "Dinner", TestImages.png),
                                        ("2026-11-02T08:00:00Z", "Rain", nil)] as [(String, String, Data?)] {
                let photos = photo.map { #","photos":["\#($0.base64EncodedString())"]"# } ?? ""
                #expect(try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"\#(date)","text":"\#(text)"\#(photos)}"#).status == .created)
            }
            try await browser.unlockDiary()
            let list = try await browser.get("/diary")
            // Two day sections, newest first, each heading linking to the journal's day page.
            let days = list.body.components(separatedBy: "class=\"entry-day\" data-day=\"").dropFirst().map { String($0.prefix(10)) }
            #expect(days == ["2026-11-02", "2026-11-01"])
            #expect(list.body.contains("href=\"/day/2026-11-01\""))
            #expect(list.body.components(separatedBy: "class=\"entry-thumb\"").count - 1 == 1)
            // The text is text: not inside the entry's link.
            let dinner = try #require(list.body.components(separatedBy: "Dinner").first)
            let openLinks = dinner.components(separatedBy: "<a ").count - 1, closedLinks = dinner.components(separatedBy: "</a>").count - 1
            #expect(openLinks == closedLinks)
        }
    }

    @Test func theListShowsASmallThumbnailKeptSealedAndRemovedWithItsPhoto() async throws {
        let config = try await TestApp.config()
        try await TestApp.run(config: config) { browser in
            let api = try await api(browser)
            let entry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.post, "/api/v1/diary/entries",
                json: #"{"text":"sunset","photos":["\#(TestImages.webp.base64EncodedString())"]}"#))
            let photo = try #require(entry.photos.first)
            try await browser.unlockDiary()
            let thumb = try await browser.get("/diary/entries/\(entry.id)/photos/\(photo.id)/thumbnail")
            #expect(thumb.status == .ok)
            // A square JPEG made by ffmpeg, not the photo itself.
            let info = try #require(ImageHeader.read(thumb.data))
            #expect(info.format == .jpeg && info.width == PhotoThumbnails.side && info.height == PhotoThumbnails.side)
            #expect(thumb.headers[.cacheControl] == "private, no-store")
            // Kept sealed beside the photo: none of the JPEG's bytes on disk. (Its first 64 bytes, not the 3-byte JPEG
            // mark, which random ciphertext of this size holds about once in a few thousand runs, and did.)
            let kept = Self.photoFiles(config).filter { $0.hasSuffix(".thumb.sealed") }
            #expect(kept.count == 1)
            let sealed = try #require(FileManager.default.contents(atPath: config.mediaDirectory + "/diary-photos/" + kept[0]))
            #expect(sealed.range(of: thumb.data.prefix(64)) == nil)
            #expect(ImageHeader.read(sealed) == nil)
            // Served again from the kept file, the same bytes.
            #expect(try await browser.get("/diary/entries/\(entry.id)/photos/\(photo.id)/thumbnail").data == thumb.data)
            // The list points at the thumbnail, not the full photo.
            #expect(try await browser.get("/diary").body.contains("/diary/entries/\(entry.id)/photos/\(photo.id)/thumbnail"))
            _ = try await api.call(.patch, "/api/v1/diary/entries/\(entry.id)", json: #"{"removePhotoIds":["\#(photo.id)"]}"#)
            #expect(Self.photoFiles(config).isEmpty)
        }
    }

    @Test func entriesAreGroupedByTheirDayInThePersonsZone() throws {
        func entry(_ seconds: TimeInterval) -> DiaryEntry {
            DiaryEntry(id: UUID().uuidString, userID: "u", date: Date(timeIntervalSince1970: seconds), text: "", tags: [], moodScores: nil,
                       confirmedMood: nil, hasPhoto: false, createdAt: Date(), updatedAt: Date())
        }
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        // 2026-11-01 15:30Z is 00:30 on the 2nd in Tokyo; 14:30Z is 23:30 on the 1st.
        let late = entry(1_793_547_000), early = entry(1_793_543_400), before = entry(1_793_500_000)
        let days = DiaryRules.groupByDay([late, early, before], timeZone: tokyo)
        #expect(days.map(\.key) == ["2026-11-02", "2026-11-01"])
        #expect(days.map { $0.entries.count } == [1, 2])
        #expect(DiaryRules.groupByDay([late, early, before], timeZone: .gmt).map(\.key) == ["2026-11-01"])
    }
}

/// Migration 25 on a diary that already has photos: each entry's one photo becomes its first photo, with
/// the same file (its photo id is the entry's id), so nothing has to be moved or sealed again.
@Suite(.serialized) struct DiaryPhotoMigrationTests {
    @Test func anEntrysEarlierPhotoBecomesItsFirstPhotoAndStillOpens() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        var failure: (any Error)?
        do {
            _ = try await Migrator(database: database, migrations: Schema.all.filter { $0.version < 25 }, logger: TestApp.quietLogger).migrate()
            try await database.sql.raw("""
                INSERT INTO users (id, username, display_name, password_hash, is_admin, disabled, time_zone, created_at, password_changed_at) \
                VALUES ('u1', 'aiko', 'Aiko', 'x', \(bind: false), \(bind: false), 'UTC', 0, 0)
                """).run()
            let box = SealedBoxService(key: SymmetricKey(size: .bits256))
            let sealed = try box.sealString("with a face", context: DiaryStore.textContext(userID: "u1", "e1"))
            let plain = try box.sealString("a view", context: DiaryStore.textContext(userID: "u1", "e2"))
            let bare = try box.sealString("no photo", context: DiaryStore.textContext(userID: "u1", "e3"))
            for (id, text, scores, photo) in [("e1", sealed, #"{"happiness":0.9}"# as String?, true), ("e2", plain, nil, true), ("e3", bare, nil, false)] {
                try await database.sql.raw("""
                    INSERT INTO diary_entries (id, user_id, entry_at, text_sealed, mood_scores, confirmed_mood, has_photo, created_at, updated_at) \
                    VALUES (\(bind: id), 'u1', 0, \(bind: text), \(bind: scores), NULL, \(bind: photo), 0, 0)
                    """).run()
            }
            let photos = PhotoStore(dataDirectory: config.mediaDirectory, box: box)
            try photos.save(TestImages.jpeg, userID: "u1", photoID: "e1")
            try photos.save(TestImages.png, userID: "u1", photoID: "e2")
            #expect(try await Migrator(database: database, logger: TestApp.quietLogger).migrate() == Schema.all.map(\.version).filter { $0 >= 25 }.sorted())
            let store = DiaryStore(database: database, box: box)
            let entries = try await store.entries(ids: ["e1", "e2", "e3"], userID: "u1")
            let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
            #expect(byID["e1"]?.photos == [DiaryPhoto(id: "e1", hasFace: true, moodSource: true)])
            #expect(byID["e2"]?.photos == [DiaryPhoto(id: "e2", hasFace: false, moodSource: false)])
            #expect(byID["e3"]?.photos == [])
            let diary = DiaryService(store: store, photos: photos, search: DiarySearchIndex(), moods: nil, logger: TestApp.quietLogger)
            #expect(try await diary.photo(userID: "u1", id: "e1") == TestImages.jpeg)
            #expect(try await diary.photo(userID: "u1", id: "e2", photoID: "e2") == TestImages.png)
        } catch {
            failure = error
        }
        await database.shutdown()
        if let failure { throw failure }
    }
}

/// Issue 12, item 4: the diary's addresses come from one place, and a tag with URL characters survives.
@Suite struct DiaryPathsTests {
    @Test func addressesAreBuiltAndRoutesUseTheSameFunctions() {
        #expect(DiaryPaths.entry("e1") == "/diary/entries/e1")
        #expect(DiaryPaths.thumbnail("e1", "p1") == "/diary/entries/e1/photos/p1/thumbnail")
        #expect(DiaryPaths.thumbnail(":id", ":photo") == "/diary/entries/:id/photos/:photo/thumbnail")
        #expect(DiaryPaths.calendar(year: 2026, month: 3) == "/diary/calendar?month=2026-03")
        #expect(DiaryPaths.unlock(next: "/day/2026-11-23") == "/diary/unlock?next=%2Fday%2F2026%2D11%2D23")
        #expect(DiaryPaths.list(tag: "C++ & co") == "/diary?tag=C%2B%2B%20%26%20co")
        #expect(FormData(body: "tag=C%2B%2B%20%26%20co")["tag"] == "C++ & co")
        #expect(DiaryPaths.list(from: "2026-11-01", to: "2026-11-02") == "/diary?from=2026%2D11%2D01&to=2026%2D11%2D02")
        #expect(DiaryPaths.list() == "/diary")
    }
}

/// Issue 12, item 4: account and administration addresses come from one place too.
@Suite struct AccountPathsTests {
    @Test func addressesAreBuiltOneWay() {
        #expect(AccountPaths.revokeToken("t1") == "/settings/tokens/t1/revoke")
        #expect(AccountPaths.revokeToken(":id") == "/settings/tokens/:id/revoke")
        #expect(AccountPaths.setUserDisabled("u1", action: "enable") == "/admin/users/u1/enable")
        #expect(AccountPaths.settings(section: "devices") == "/settings#devices")
        #expect(VideoPaths.video("v1", playlist: "p1", autoplay: true) == "/videos/v1?playlist=p1&autoplay=1")
        #expect(VideoPaths.library(tag: "a&b") == "/videos?tag=a%26b")
    }
}
