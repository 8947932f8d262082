import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
import ZIPFoundation
@testable import HibiApp

/// Issue 28, item 3: a photo's size is read before any work, a pixel cap says the photo's size, and a thumbnail
/// that failed is remembered instead of starting ffmpeg on every view.
@Suite(.serialized) struct PhotoBoundsTests {
    /// A real PNG of `width` × `height` black pixels (RGB, filter 0 on every row): its IDAT is the deflate of
    /// all-zero rows, made as a stream, with the zlib header and the Adler-32 of zeros (a = 1, b = length mod
    /// 65521). 20,000 × 12,500 is 750 MB of pixels in about 730 KB.
    static func blackPNG(width: Int, height: Int) throws -> Data {
        func chunk(_ type: String, _ body: Data) -> Data {
            var out = Data()
            out.append(contentsOf: withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init))
            let typed = Data(type.utf8) + body
            out.append(typed)
            out.append(contentsOf: withUnsafeBytes(of: CRC32.checksum(typed).bigEndian, Array.init))
            return out
        }
        var header = Data()
        header.append(contentsOf: withUnsafeBytes(of: UInt32(width).bigEndian, Array.init))
        header.append(contentsOf: withUnsafeBytes(of: UInt32(height).bigEndian, Array.init))
        header.append(contentsOf: [8, 2, 0, 0, 0])
        let raw = Int64(height) * Int64(1 + width * 3)
        var deflated = Data([0x78, 0x9C])
        // zlib directly: ZIPFoundation's compress also sums a CRC-32 of all 750 MB a byte at a time, which in a debug
        // build made these pictures 7% of the whole test run's CPU.
        let deflater = try Zlib.Deflater(level: 6)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var left = raw
        while left > 0 {
            let size = Int(min(left, Int64(zeros.count)))
            left -= Int64(size)
            try zeros.withUnsafeBytes { try deflater.process(UnsafeRawBufferPointer(rebasing: $0[..<size]), finish: left == 0) { deflated.append(contentsOf: $0) } }
        }
        let b = UInt32(raw % 65_521)
        deflated.append(contentsOf: withUnsafeBytes(of: (b << 16 | 1).bigEndian, Array.init))
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", header) + chunk("IDAT", deflated) + chunk("IEND", Data())
    }

    @Test func aPhotoOfTwoHundredAndFiftyMegapixelsIsRefusedSayingItsSize() async throws {
        let bomb = try Self.blackPNG(width: 20_000, height: 12_500)
        #expect(bomb.count < 1_000_000, "\(bomb.count)")
        #expect(ImageHeader.read(bomb) == ImageInfo(format: .png, width: 20_000, height: 12_500))
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let refused = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"bomb","photos":["\#(bomb.base64EncodedString())"]}"#)
            #expect(refused.status == .contentTooLarge, "\(refused.status) \(refused.body)")
            #expect(refused.body.contains("20000 × 12500 pixels (250.0 megapixels); at most 50 megapixels"), "\(refused.body)")
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).entries.isEmpty)
            // The same through a diary import archive, and in Japanese on the web's terms.
            #expect(DiaryError.photoTooManyPixels(width: 20_000, height: 12_500, limitMegapixels: 50).message(.ja).contains("20000 × 12500 ピクセル"))
            // A photo within the cap is taken (the next request is served).
            let fine = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"fine","photos":["\#(try Self.blackPNG(width: 4000, height: 3000).base64EncodedString())"]}"#)
            #expect(fine.status == .created, "\(fine.body)")
        }
    }

    /// A thumbnail that fails is recorded once (in the database, so every instance agrees) and the next view
    /// serves the photo itself without starting ffmpeg again. The "ffmpeg" here counts its runs and fails.
    @Test func aFailedThumbnailIsRecordedOnceAndNotTriedAgain() async throws {
        var config = try await TestApp.config()
        let counter = config.dataDirectory + "/ffmpeg-runs"
        let fake = config.dataDirectory + "/fake-ffmpeg"
        try "#!/bin/sh\necho run >> '\(counter)'\nexit 1\n".write(toFile: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake)
        config.videos.ffmpegPath = fake
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, face: .given(analyzer: nil, moods: FakeMoodEstimator()))
        defer { Task { await core.database.shutdown() } }
        try await buildApplication(core: core).test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let entry = try APIClient.decode(DiaryEntryResponse.self, try await api.call(.post, "/api/v1/diary/entries",
                json: #"{"text":"sunset","photos":["\#(TestImages.png.base64EncodedString())"]}"#))
            let photo = try #require(entry.photos.first)
            try await browser.unlockDiary()
            for _ in 0..<3 {
                let view = try await browser.get("/diary/entries/\(entry.id)/photos/\(photo.id)/thumbnail")
                #expect(view.status == .ok)
                #expect(view.data == TestImages.png)  // the photo itself stands in
            }
            let runs = (try? String(contentsOfFile: counter, encoding: .utf8)) ?? ""
            #expect(runs.split(separator: "\n").count == 1, "ffmpeg ran \(runs.split(separator: "\n").count) times")
            let rows = try await core.database.sql.raw("SELECT photo_id, reason FROM diary_photo_thumbnail_failures").all()
            #expect(rows.count == 1)
            #expect(try rows.first?.decode(column: "photo_id", as: String.self) == photo.id)
            // The failure goes with its photo.
            _ = try await api.call(.patch, "/api/v1/diary/entries/\(entry.id)", json: #"{"removePhotoIds":["\#(photo.id)"]}"#)
            #expect(try await core.database.sql.raw("SELECT photo_id FROM diary_photo_thumbnail_failures").all().isEmpty)
        }
    }

    @Test func jpegsAreDecodedAtTheSmallestScaleThatCoversTheThumbnail() {
        #expect(PhotoThumbnails.lowres(width: 8000, height: 6000) == 3)
        #expect(PhotoThumbnails.lowres(width: 600, height: 300) == 1)
        #expect(PhotoThumbnails.lowres(width: 200, height: 200) == 0)
    }
}
