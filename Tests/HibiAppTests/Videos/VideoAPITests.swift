import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

@Suite(.serialized) struct VideoUploadTests {
    @Test func uploadedTestVideoHasItsDurationCodecsAndThumbnail() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let video = try await browser.uploaded(VideoFixtures.clip, name: "Garden_walk.mp4")
            #expect(abs((video.durationSeconds ?? 0) - 70) < 0.5)
            #expect(video.videoCodec == "h264")
            #expect(video.audioCodec == "aac")
            #expect(video.width == 160 && video.height == 120)
            #expect(video.playable && video.playabilityNote == nil)
            #expect(video.title == "Garden walk")
            #expect(video.sizeBytes == Int64(try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.clip)).count))
            let thumbnail = try await browser.bytes(try #require(video.thumbnailURL))
            #expect(thumbnail.0 == .ok)
            #expect(thumbnail.1[.contentType] == "image/jpeg")
            #expect(thumbnail.2.starts(with: [0xFF, 0xD8]))
            let list = try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos"))
            #expect(list.map(\.id) == [video.id])
            let page = try await browser.get("/videos")
            #expect(page.body.contains("Garden walk"))
        }
    }

    @Test func notAVideoTooLargeAndEmptyUploadsLeaveNothing() async throws {
        var config = try await TestApp.config()
        config.videos.maxUploadBytes = 200_000
        let files = VideoFiles(dataDirectory: config.dataDirectory, libraryDirectory: nil)
        let dataDirectory = config.dataDirectory
        try await TestApp.run(config: config) { browser in
            try await browser.setUp()
            let text = try await browser.uploadBytes(Data(repeating: 65, count: 5000), name: "notes.mp4")
            #expect(text.status == .unsupportedMediaType)
            #expect(text.body.contains("not_a_video"))
            let big = try await browser.uploadBytes(Data(repeating: 0, count: 200_001), name: "big.mp4")
            #expect(big.status == .contentTooLarge)
            #expect(big.body.contains("video_too_large"))
            let empty = try await browser.uploadBytes(Data(), name: "empty.mp4")
            #expect(empty.status == .badRequest)
            #expect(files.temporaryFiles().isEmpty)
            let uploads = (dataDirectory as NSString).appendingPathComponent("videos/uploads")
            #expect(((try? FileManager.default.subpathsOfDirectory(atPath: uploads)) ?? []).filter { $0.contains(".") }.isEmpty)
            #expect(try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos")).isEmpty)
        }
    }

    /// A body that delivers some chunks and then fails, as when the browser tab is closed mid-upload.
    struct InterruptedBody: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        struct Iterator: AsyncIteratorProtocol {
            var sent = 0
            mutating func next() async throws -> ByteBuffer? {
                sent += 1
                if sent > 3 { throw CancellationError() }
                return ByteBuffer(repeating: 7, count: 64 * 1024)
            }
        }
        func makeAsyncIterator() -> Iterator { Iterator() }
    }

    @Test func interruptedUploadLeavesNoFileAndNoRecord() async throws {
        let config = try await TestApp.config()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let user = try await core.accounts.setup(username: "aiko", displayName: nil, password: Browser.password,
                                                 confirmation: Browser.password, language: nil, timeZone: "UTC", now: Date())
        let videos = VideoService(database: core.database, dataDirectory: config.dataDirectory, settings: config.videos, logger: core.logger)
        try videos.files.prepare()
        await #expect(throws: VideoError.uploadIncomplete) {
            _ = try await videos.upload(userID: user.id, fileName: "clip.mp4", expectedLength: nil, body: InterruptedBody(), now: Date())
        }
        // The connection closing early: fewer bytes than Content-Length announced.
        let short = [ByteBuffer(repeating: 1, count: 1000)].async
        await #expect(throws: VideoError.uploadIncomplete) {
            _ = try await videos.upload(userID: user.id, fileName: "clip.mp4", expectedLength: 5000, body: short, now: Date())
        }
        #expect(videos.files.temporaryFiles().isEmpty)
        #expect(try await videos.store.list(userID: user.id).isEmpty)
        await core.database.shutdown()
    }

    @Test func leftoverTemporaryFilesAreSweptAtStart() async throws {
        let config = try await TestApp.config()
        let tmp = (config.dataDirectory as NSString).appendingPathComponent("videos/tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let crashed = (tmp as NSString).appendingPathComponent("crashed.part")
        FileManager.default.createFile(atPath: crashed, contents: Data(count: 100))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 3600)], ofItemAtPath: crashed)
        // A fresh one may be another instance's upload in progress on a shared media folder: it stays.
        FileManager.default.createFile(atPath: (tmp as NSString).appendingPathComponent("writing.part"), contents: Data(count: 100))
        try await TestApp.run(config: config) { _ in
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? ["missing"]) == ["writing.part"])
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence (test bodies).
    var async: AsyncArray<Element> { AsyncArray(elements: self) }
}

