import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

/// Issue 28, item 3 for visit photos: the diary's 50-megapixel cap had no twin here, so a 730 KB PNG of
/// 20,000 × 12,500 pixels (750 MB to decode) was stored on a visit and served to every browser that opens it.
struct VisitPhotoPixelsTests {
    @Test func aVisitPhotoAboveTheCapIsRefusedSayingItsSizeAndNothingIsStored() async throws {
        let bomb = try PhotoBoundsTests.blackPNG(width: 20_000, height: 12_500)
        #expect(bomb.count < VisitRules.maxPhotoBytes)
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let visit = try await VisitTestApp.create(api)
            let refused = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: bomb, contentType: "image/png")
            #expect(refused.status == .contentTooLarge, "\(refused.status) \(refused.body)")
            #expect(refused.body.contains("photo_too_many_pixels"))
            #expect(refused.body.contains("20000 × 12500 pixels (250.0 megapixels); at most 50 megapixels"), "\(refused.body)")
            #expect(VisitError.photoTooManyPixels(width: 20_000, height: 12_500, limitMegapixels: 50).message(.ja)
                .contains("20000 × 12500 ピクセル(250.0 メガピクセル)です。50 メガピクセルまで"))
            let count = try await core.database.sql.raw("SELECT COUNT(*) AS n FROM visit_photos").first()?.decode(column: "n", as: Int.self)
            #expect(count == 0)
            // The visit is unchanged, and a photo within the cap is taken next.
            let list = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            #expect(list.first?.photos.isEmpty == true && list.first?.revision == 1)
            let fine = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: try PhotoBoundsTests.blackPNG(width: 4000, height: 3000),
                                            contentType: "image/png")
            #expect(fine.status == .created, "\(fine.body)")
        }
    }
}
