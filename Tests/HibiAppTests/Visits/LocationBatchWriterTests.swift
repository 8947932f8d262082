import Foundation
import Testing
@testable import HibiApp

/// A GPX track longer than one batch (`LocationService.batchSize`): the file is read while the batch
/// before is written, and what ends up stored, reported and detected is what a batch-by-batch import
/// stored before (every point once, every stay found, nothing written after the import answered).
@Suite(.serialized) struct LocationBatchWriterTests {
    /// `cycles` of 600 points walked north about 111 m apart then 120 points at one place (20 minutes
    /// at a point every 10 s): one stay per cycle at the standard 100 m and 10 minutes.
    static func track(cycles: Int, brokenAt: Int? = nil) -> Data {
        var gpx = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        gpx += "\n"
        var lat = 10.0
        var time = 1_714_550_400 // 2024-05-01T08:00:00Z
        var index = 0
        for _ in 0..<cycles {
            for step in 0..<720 {
                if step < 600 { lat += 0.001 }
                time += 10
                let stamp = Date(timeIntervalSince1970: Double(time)).formatted(.iso8601)
                let close = index == brokenAt ? "</trkpx>" : "</trkpt>"
                gpx += #"<trkpt lat="\#(String(format: "%.7f", lat))" lon="139.7000000"><time>\#(stamp)</time>\#(close)"# + "\n"
                index += 1
            }
        }
        gpx += "</trkseg></trk></gpx>\n"
        return Data(gpx.utf8)
    }

    @Test func aTrackOfSeveralBatchesStoresEveryPointOnceAndFindsEveryStay() async throws {
        #expect(LocationService.batchSize < 43_200) // the track below spans three batches
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let file = Self.track(cycles: 60)
            let first = try #require(try await LocationSourcesTests.post(api, file).result)
            #expect(first.shape == "gpx")
            #expect(first.pointsStored == 43_200 && first.pointDuplicates == 0)
            #expect(LocationSourcesTests.kind(first.report, "trkpt")?.added == 43_200)
            #expect(first.staysOffered == 60)

            let again = try #require(try await LocationSourcesTests.post(api, file).result)
            #expect(again.pointsStored == 0 && again.pointDuplicates == 43_200)
            #expect(again.staysOffered == 0)
        }
    }

    @Test func aTrackBrokenAfterTheFirstBatchKeepsThatBatchAndNothingIsWrittenAfterTheAnswer() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            // Point 25,001 closes with a wrong end tag: the first batch of 20,000 was read (and written) before it.
            let broken = try await LocationSourcesTests.post(api, Self.track(cycles: 40, brokenAt: 25_000))
            #expect(broken.status == 422)
            #expect(broken.text.contains("line 25002"))
            // The whole file afterwards: the first batch is there already, the rest is new. Had a write of the
            // failed import still been running, these counts would depend on when it finished.
            let whole = try #require(try await LocationSourcesTests.post(api, Self.track(cycles: 40)).result)
            #expect(whole.pointDuplicates == 20_000)
            #expect(whole.pointsStored == 28_800 - 20_000)
        }
    }
}