struct AsyncArray<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]
    struct Iterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Element>
        mutating func next() async -> Element? { rest.popFirst() }
    }
    func makeAsyncIterator() -> Iterator { Iterator(rest: elements[...]) }
}

@Suite(.serialized) struct VideoRangeTests {
    @Test func rangeRequestsReturnExactlyTheAskedBytes() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let video = try await browser.uploaded(VideoFixtures.clip)
            let url = "/videos/\(video.id)/stream"
            let original = try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.clip))
            let size = original.count

            let full = try await browser.bytes(url)
            #expect(full.0 == .ok)
            #expect(full.2 == original)
            #expect(full.1[.acceptRanges] == "bytes")
            #expect(full.1[.contentType] == "video/mp4")
            #expect(full.1[.contentLength] == String(size))
            let etag = try #require(full.1[.eTag])
            let lastModified = try #require(full.1[.lastModified])

            func range(_ header: String, extra: HTTPFields = [:]) async throws -> (HTTPResponse.Status, HTTPFields, Data) {
                var headers = extra
                headers[.range] = header
                return try await browser.bytes(url, headers: headers)
            }
            let first = try await range("bytes=0-99")
            #expect(first.0 == .partialContent)
            #expect(first.1[.contentRange] == "bytes 0-99/\(size)")
            #expect(first.2 == original[0..<100])

            let middle = try await range("bytes=1000-1999")
            #expect(middle.1[.contentRange] == "bytes 1000-1999/\(size)")
            #expect(middle.2 == original[1000..<2000])

            let suffix = try await range("bytes=-500")
            #expect(suffix.0 == .partialContent)
            #expect(suffix.1[.contentRange] == "bytes \(size - 500)-\(size - 1)/\(size)")
            #expect(suffix.2 == original[(size - 500)...])

            let open = try await range("bytes=\(size - 100)-")
            #expect(open.1[.contentRange] == "bytes \(size - 100)-\(size - 1)/\(size)")
            #expect(open.2 == original[(size - 100)...])
            #expect(open.1[.contentLength] == "100")

            for bad in ["bytes=\(size)-", "bytes=abc", "bytes=9-3", "bytes=-0"] {
                let refused = try await range(bad)
                #expect(refused.0 == .rangeNotSatisfiable, "\(bad)")
                #expect(refused.1[.contentRange] == "bytes */\(size)", "\(bad)")
            }
            // Several ranges: the whole file with 200, which RFC 9110 allows instead of multipart.
            let multiple = try await range("bytes=0-9,100-109")
            #expect(multiple.0 == .ok)
            #expect(multiple.2 == original)

            let sameFile = try await range("bytes=0-9", extra: [.ifRange: etag])
            #expect(sameFile.0 == .partialContent)
            let sameDate = try await range("bytes=0-9", extra: [.ifRange: lastModified])
            #expect(sameDate.0 == .partialContent)
            let changed = try await range("bytes=0-9", extra: [.ifRange: "\"stale\""])
            #expect(changed.0 == .ok)
            #expect(changed.2.count == size)

            let cached = try await browser.bytes(url, headers: [.ifNoneMatch: etag])
            #expect(cached.0 == .notModified)
            #expect(cached.2.isEmpty)

            let head = try await browser.send(url, method: .head, body: nil)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == String(size))
            #expect(head.headers[.eTag] == etag)
            #expect(head.body.isEmpty)
            let headRange = try await browser.send(url, method: .head, headers: [.range: "bytes=10-19"], body: nil)
            #expect(headRange.status == .partialContent)
            #expect(headRange.headers[.contentRange] == "bytes 10-19/\(size)")

            // The API path streams the same way, for scripts with a token.
            let api = try await range("bytes=0-9")
            #expect(api.2 == original[0..<10])
            let viaAPI = try await browser.bytes("/api/v1/videos/\(video.id)/stream", headers: [.range: "bytes=5-9"])
            #expect(viaAPI.0 == .partialContent)
            #expect(viaAPI.2 == original[5..<10])
        }
    }
}

