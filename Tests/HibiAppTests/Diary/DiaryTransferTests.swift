import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

@Suite struct StoredZipTests {
    static func archive(_ files: [(String, Data)]) throws -> Data {
        var writer = StoredZipWriter()
        var archive = Data()
        for (name, data) in files {
            for chunk in try writer.add(name: name, data: data, modified: Date(timeIntervalSince1970: 1_790_000_000)) { archive += chunk }
        }
        return archive + writer.finish()
    }

    /// Rewrites every occurrence of `from` (a name in both its headers) with `to` of the same length.
    static func rename(_ archive: Data, _ from: String, _ to: String) -> Data {
        precondition(from.utf8.count == to.utf8.count)
        var bytes = [UInt8](archive)
        let needle = Array(from.utf8), replacement = Array(to.utf8)
        var index = 0
        while index + needle.count <= bytes.count {
            if Array(bytes[index..<index + needle.count]) == needle { bytes.replaceSubrange(index..<index + needle.count, with: replacement) }
            index += 1
        }
        return Data(bytes)
    }

    @Test func crcMatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Data("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func whatTheWriterWritesTheReaderAndInfoZipRead() throws {
        let json = Data(#"{"text":"日記"}"#.utf8)
        let archive = try Self.archive([("photos/a.jpg", TestImages.jpeg), ("diary.json", json)])
        let reader = try ZipReader(data: archive, maxTotalBytes: 1 << 30)
        #expect(try reader.contents(of: "photos/a.jpg") == TestImages.jpeg)
        #expect(try reader.contents(of: "diary.json") == json)
        #expect(try reader.contents(of: "missing") == nil)
        // The archive must open in ordinary tools, not just in Hibi.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") else { return }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-zip-\(UUID().uuidString).zip").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        FileManager.default.createFile(atPath: path, contents: archive)
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-tq", path]
        unzip.standardOutput = FileHandle.nullDevice
        try unzip.run()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0)
    }

    @Test func namesThatWouldEscapeTheFolderAreUnsafe() {
        for name in ["../evil", "/etc/passwd", "photos/../../x", "C:x", "a\\b", "", "a//b", "./a", "a\u{0}b", "/"] {
            #expect(!StoredZip.isSafeName(name), "\(name)")
        }
        for name in ["diary.json", "photos/3f2c.jpg", "photos/", "写真/a.jpg"] { #expect(StoredZip.isSafeName(name), "\(name)") }
    }

    @Test func hostileOrDamagedArchivesAreRefused() throws {
        let good = try Self.archive([("xx/evil", TestImages.jpeg), ("a/c.jpg", TestImages.png)])
        #expect(throws: StoredZipError.unsafeName("../evil")) { try ZipReader(data: Self.rename(good, "xx/evil", "../evil"), maxTotalBytes: 1 << 30) }
        #expect(throws: StoredZipError.duplicateName("xx/evil")) { try ZipReader(data: Self.rename(good, "a/c.jpg", "xx/evil"), maxTotalBytes: 1 << 30) }
        #expect(throws: StoredZipError.self) { try ZipReader(data: good.prefix(good.count - 5), maxTotalBytes: 1 << 30) }
        #expect(throws: StoredZipError.notAnArchive) { try ZipReader(data: Data("PK".utf8), maxTotalBytes: 1 << 30) }
        // One byte of the photo changed: the CRC catches it when the entry is read.
        var flipped = [UInt8](good)
        let at = try #require(good.range(of: TestImages.jpeg.suffix(40))).lowerBound
        flipped[at] ^= 0x20
        #expect(throws: StoredZipError.damaged("checksum of xx/evil")) { try ZipReader(data: Data(flipped), maxTotalBytes: 1 << 30).contents(of: "xx/evil") }
        // A central directory whose sizes disagree with the data: the entry reads short and is refused.
        var resized = [UInt8](good)
        let central = try #require(good.range(of: Data([0x50, 0x4B, 0x01, 0x02]))).lowerBound
        resized[central + 24] &+= 1
        #expect(throws: StoredZipError.self) { try ZipReader(data: Data(resized), maxTotalBytes: 1 << 30).contents(of: "xx/evil") }
    }
}

@Suite(.serialized) struct DiaryTransferTests {
    func api(_ browser: Browser) async throws -> APIClient {
        try await browser.setUp()
        return APIClient(browser: browser, token: try await browser.createToken())
    }

    func entries(_ api: APIClient) async throws -> DiaryEntryPage {
        try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
    }

    func importArchive(_ api: APIClient, _ data: Data) async throws -> Browser.Page {
        try await api.call(.post, "/api/v1/diary/import", body: data, contentType: "application/zip")
    }

