import Foundation
import Testing
@testable import HibiApp

/// GPX files of the shapes real tools write (issue 17): waypoints without <time>, a track only,
/// routes, GPX 1.0 and 1.1, a BOM, Garmin extensions. Every import says what it did.
struct GPXImportTests {
    static let importedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static func parse(_ text: String, bom: Bool = false) throws -> (visits: [VisitFields], report: ImportReport) {
        var bytes = Array(text.utf8)
        if bom { bytes = [0xEF, 0xBB, 0xBF] + bytes }
        return try VisitFormats.parseGPXReport(Data(bytes), importedAt: importedAt)
    }

    static func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? {
        report.kinds.first { $0.kind == name }
    }

    @Test func waypointsWithoutTimeTakeTheMetadataTimeAndAreLabelledApproximate() throws {
        let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="GPSBabel" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><name>Points of interest</name><time>2024-03-01T08:00:00Z</time></metadata>
          <wpt lat="35.6586" lon="139.7454"><name>Tokyo Tower</name><sym>Flag</sym></wpt>
          <wpt lat="35.7101" lon="139.8107"><time>2024-03-02T10:00:00Z</time><name>Skytree</name></wpt>
        </gpx>
        """
        let (visits, report) = try Self.parse(gpx)
        #expect(visits.count == 2)
        #expect(visits[0].visitedAt == Date(timeIntervalSince1970: 1_709_280_000))
        #expect(visits[0].labels.contains(VisitFormats.approximateTimeLabel))
        #expect(!visits[1].labels.contains(VisitFormats.approximateTimeLabel))
        let wpt = try #require(Self.kind(report, "wpt"))
        #expect(wpt.added == 2 && wpt.approximateTime == 1 && wpt.skipped.isEmpty)
        #expect(report.lines(.en) == ["Waypoints: 2 added, 1 of them with an approximate time"])
    }

    @Test func withoutAnyTimeTheImportTimeIsUsed() throws {
        let (visits, report) = try Self.parse("<gpx version=\"1.1\"><wpt lat=\"1\" lon=\"2\"><name>Cafe</name></wpt><wpt lat=\"3\" lon=\"4\"/></gpx>")
        #expect(visits.map(\.visitedAt) == [Self.importedAt, Self.importedAt])
        // A point without a name is named by its coordinates rather than refused.
        #expect(visits[1].name == "3.00000, 4.00000")
        #expect(Self.kind(report, "wpt")?.approximateTime == 2)
    }

    @Test func gpx10TimeUnderTheRootAndBOMAndGarminExtensions() throws {
        let gpx = """
        <?xml version="1.0"?>
        <gpx version="1.0" creator="Garmin Desktop App" xmlns="http://www.topografix.com/GPX/1/0" xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3">
        <time>2023-07-01T12:00:00Z</time>
        <wpt lat="48.8584" lon="2.2945"><name>Eiffel</name>
          <extensions><gpxx:WaypointExtension><gpxx:Address><gpxx:City>Paris</gpxx:City></gpxx:Address>
          <gpxx:Categories><gpxx:Category>Sights</gpxx:Category></gpxx:Categories></gpxx:WaypointExtension></extensions>
        </wpt>
        </gpx>
        """
        let (visits, report) = try Self.parse(gpx, bom: true)
        #expect(visits.count == 1)
        #expect(visits[0].name == "Eiffel")
        #expect(visits[0].visitedAt == Date(timeIntervalSince1970: 1_688_212_800))
        // Garmin's elements are not mistaken for Hibi's labels or address.
        #expect(visits[0].labels == [VisitFormats.approximateTimeLabel])
        #expect(visits[0].address == nil)
        #expect(Self.kind(report, "wpt")?.added == 1)
    }

    @Test func aTrackOnlyFileGivesItsTrackPointsForTheLocationHistory() throws {
        let gpx = """
        <gpx version="1.1" creator="Forerunner 255">
          <trk><name>Morning run</name><trkseg>
            <trkpt lat="35.0" lon="139.0"><ele>10</ele><time>2024-05-01T06:00:00Z</time>
              <extensions><gpxtpx:TrackPointExtension xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><gpxtpx:hr>120</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="35.001" lon="139.001"><time>2024-05-01T06:00:10.500+00:00</time></trkpt>
            <trkpt lat="35.002" lon="139.002"></trkpt>
            <trkpt lat="95" lon="139.002"><time>2024-05-01T06:00:20Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """
        let parsed = try VisitFormats.parseGPXWithTrack(Data(gpx.utf8), importedAt: Self.importedAt)
        #expect(parsed.visits.isEmpty)
        #expect(parsed.trackPoints == [LocationPoint(time: 1_714_543_200, latitude: 35, longitude: 139),
                                       LocationPoint(time: 1_714_543_210, latitude: 35.001, longitude: 139.001)])
        // What could not be stored is said, with why and where.
        let trkpt = try #require(Self.kind(parsed.report, "trkpt"))
        #expect(trkpt.skipped == [ImportReport.Skip(reason: .missingValue, count: 1, firstAt: "line 6"),
                                  ImportReport.Skip(reason: .outOfRange, count: 1, firstAt: "line 7")])
    }

    @Test func routePointsAreImportedAndRepeatsWithinTheFileAreDuplicates() throws {
        let gpx = """
        <gpx version="1.1"><metadata><time>2024-06-01T00:00:00Z</time></metadata>
          <rte><name>Plan</name>
            <rtept lat="34.9858" lon="135.7588"><name>Kyoto Station</name></rtept>
            <rtept lat="35.0394" lon="135.7292"><name>Kinkaku-ji</name></rtept>
            <rtept lat="35.0394" lon="135.7292"><name>Kinkaku-ji</name></rtept>
          </rte>
        </gpx>
        """
        let (visits, report) = try Self.parse(gpx)
        #expect(visits.map(\.name) == ["Kyoto Station", "Kinkaku-ji"])
        let rtept = try #require(Self.kind(report, "rtept"))
        #expect(rtept.added == 2 && rtept.duplicates == 1 && rtept.approximateTime == 2)
    }

    @Test func aBadTimeStillRefusesTheFileWithItsLine() {
        #expect {
            try Self.parse("<gpx>\n<wpt lat=\"1\" lon=\"2\">\n<time>soon</time></wpt></gpx>")
        } throws: { error in
            guard case let VisitError.importInvalid(position, _) = error else { return false }
            return position == "line 3"
        }
    }

    @Test func theAPIAnswersWithTheReport() async throws {
        try await VisitTestApp.run { browser, _ in
            let (aiko, _) = try await VisitTestApp.twoUsers(browser)
            let track = "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk>"
                + "<wpt lat=\"1\" lon=\"2\"><name>Home</name></wpt></gpx>"
            let response = try await aiko.call(.post, "/api/v1/visits/import", json: track, contentType: "application/gpx+xml")
            #expect(response.status == .created)
            let body = try APIClient.decode(ImportResponse.self, response)
            #expect(body.imported == 1)
            let report = try #require(body.report)
            // The track point is stored in the location history, and the answer says so.
            #expect(Self.kind(report, "trkpt")?.added == 1)
            #expect(body.trackPointsStored == 1)
            #expect(Self.kind(report, "wpt")?.approximateTime == 1)
            #expect(body.summary?.contains("1 track point stored") == true)
            let list = try APIClient.decode([VisitResponse].self, try await aiko.call(.get, "/api/v1/visits"))
            #expect(list.first?.labels.contains(VisitFormats.approximateTimeLabel) == true)
            #expect(try await VisitTestApp.verify(aiko).intact)
        }
    }
}