extension VideoRangeTests {
    /// Longer than the streamer's three 256 KB buffers, so each is filled several times: the bytes must
    /// still come back whole and in order.
    @Test func longRangesComeBackIntactAcrossManyChunks() async throws {
        var config = try await TestApp.config()
        let library = try LibraryFolder()
        config.videos.libraryDirectory = library.path
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(3 * 1024 * 1024 / 8 + 1000)).map { _ in generator.next() as UInt64 }
        let data = words.withUnsafeBytes { Data($0) }.dropLast(3)
        try data.write(to: URL(fileURLWithPath: (library.path as NSString).appendingPathComponent("Long.mp4")))
        try await TestApp.run(config: config) { aiko in
            try await aiko.setUp()
            _ = try await aiko.json(.post, "/api/v1/videos/library/scan")
            let list = try APIClient.decode([VideoResponse].self, try await aiko.get("/api/v1/videos"))
            let long = try #require(list.first { $0.fileName == "Long.mp4" })
            let full = try await aiko.bytes(long.streamURL)
            #expect(full.0 == .ok && full.2 == data)
            let (start, end) = (300_001, data.count - 8)
            let part = try await aiko.bytes(long.streamURL, headers: [.range: "bytes=\(start)-\(end)"])
            #expect(part.0 == .partialContent && part.2 == data[start...end])
        }
    }
}