    static func photoFiles(_ config: AppConfig) -> [String] {
        let root = config.dataDirectory + "/diary-photos"
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { !((try? FileManager.default.attributesOfItem(atPath: root + "/" + $0)[.type] as? FileAttributeType) == .typeDirectory) }
    }

    @Test func exportIsAnArchiveWithPhotosAsFilesAndImportRestoresIt() async throws {
        let config = try await TestApp.config()
        try await TestApp.run(config: config) { browser in
            let api = try await api(browser)
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-01T08:00:00Z","text":"first","tags":["a"],"confirmedMood":"sadness"}"#)
            let jpegEntry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.post, "/api/v1/diary/entries",
                json: #"{"date":"2026-10-02T08:00:00Z","text":"with photo","photo":"\#(TestImages.jpeg.base64EncodedString())"}"#))
            let pngEntry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.post, "/api/v1/diary/entries",
                json: #"{"date":"2026-10-03T08:00:00Z","text":"","photo":"\#(TestImages.png.base64EncodedString())"}"#))

            let export = try await api.call(.get, "/api/v1/diary/export")
            #expect(export.status == .ok, "\(export.body)")
            #expect(export.headers[.contentType] == "application/zip")
            let archive = try ZipReader(data: export.data, maxTotalBytes: 1 << 30)
            // Each photo a file named by its photo id (an entry may have several).
            let jpegPhoto = try #require(jpegEntry.photos.first).id, pngPhoto = try #require(pngEntry.photos.first).id
            #expect(Set(archive.entries.keys) == ["diary.json", "photos/\(jpegPhoto).jpg", "photos/\(pngPhoto).png"])
            #expect(try archive.contents(of: "photos/\(jpegPhoto).jpg") == TestImages.jpeg)
            let manifest = try JSONCoding.decoder.decode(DiaryExport.self, from: try #require(try archive.contents(of: "diary.json")))
            #expect(manifest.version == 3)
            #expect(manifest.entries.map(\.text) == ["first", "with photo", ""])
            #expect(manifest.entries[1].photos?.map(\.path) == ["photos/\(jpegPhoto).jpg"])
            #expect(manifest.entries[1].photos?.first?.base64 == nil)
            #expect(manifest.entries[1].photos?.first?.hasFace == true)

            // Importing into the same diary adds nothing.
            #expect(try await importArchive(api, export.data).body.contains(#""imported":0"#))
            for entry in manifest.entries { _ = try await api.call(.delete, "/api/v1/diary/entries/\(entry.id)") }
            #expect(Self.photoFiles(config).isEmpty)
            let restored = try await importArchive(api, export.data)
            #expect(restored.status == .ok)
            #expect(restored.body.contains(#""imported":3"#))
            let page = try await entries(api)
            #expect(Set(page.entries.map(\.text)) == ["first", "with photo", ""])
            #expect(page.entries.first { $0.text == "first" }?.confirmedMood == .sadness)
            #expect(page.entries.first { $0.text == "first" }?.tags == ["a"])
            #expect(try await api.call(.get, "/api/v1/diary/entries/\(jpegEntry.id)/photo").data == TestImages.jpeg)
            #expect(try await api.call(.get, "/api/v1/diary/entries/\(pngEntry.id)/photo").data == TestImages.png)

            // The web page offers the same archive, and its import form takes it back.
            try await browser.unlockDiary()
            let web = try await browser.get("/diary/export.zip")
            #expect(web.headers[.contentType] == "application/zip")
            #expect(web.headers[.contentDisposition]?.contains(".zip") == true)
            try await browser.get("/diary/data")
            let uploaded = try await browser.postMultipart("/diary/import", fields: [:], files: ["file": ("hibi-diary.zip", web.data)])
            #expect(uploaded.status == .ok)
            #expect(uploaded.body.contains("Imported 0 entries."))
        }
    }

    @Test func anOlderSingleJSONExportStillImports() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let id = UUID().uuidString.lowercased()
            let file = #"{"format":"hibi-diary","version":1,"exportedAt":"2026-10-05T00:00:00Z","entries":[{"id":"\#(id)","date":"2026-10-01T08:00:00Z","text":"old","tags":[],"createdAt":"2026-10-01T08:00:00Z","updatedAt":"2026-10-01T08:00:00Z","photo":{"contentType":"image/jpeg","base64":"\#(TestImages.jpeg.base64EncodedString())"}}]}"#
            #expect(try await api.call(.post, "/api/v1/diary/import", json: file).body.contains(#""imported":1"#))
            #expect(try await api.call(.get, "/api/v1/diary/entries/\(id)/photo").data == TestImages.jpeg)
        }
    }

