import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import ZIPFoundation
@testable import HibiApp

/// Issue 28, items 2 and 9: imports bounded by construction, and one heavy import per person.
@Suite(.serialized) struct ImportBoundsTests {
    /// A real PNG grown to `size` bytes by a private ancillary chunk before IEND (64 KB of noise, then zeros):
    /// still a whole image to `ImageHeader`, and it deflates to a little over 64 KB.
    static func paddedPNG(size: Int) -> Data {
        let png = TestImages.png
        var out = Data(png.prefix(png.count - 12))
        let payload = size - png.count - 12
        var generator = SplitMix(seed: 28)
        var filler = Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) })
        filler.append(Data(count: payload - filler.count))
        out.append(contentsOf: withUnsafeBytes(of: UInt32(payload).bigEndian, Array.init))
        out.append(contentsOf: Array("prIv".utf8))
        out.append(filler)
        out.append(contentsOf: [0, 0, 0, 0])
        out.append(png.suffix(12))
        return out
    }

    /// A diary export archive: `photo` once as `photos/p.png` (deflated), and `entries` entries each listing it
    /// `references` times.
    static func archive(photo: Data, entries: Int, references: Int, at path: String) throws -> Data {
        let items = (0..<entries).map { index in
            DiaryExport.Entry(id: UUID().uuidString.lowercased(), date: Date(timeIntervalSince1970: 1_790_000_000 + Double(index) * 86_400),
                              text: "entry \(index)", tags: [], moodScores: nil, confirmedMood: nil, createdAt: Date(), updatedAt: Date(),
                              photo: nil, photos: Array(repeating: .init(contentType: "image/png", path: "photos/p.png", base64: nil), count: references))
        }
        let json = try JSONCoding.encoder.encode(DiaryExport(format: DiaryExport.formatName, version: DiaryExport.currentVersion, exportedAt: Date(), entries: items))
        try? FileManager.default.removeItem(atPath: path)
        let zip = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, data) in [(DiaryExport.fileName, json), ("photos/p.png", photo)] {
            try zip.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    static func files(under directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { !$0.hasSuffix("/") }
            .filter { var isDirectory: ObjCBool = false; return FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0), isDirectory: &isDirectory) && !isDirectory.boolValue }
    }

    /// The issue's archive: tens of kilobytes whose entries list one deflated 8 MB photo eight times each. Every
    /// reference would have been inflated and written anew (2.1 GB for 8 entries); now what the import would
    /// write counts every reference against what an archive of its size may hold, and it is refused before a
    /// photo is written. An honest archive that lists one photo twice is imported, the member inflated once.
    @Test func anArchiveThatListsOnePhotoManyTimesIsRefusedBeforeWritingAndAnHonestOneImports() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-amplify-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = try await TestApp.config(dataDirectory: directory)
        let photo = Self.paddedPNG(size: DiaryRules.maxPhotoBytes - 1024)
        #expect(DiaryRules.isSupportedImage(photo))
        try await TestApp.run(config: config) { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: .all))
            for entries in [2, 8] {
                let bomb = try Self.archive(photo: photo, entries: entries, references: 8, at: directory + "/bomb.zip")
                #expect(bomb.count < 200_000, "\(bomb.count)")
                let refused = try await api.call(.post, "/api/v1/diary/import", body: bomb, contentType: "application/zip")
                #expect(refused.status == .badRequest, "\(refused.status) \(refused.body)")
                #expect(refused.body.contains("each reference to a file counted"), "\(refused.body)")
                #expect(Self.files(under: directory + "/diary-photos").isEmpty)
                #expect(Self.files(under: directory + "/tmp").isEmpty, "spool left behind: \(Self.files(under: directory + "/tmp"))")
            }
            let listed = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            #expect(listed.entries.isEmpty)

            // Two entries sharing one small photo: imported, each entry with its own copy of the same bytes.
            let honest = try Self.archive(photo: TestImages.png, entries: 2, references: 1, at: directory + "/honest.zip")
            let imported = try await api.call(.post, "/api/v1/diary/import", body: honest, contentType: "application/zip")
            #expect(imported.status == .ok, "\(imported.body)")
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).entries
            #expect(entries.count == 2)
            for entry in entries {
                #expect(try await api.call(.get, "/api/v1/diary/entries/\(entry.id)/photo").data == TestImages.png)
            }
            #expect(Self.files(under: directory + "/tmp").isEmpty)
            // The same file again adds nothing.
            let again = try await api.call(.post, "/api/v1/diary/import", body: honest, contentType: "application/zip")
            #expect(again.body.contains("\"imported\":0"), "\(again.body)")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The same attack in Day One's shape (issue 31's reader): entries whose `dayone-moment://` references all
    /// name one deflated 8 MB photo. Each reference counts against what the archive may write, so the first
    /// entries get the photo and the rest are imported without it, each photo reported skipped with the reason;
    /// nothing near 8 MB per reference is inflated or written.
    @Test func aDayOneArchiveNamingOnePhotoInEveryEntryIsBounded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-amplify-dayone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = try await TestApp.config(dataDirectory: directory)
        let photo = Self.paddedPNG(size: DiaryRules.maxPhotoBytes - 1024)
        let md5 = "0123456789abcdef0123456789abcdef"
        let entries = (0..<40).map { index in
            """
            {"uuid":"\(String(format: "%032X", index + 1))","creationDate":"2024-03-\(String(format: "%02d", index % 28 + 1))T0\(index % 10):00:00Z","timeZone":"Asia/Tokyo",
             "text":"day \(index)\\n\\n![](dayone-moment://M\(index))","photos":[{"identifier":"M\(index)","md5":"\(md5)","type":"png"}]}
            """
        }
        let json = Data((#"{"metadata":{"version":"1.0"},"entries":["# + entries.joined(separator: ",") + "]}").utf8)
        let path = directory + "/dayone.zip"
        let zip = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, data) in [("Journal.json", json), ("photos/\(md5).png", photo)] {
            try zip.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        let body = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(body.count < 200_000, "\(body.count)")
        try await TestApp.run(config: config) { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: .all))
            let (answer, report) = try await api.importDiary(body, contentType: "application/zip")
            #expect(answer.status == .ok, "\(answer.status) \(answer.body)")
            #expect(report.added == 40)
            // An archive of this size may write 200 times itself: one 8 MB photo at most, never 40.
            #expect(report.photosAdded <= 1, "\(report.photosAdded)")
            #expect(report.photosAdded + report.photosSkipped == 40)
            #expect(report.skipped.contains { $0.code == "too_large" && $0.en.contains("each reference counted") })
            let written = Self.files(under: directory + "/diary-photos").count
            #expect(written <= 1, "\(written) photo files written")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Three takeout imports at once used to answer 200, 200 and 500 (a UNIQUE constraint on the diary's ids):
    /// now one runs and the others are refused with 409 and a message in the person's language.
    @Test func threeParallelTakeoutImportsGiveOneSuccessAndClearConflicts() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: .all))
            for day in 0..<20 {
                let posted = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-\#(String(format: "%02d", day + 1))T10:00:00Z","text":"day \#(day)"}"#)
                #expect(posted.status == .created)
            }
            let export = try await api.call(.get, "/api/v1/me/export")
            #expect(export.status == .ok)
            // Enough health records that each import takes a while, so the three overlap.
            let reader = try ZipReader(data: export.data, maxTotalBytes: 1 << 30)
            var zip = StoredZipWriter()
            var takeout = Data()
            for name in reader.entries.keys.sorted() where name != "health/records.csv" {
                for chunk in try zip.add(name: name, data: try #require(try reader.contents(of: name)), modified: Date()) { takeout.append(chunk) }
            }
            var csv = HealthCSV.header + "\n"
            for index in 0..<30_000 {
                let start = Date(timeIntervalSince1970: 1_780_000_000 + Double(index) * 60)
                csv += "steps,\(index % 500 + 1),count,\(ISO8601DateFormatter().string(from: start)),,,,\n"
            }
            for chunk in try zip.add(name: "health/records.csv", data: Data(csv.utf8), modified: Date()) { takeout.append(chunk) }
            takeout.append(zip.finish())
            let upload = takeout

            let client = browser.client
            let token = try #require(api.token)
            let responses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String).self) { group in
                for language in ["en", "ja", "en"] {
                    group.addTask {
                        let response = try await client.executeRequest(
                            uri: "/api/v1/me/import", method: .post,
                            headers: [.authorization: "Bearer \(token)", .contentType: "application/zip", .acceptLanguage: language],
                            body: ByteBuffer(data: upload))
                        return (response.status, String(buffer: response.body))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.count { $0.0 == .ok } == 1, "\(responses.map(\.0))")
            let conflicts = responses.filter { $0.0 == .conflict }
            #expect(conflicts.count == 2, "\(responses.map(\.0))")
            #expect(conflicts.allSatisfy { $0.1.contains("Another import of yours is still running") || $0.1.contains("別のインポートを実行中です") },
                    "\(conflicts.map(\.1))")
            #expect(!responses.contains { $0.0.code >= 500 })
            // The next request is served, and the records went in once.
            let again = try await api.call(.post, "/api/v1/me/import", body: takeout, contentType: "application/zip")
            #expect(again.status == .ok, "\(again.body)")
            let result = try APIClient.decode(TakeoutService.ImportResult.self, again)
            #expect(result.diaryEntries == 0 && result.healthRecords == 0, "\(result)")
        }
    }
}
