import Foundation
import Testing
@testable import HibiApp

/// Issue 29, item 6: a map where there is something to draw (a visit, or a route with two distinct
/// points), today's page included; no empty box otherwise.
@Suite(.serialized) struct DayMapDrawnTests {
    @Test func drawnOnlyWhereThereIsSomethingToDraw() {
        let visit = DayMap.Place(latitude: 35.68, longitude: 139.76, name: "Tokyo Station")
        #expect(DayMap.svg(places: [visit], tracks: [], label: "x") != nil, "one visit")
        #expect(DayMap.svg(places: [], tracks: [[(35.68, 139.76), (35.69, 139.77)]], label: "x") != nil, "a route")
        #expect(DayMap.svg(places: [], tracks: [[(35.68, 139.76)]], label: "x") == nil, "a one-point route: no empty box")
        #expect(DayMap.svg(places: [], tracks: [[(35.68, 139.76), (35.68, 139.76), (35.68, 139.76)]], label: "x") == nil, "one spot, three times")
        #expect(DayMap.svg(places: [], tracks: [[(.nan, 139.76), (35.68, 139.76)]], label: "x") == nil)
        let withStub = DayMap.svg(places: [visit], tracks: [[(35.68, 139.76)]], label: "x") ?? ""
        #expect(!withStub.contains("day-map-track"), "the one-point route is not drawn beside the visit")
    }

    @Test func todaysPageWithOneVisitShowsTheMap() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let empty = try await browser.get("/")
            #expect(!empty.body.contains(#"id="day-map""#))
            // Without a time, the visit is now: today.
            _ = try await VisitTestApp.create(api, #"{"name":"Tokyo Station","latitude":35.681236,"longitude":139.767125}"#)
            let today = try await browser.get("/")
            #expect(today.body.contains(#"id="day-map""#))
            #expect(today.body.contains("<title>1. Tokyo Station</title>"))
        }
    }
}