    @Test func aHostileOrBrokenArchiveIsRefusedAndLeavesNothingBehind() async throws {
        let config = try await TestApp.config()
        try await TestApp.run(config: config) { browser in
            let api = try await api(browser)
            let entry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.post, "/api/v1/diary/entries",
                json: #"{"date":"2026-10-02T08:00:00Z","text":"with photo","photo":"\#(TestImages.jpeg.base64EncodedString())"}"#))
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-01T08:00:00Z","text":"plain"}"#)
            let export = try await api.call(.get, "/api/v1/diary/export")
            let json = try #require(try ZipReader(data: export.data, maxTotalBytes: 1 << 30).contents(of: "diary.json"))
            for listed in try await entries(api).entries { _ = try await api.call(.delete, "/api/v1/diary/entries/\(listed.id)") }
            let photo = "photos/\(try #require(entry.photos.first).id).jpg"
            let bigPhoto = TestImages.jpeg + Data(count: DiaryRules.maxPhotoBytes)

            let cases: [(String, Data, String)] = [
                ("traversal", StoredZipTests.rename(try StoredZipTests.archive([("diary.json", json), (photo, TestImages.jpeg), ("xx/evil.sh", Data("x".utf8))]), "xx/evil.sh", "../evil.sh"),
                 "unsafe file name"),
                ("missing photo", try StoredZipTests.archive([("diary.json", json)]), "is missing from the archive"),
                ("not an image", try StoredZipTests.archive([("diary.json", json), (photo, Data("%PDF-1.7".utf8))]), "not a JPEG"),
                ("too big", try StoredZipTests.archive([("diary.json", json), (photo, bigPhoto)]), "too large"),
                ("no diary.json", try StoredZipTests.archive([(photo, TestImages.jpeg)]), "has no diary.json"),
                ("truncated", export.data.prefix(export.data.count - 30), "damaged"),
            ]
            for (label, archive, message) in cases {
                let page = try await importArchive(api, archive)
                #expect(page.status == .badRequest, "\(label)")
                #expect(page.body.contains("import_invalid"), "\(label)")
                #expect(page.body.contains(message), "\(label): \(page.body)")
                #expect(try await entries(api).total == 0, "\(label)")
                #expect(Self.photoFiles(config).isEmpty, "\(label)")
            }
            // The same refusal in Japanese on the web page.
            try await browser.unlockDiary()
            try await browser.get("/diary/data")
            browser.acceptLanguage = "ja"
            let page = try await browser.postMultipart("/diary/import", fields: [:], files: ["file": ("x.zip", cases[1].1)])
            #expect(page.status == .badRequest)
            #expect(page.body.contains("がアーカイブにありません"))
            // Nothing escaped next to the data directory either.
            #expect(!FileManager.default.fileExists(atPath: config.dataDirectory + "/../evil.sh"))
        }
    }

    @Test func anExportHoldsOnlyItsOwnersDiary() async throws {
        try await TestApp.run { browser in
            let aiko = try await api(browser)
            _ = try await aiko.call(.post, "/api/v1/diary/entries", json: #"{"text":"aiko's secret","photo":"\#(TestImages.jpeg.base64EncodedString())"}"#)
            try await browser.get("/admin/users")
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let kenBrowser = Browser(client: browser.client)
            _ = try await kenBrowser.signIn(username: "ken", password: "kens password!")
            let ken = APIClient(browser: kenBrowser, token: try await kenBrowser.createToken(password: "kens password!"))
            _ = try await ken.call(.post, "/api/v1/diary/entries", json: #"{"text":"ken's note"}"#)

            let kens = try ZipReader(data: try await ken.call(.get, "/api/v1/diary/export").data, maxTotalBytes: 1 << 30)
            #expect(Array(kens.entries.keys) == ["diary.json"])
            let kensJSON = String(decoding: try #require(try kens.contents(of: "diary.json")), as: UTF8.self)
            #expect(kensJSON.contains("ken's note"))
            #expect(!kensJSON.contains("aiko's secret"))
            let aikos = try ZipReader(data: try await aiko.call(.get, "/api/v1/diary/export").data, maxTotalBytes: 1 << 30)
            #expect(!String(decoding: try #require(try aikos.contents(of: "diary.json")), as: UTF8.self).contains("ken's note"))
            // Without a session or token there is no export at all.
            #expect(try await Browser(client: browser.client).get("/api/v1/diary/export").status == .unauthorized)
        }
    }
}
