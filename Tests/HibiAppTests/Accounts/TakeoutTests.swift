import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

@Suite(.serialized) struct TakeoutTests {
    /// Location history is the person's too: every stored point and the stays found in it are in the takeout.
    @Test func theTakeoutCarriesTheLocationHistoryAndItsStays() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: .all))
            let imported = try await api.call(.post, "/api/v1/visits/import", body: try LocationAPITests.fixture("two-stops.gpx"),
                                              contentType: "application/gpx+xml")
            #expect(imported.status == .created, "\(imported.body)")
            let page = try await api.call(.get, "/api/v1/me/export")
            #expect(page.status == .ok)
            let archive = try ZipReader(data: page.data, maxTotalBytes: 1 << 30)
            let csv = String(decoding: try #require(try archive.contents(of: "visits/location-points.csv")), as: UTF8.self)
            let lines = csv.split(separator: "\n")
            #expect(lines.first == "time,latitude,longitude")
            #expect(lines.count == 1 + 492)
            // Oldest first, in UTC.
            let times = lines.dropFirst().map { String($0.split(separator: ",")[0]) }
            #expect(times == times.sorted() && times.allSatisfy { $0.hasSuffix("Z") })
            let stays = try JSONCoding.decoder.decode([DetectedStay].self, from: try #require(try archive.contents(of: "visits/stays.json")))
            #expect(stays.count == 2)
            #expect(String(decoding: try #require(try archive.contents(of: "README.txt")), as: UTF8.self).contains("location-points.csv"))
        }
    }

    /// The takeout holds the diary, so Accounts serves it behind the diary's lock (asked through `DiaryGate`): a
    /// browser whose diary is locked and a token without the diary scope get neither the download nor the import.
    @Test func theTakeoutStaysBehindTheDiarysLock() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/settings")
            #expect(try await browser.get(AccountPaths.takeout).location?.hasPrefix("/diary/unlock") == true)
            let locked = try await TokenLockTests.apiFromSession(browser, .get, APIPaths.url(AccountAPIPaths.export))
            #expect(locked.status != .ok && locked.body.contains("diary_locked"), "\(locked.status) \(locked.body)")
            let noDiary = APIClient(browser: browser, token: try await browser.createToken(name: "rw", scopes: .standard))
            for (method, path) in [(HTTPRequest.Method.get, AccountAPIPaths.export), (.post, AccountAPIPaths.importTakeout)] {
                let refused = try await noDiary.call(method, APIPaths.url(path))
                #expect(refused.status == .forbidden && refused.body.contains("diary"), "\(path): \(refused.status)")
            }
            try await browser.unlockDiary()
            #expect(try await browser.get(AccountPaths.takeout).status == .ok)
        }
    }

    /// The takeout carries the videos a person uploaded, byte for byte, and the settings page gives their
    /// number and size before the download starts; Settings → Import (named in the README) answers.
    @Test func theTakeoutCarriesUploadedVideoFilesAndTheirSizeIsShownFirst() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            #expect(try await browser.get("/settings").body.contains("No uploaded videos to include."))
            let video = try await browser.uploaded(VideoFixtures.other, name: "Garden walk.MP4")
            let original = try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.other))
            let settings = try await browser.get("/settings")
            let size = ByteCountFormatter.string(fromByteCount: Int64(original.count), countStyle: .file)
            #expect(settings.body.contains("Includes 1 uploaded video file (\(size))"), "\(settings.body)")
            #expect(settings.body.contains(#"href="/settings/import""#))

            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: .all))
            let page = try await api.call(.get, "/api/v1/me/export")
            #expect(page.status == .ok)
            let archive = try ZipReader(data: page.data, maxTotalBytes: 1 << 30)
            let member = "videos/files/\(video.id).mp4"
            #expect(try archive.contents(of: member) == original)
            let libraryData = try #require(try archive.contents(of: "videos/library.json"))
            let library = try #require(try JSONSerialization.jsonObject(with: libraryData) as? [[String: Any]])
            #expect(library.first?["file"] as? String == member)
            let readme = String(decoding: try #require(try archive.contents(of: "README.txt")), as: UTF8.self)
            #expect(readme.contains("/settings/import") && readme.contains("videos/files/"))

            // The import writes into the diary: it asks for the diary open, like the download.
            #expect(try await browser.get("/settings/import").location?.hasPrefix("/diary/unlock") == true)
            try await browser.unlockDiary()
            let importPage = try await browser.get("/settings/import")
            #expect(importPage.status == .ok)
            #expect(importPage.body.contains("takeout-import-form"))
        }
    }

    /// A person downloads everything from one Hibi and imports it into a fresh account on another:
    /// the diary (text and photo), health records and visits come back, and the archive is readable as it is.
    @Test func aTakeoutFromOneInstanceRestoresIntoAFreshAccountOnAnother() async throws {
        let source = try BackupFixture.directory("takeout-source")
        let sourceConfig = try await BackupFixture.sqliteConfig(source)
        let filled = try await BackupFixture.fill(sourceConfig)

        let sourceCore = try await AppCore.open(sourceConfig, logger: TestApp.quietLogger)
        let (takeout, before) = try await buildApplication(core: sourceCore).test(.router) { client in
            let browser = Browser(client: client)
            _ = try await browser.signIn(username: "aiko")
            // The settings page offers the download.
            #expect(try await browser.get("/settings").body.contains("/settings/export.zip"))
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let page = try await api.call(.get, "/api/v1/me/export")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "application/zip")
            let diary = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            let visits = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            return (page.data, (diary.entries.map(\.text).sorted(), visits.map(\.name).sorted()))
        }

        let archive = try ZipReader(data: takeout, maxTotalBytes: 1 << 30)
        for name in ["README.txt", "profile.json", "diary.json", "health/records.csv", "health/records.json", "health/goals.json",
                     "visits/visits.geojson", "visits/visits.gpx", "visits/chain.json", "visits/signing-public-key.txt",
                     "videos/library.json", "videos/playlists.json", "settings.json"] {
            #expect(archive.entries[name] != nil, "\(name) missing")
        }
        #expect(archive.entries.keys.contains { $0.hasPrefix("photos/") })
        let csv = String(decoding: try #require(try archive.contents(of: "health/records.csv")), as: UTF8.self)
        #expect(csv.split(separator: "\n").count == 4)  // header and three records
        let json = try #require(try archive.contents(of: "health/records.json"))
        #expect((try JSONSerialization.jsonObject(with: json) as? [Any])?.count == 3)
        // Videos: the person's own history and playlists, naming the video by id.
        if let videoID = filled.videoID {
            let libraryData = try #require(try archive.contents(of: "videos/library.json"))
            let library = try #require(try JSONSerialization.jsonObject(with: libraryData) as? [[String: Any]])
            let garden = try #require(library.first { $0["id"] as? String == videoID })
            #expect(garden["positionSeconds"] as? Double == 3)
            #expect(garden["fileName"] as? String == "garden.mp4")
            let playlists = String(decoding: try #require(try archive.contents(of: "videos/playlists.json")), as: UTF8.self)
            #expect(playlists.contains("夕方") && playlists.contains(videoID))
        }
        let settingsData = try #require(try archive.contents(of: "settings.json"))
        let settings = try #require(try JSONSerialization.jsonObject(with: settingsData) as? [String: Any])
        #expect(settings["diaryLockMinutes"] as? Int == DiaryLock.defaultLockMinutes)
        // Decrypted for its owner: the diary text is readable in the archive.
        #expect(String(decoding: try #require(try archive.contents(of: "diary.json")), as: UTF8.self).contains("second line"))

        let target = try BackupFixture.directory("takeout-target")
        let targetConfig = try await BackupFixture.targetConfig(target)
        let targetCore = try await AppCore.open(targetConfig, logger: TestApp.quietLogger)
        try await buildApplication(core: targetCore).test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp(username: "aiko2")
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let imported = try await api.call(.post, "/api/v1/me/import", body: takeout, contentType: "application/zip")
            #expect(imported.status == .ok, "\(imported.body)")
            let result = try APIClient.decode(TakeoutService.ImportResult.self, imported)
            #expect(result == .init(diaryEntries: 2, healthRecords: 3, visits: filled.visits))
            let diary = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            let visits = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            #expect(diary.entries.map(\.text).sorted() == before.0)
            #expect(visits.map(\.name).sorted() == before.1)
            let photo = try await api.call(.get, "/api/v1/diary/entries/\(filled.photoEntryID)/photo")
            #expect(photo.data == TestImages.png)
            #expect(try await VisitTestApp.verify(api).intact)
            // Not a takeout: refused with a reason, nothing written.
            let bad = try await api.call(.post, "/api/v1/me/import", body: Data("not a zip".utf8), contentType: "application/zip")
            #expect(bad.status == .badRequest)
        }
    }
}