@Suite(.serialized) struct VideoPrivacyTests {
    @Test func anotherUsersVideosAreInvisible() async throws {
        try await TestApp.run { aiko in
            try await aiko.setUp()
            let video = try await aiko.uploaded(VideoFixtures.clip)
            let ken = try await aiko.addUser("ken")
            for uri in ["/api/v1/videos/\(video.id)", "/api/v1/videos/\(video.id)/stream", "/api/v1/videos/\(video.id)/thumbnail",
                        "/videos/\(video.id)", "/videos/\(video.id)/stream", "/api/v1/videos/made-up"] {
                #expect(try await ken.get(uri).status == .notFound, "\(uri)")
            }
            let madeUp = try await ken.get("/api/v1/videos/00000000-0000-0000-0000-000000000000")
            let theirs = try await ken.get("/api/v1/videos/\(video.id)")
            #expect(madeUp.body == theirs.body)
            #expect(try await ken.json(.patch, "/api/v1/videos/\(video.id)", #"{"favorite":true}"#).status == .notFound)
            #expect(try await ken.json(.put, "/api/v1/videos/\(video.id)/progress", #"{"positionSeconds":10}"#).status == .notFound)
            #expect(try await ken.json(.delete, "/api/v1/videos/\(video.id)").status == .notFound)
            let playlist = try APIClient.decode(PlaylistResponse.self, try await ken.json(.post, "/api/v1/playlists", #"{"name":"Mine"}"#))
            #expect(try await ken.json(.post, "/api/v1/playlists/\(playlist.id)/items", #"{"videoId":"\#(video.id)"}"#).status == .notFound)
            #expect(try APIClient.decode([VideoResponse].self, try await ken.get("/api/v1/videos")).isEmpty)
            // Aiko cannot see or change Ken's playlist either.
            #expect(try await aiko.get("/api/v1/playlists/\(playlist.id)").status == .notFound)
            #expect(try await aiko.json(.delete, "/api/v1/playlists/\(playlist.id)").status == .notFound)
            // And her video is untouched.
            #expect(try await aiko.bytes("/videos/\(video.id)/stream").0 == .ok)
        }
    }

    @Test func pathTraversalIsRefused() async throws {
        // A database file (or PostgreSQL) so a second connection can tamper with the index below.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-test-\(UUID().uuidString)").path
        var config = TestApp.postgresURL == nil
            ? try await TestApp.config(dataDirectory: directory, database: .sqliteFile(path: directory + "/hibi.sqlite"))
            : try await TestApp.config(dataDirectory: directory)
        let library = try LibraryFolder()
        config.videos.libraryDirectory = library.path
        let frozen = config
        try await TestApp.run(config: config) { browser in
            try await browser.setUp()
            for uri in ["/videos/..%2F..%2F..%2Fetc%2Fpasswd/stream", "/videos/../../etc/passwd", "/api/v1/videos/..%2Fhibi.sqlite/stream",
                        "/videos/%2e%2e/stream"] {
                // The router may reject dot segments itself (400); either way nothing is served.
                let status = try await browser.get(uri).status
                #expect(status == .notFound || status == .badRequest, "\(uri)")
            }
            // An upload named with folders keeps only the file name and lands in the user's own folder.
            let video = try await browser.uploaded(VideoFixtures.other, name: "../../../escape.mp4")
            #expect(video.fileName == "escape.mp4")
            #expect(!FileManager.default.fileExists(atPath: (frozen.dataDirectory as NSString).appendingPathComponent("../escape.mp4")))
            // A library record pointing outside (as if the index were tampered with) is not served.
            let core = try await AppCore.open(frozen, logger: TestApp.quietLogger)
            let store = VideoStore(database: core.database)
            for (id, path) in [("tampered-1", "../outside.mp4"), ("tampered-2", "/etc/passwd"), ("tampered-3", "escape-link.mp4")] {
                try await store.insert(Video(id: id, ownerID: nil, source: .library, filePath: path, originalName: "x.mp4", sizeBytes: 1,
                                             modifiedMillis: 0, media: MediaInfo(), hasThumbnail: false, hasCaptions: false, createdAt: Date()))
            }
            await core.database.shutdown()
            for id in ["tampered-1", "tampered-2", "tampered-3"] {
                #expect(try await browser.get("/videos/\(id)/stream").status == .notFound, "\(id)")
            }
        }
    }
}

/// A shared folder with one video, its captions, a subfolder and a symlink that points outside.
struct LibraryFolder {
    let path: String
    let outside: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-library-\(UUID().uuidString)").path
        path = (base as NSString).appendingPathComponent("library")
        outside = (base as NSString).appendingPathComponent("private")
        let manager = FileManager.default
        try manager.createDirectory(atPath: (path as NSString).appendingPathComponent("Trips"), withIntermediateDirectories: true)
        try manager.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try manager.copyItem(atPath: VideoFixtures.other, toPath: (path as NSString).appendingPathComponent("Trips/Bars.mp4"))
        try "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n".write(toFile: (path as NSString).appendingPathComponent("Trips/Bars.vtt"),
                                                              atomically: true, encoding: .utf8)
        try manager.copyItem(atPath: VideoFixtures.other, toPath: (outside as NSString).appendingPathComponent("secret.mp4"))
        try manager.createSymbolicLink(atPath: (path as NSString).appendingPathComponent("escape-link.mp4"),
                                       withDestinationPath: (outside as NSString).appendingPathComponent("secret.mp4"))
        try manager.createSymbolicLink(atPath: (path as NSString).appendingPathComponent("escape-dir"), withDestinationPath: outside)
    }
}
