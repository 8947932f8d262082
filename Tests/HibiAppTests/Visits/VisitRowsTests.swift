import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// The Visits tables read and written as their row types (issue 30, item 3), through the real router on the test's
/// engine: an edit writes the whole `visits` row back, so a field the person cleared must be NULL in the table and stay
/// signed as cleared; `location_settings` has one writer, so neither the settings page nor the live feed may undo the other.
@Suite(.serialized) struct VisitRowsTests {
    @Test func anEditThatClearsOptionalFieldsClearsThemInTheRowAndTheLogStaysIntact() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let created = try await VisitTestApp.create(api, VisitTestApp.visit(extra: #","altitude":40,"address":{"locality":"Chiyoda"},"notes":"platform 9""#))
            #expect(created.accuracy == 8 && created.altitude == 40 && created.address?.locality == "Chiyoda" && created.group == "Tokyo trip")

            let bare = #"{"name":"Tokyo Station","latitude":35.681236,"longitude":139.767125,"visitedAt":"2024-05-01T09:30:00Z"}"#
            let edited = try await api.call(.put, "/api/v1/visits/\(created.id)", json: bare)
            #expect(edited.status == .ok)
            let fetched = try APIClient.decode(VisitResponse.self, try await api.call(.get, "/api/v1/visits/\(created.id)"))
            #expect(fetched.accuracy == nil && fetched.altitude == nil && fetched.address == nil && fetched.group == nil)
            #expect(fetched.labels.isEmpty && fetched.companions.isEmpty && fetched.notes.isEmpty && fetched.revision == 2)

            let row = try #require(try await VisitRow.select(core.database.sql).where("id", .equal, created.id).first(decoding: VisitRow.self))
            #expect(row.accuracy == nil && row.altitude == nil && row.address == nil && row.groupName == nil && row.deletedAt == nil)
            #expect(row.labels == "[]" && row.companions == "[]" && row.revision == 2)
            #expect(row.createdAt == Int64(created.createdAt.timeIntervalSince1970))

            let report = try await VisitTestApp.verify(api)
            #expect(report.intact && report.records == 2)
        }
    }

    @Test func theLiveFeedKeepsTheStaySettingsAndTheSettingsKeepTheLiveWindow() async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let chosen = #"{"distanceMeters":150,"durationMinutes":30}"#
            #expect(try await api.call(.put, "/api/v1/locations/settings", json: chosen).status == .ok)
            let point = #"{"_type":"location","lat":35.68124,"lon":139.76713,"tst":1714550700,"acc":10}"#
            #expect(try await api.call(.post, "/api/v1/locations/owntracks", json: point).status == .ok)
            // The live feed recorded its window without resetting what the person chose.
            #expect(try APIClient.decode(StaySettings.self, try await api.call(.get, "/api/v1/locations/settings"))
                == StaySettings(distanceMeters: 150, durationMinutes: 30))
            let userID = try #require(try await LocationSettingsRow.select(core.database.sql).first(decoding: LocationSettingsRow.self)).userID
            let window = try await LocationPointStore.liveSince(userID: userID, on: core.database.sql)
            #expect(window != nil)

            // And choosing new settings leaves the live window where the feed left it.
            #expect(try await api.call(.put, "/api/v1/locations/settings", json: #"{"distanceMeters":200,"durationMinutes":15}"#).status == .ok)
            let row = try #require(try await LocationSettingsRow.select(core.database.sql).where("user_id", .equal, userID)
                .first(decoding: LocationSettingsRow.self))
            #expect(row.settings == StaySettings(distanceMeters: 200, durationMinutes: 15))
            #expect(row.liveSince == window)
        }
    }
}
