import Foundation
import Testing
@testable import HibiApp

/// Issue 17, item 5: a Hibi takeout's location history (`visits/location-points.csv`) goes back in
/// through the visits import (the /visits/transfer page) and the takeout import, point for point.
@Suite struct LocationPointsCSVTests {
    static let text = "\u{FEFF}time,latitude,longitude\r\n2024-05-05T09:00:00Z,35.68,139.7\r\n2024-05-05T09:00:05Z,35.6801234567,139.7001\r\n"
        + "2024-05-05T09:00:10Z,35.69\nyesterday,35.7,139.8\n2024-05-05T09:00:20Z,91,139.8\n2024-05-05T09:00:25Z,-33.8688,151.2093\n\n"

    func read(_ text: String, chunk: Int) throws -> LocationPointsCSV {
        var reader = LocationPointsCSV()
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try bytes[start..<min(start + chunk, bytes.count)].withUnsafeBufferPointer { try reader.feed($0) }
        }
        try reader.finish()
        return reader
    }

    @Test func pointsAndSkipsWithTheirLinesWhateverTheBufferSize() throws {
        let whole = try read(Self.text, chunk: 1 << 20)
        #expect(whole.points == [LocationPoint(time: 1_714_899_600, latitude: 35.68, longitude: 139.7),
                                 LocationPoint(time: 1_714_899_605, latitude: VisitRules.roundCoordinate(35.6801234567), longitude: 139.7001),
                                 LocationPoint(time: 1_714_899_625, latitude: -33.8688, longitude: 151.2093)])
        let kind = try #require(whole.report.kinds.first { $0.kind == LocationPointsCSV.kind })
        #expect(kind.skipped == [ImportReport.Skip(reason: .missingValue, count: 1, firstAt: "line 4"),
                                 ImportReport.Skip(reason: .unparseableDate, count: 1, firstAt: "line 5"),
                                 ImportReport.Skip(reason: .outOfRange, count: 1, firstAt: "line 6")])
        // A line cut by the buffer reads the same: one byte at a time, or seven.
        for size in [1, 7] {
            let parts = try read(Self.text, chunk: size)
            #expect(parts.points == whole.points && parts.report == whole.report)
        }
    }

    @Test func anotherFileIsRefusedWithItsPosition() throws {
        #expect(throws: LocationError.self) { _ = try read("lat,lon\n35,139\n", chunk: 64) }
        #expect(throws: LocationError.self) { _ = try read("", chunk: 64) }
        #expect(throws: LocationError.self) { _ = try read("time,latitude,longitude\n" + String(repeating: "9", count: 10_000), chunk: 1024) }
        // A header alone is an empty history, not an error.
        #expect(try read("time,latitude,longitude\n", chunk: 64).points.isEmpty)
    }
}

@Suite(.serialized) struct LocationPointsRestoreTests {
    static func takeoutCSV(_ api: APIClient) async throws -> Data {
        let page = try await api.call(.get, "/api/v1/me/export")
        guard page.status == .ok else { throw TestFailure("export: \(page.status)") }
        return try #require(try ZipReader(data: page.data, maxTotalBytes: 1 << 30).contents(of: "visits/location-points.csv"))
    }

    @Test func aTakeoutsLocationHistoryRoundTripsThroughTheTransferPageAndTheTakeoutImport() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            try await browser.post("/admin/users", form: ["username": "mio", "password": "mios password!"])
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let imported = try await api.call(.post, "/api/v1/visits/import", body: try LocationAPITests.fixture("two-stops.gpx"),
                                              contentType: "application/gpx+xml")
            #expect(imported.status == .created, "\(imported.body)")
            let csv = try await Self.takeoutCSV(api)
            #expect(csv.split(separator: UInt8(ascii: "\n")).count == 1 + 492)

            // The transfer page offers CSV files to the same import.
            let transfer = try await browser.get("/visits/transfer")
            #expect(transfer.body.contains(".csv,") && transfer.body.contains("location-points.csv"))

            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken", password: "kens password!"))
            let restored = try await kenAPI.call(.post, "/api/v1/visits/import", body: csv, contentType: "text/csv")
            #expect(restored.status == .created, "\(restored.body)")
            let body = try APIClient.decode(ImportResponse.self, restored)
            #expect(body.trackPointsStored == 492 && body.imported == 0)
            // The stays found in the history are offered again, to the new owner.
            #expect(body.staysDetected == 2)
            #expect(body.summary?.contains("Location points: 492 added") == true)
            // Point for point: the new account's takeout holds the same file.
            #expect(try await Self.takeoutCSV(kenAPI) == csv)
            // Again: nothing new, said so.
            let again = try APIClient.decode(ImportResponse.self, try await kenAPI.call(.post, "/api/v1/visits/import", body: csv, contentType: "text/csv"))
            #expect(again.trackPointsStored == 0 && again.summary?.contains("0 points stored (492 already stored)") == true)
            // The location import takes it too, and a file that is not one says where.
            let bad = try await kenAPI.call(.post, "/api/v1/locations/import", body: Data("time,latitude,longitude\n\(String(repeating: "x", count: 5000))".utf8),
                                            contentType: "text/csv")
            #expect(bad.status == .unprocessableContent && bad.body.contains("line 2"))
            #expect(try await kenAPI.call(.post, "/api/v1/visits/import", body: Data("lat,lon\n".utf8), contentType: "text/csv").status == .unprocessableContent)

            // The whole takeout into a third account brings the history with the rest.
            let mio = Browser(client: browser.client)
            _ = try await mio.signIn(username: "mio", password: "mios password!")
            try await mio.unlockDiary(password: "mios password!")
            let mioAPI = APIClient(browser: mio, token: try await mio.createToken(name: "mio", scopes: .all, password: "mios password!"))
            let takeout = try await api.call(.get, "/api/v1/me/export")
            let result = try await mioAPI.call(.post, "/api/v1/me/import", body: takeout.data, contentType: "application/zip")
            #expect(result.status == .ok, "\(result.body)")
            #expect(try APIClient.decode(TakeoutService.ImportResult.self, result).locationPoints == 492)
            #expect(try await Self.takeoutCSV(mioAPI) == csv)
        }
    }
}
