import Foundation
import Testing
@testable import HibiApp

/// The readers behind the location history, on known inputs: the JSON splitter, Google's shapes,
/// the phones' payloads and the fast time parser.
struct LocationHistoryTests {
    static func scan(_ text: String, chunk: Int, maxElementBytes: Int = 1 << 20) throws -> [(String, String)] {
        var scanner = JSONElementScanner(maxElementBytes: maxElementBytes)
        var found: [(String, String)] = []
        let bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count {
            let end = min(at + chunk, bytes.count)
            try bytes[at..<end].withUnsafeBufferPointer { buffer in
                try scanner.feed(buffer) { found.append(($0.key, String(decoding: $0.bytes, as: UTF8.self))) }
            }
            at = end
        }
        #expect(scanner.isComplete)
        return found
    }

    @Test func theSplitterFindsEachObjectWhateverTheChunkSize() throws {
        let text = #"{"version": "x{[", "locations": [{"a": "}\"]"}, {"b": [1, {"c": 2}]}], "other": {"d": [{"e": 1}]}, "rawSignals": [{"f": 3}]}"#
        for chunk in [1, 2, 7, 4096] {
            let found = try Self.scan(text, chunk: chunk)
            #expect(found.map(\.0) == ["locations", "locations", "rawSignals"])
            #expect(found.map(\.1) == [#"{"a": "}\"]"}"#, #"{"b": [1, {"c": 2}]}"#, #"{"f": 3}"#])
        }
        // The iOS export: a root array.
        #expect(try Self.scan("\u{FEFF}[{\"x\": 1}, {\"y\": 2}]", chunk: 3).map(\.0) == ["", ""])
    }

    @Test func anOversizedElementAndNonJSONAreRefused() {
        #expect(throws: JSONElementScanner.Failure.elementTooLarge(key: "locations")) {
            _ = try Self.scan(#"{"locations": [{"a": "0123456789012345678901234567890123456789"}]}"#, chunk: 5, maxElementBytes: 16)
        }
        #expect(throws: JSONElementScanner.Failure.notJSON) { _ = try Self.scan("hello", chunk: 5) }
    }

    @Test func aHostileElementIsSkippedWithItsPositionAndTheRestIsRead() throws {
        let depth = 100_000
        let text = #"{"locations": [{"a": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + #"}, {"latitudeE7": 356812360, "longitudeE7": 1397671250, "timestamp": "2024-05-01T08:00:00Z"}]}"#
        var reader = TakeoutLocationReader()
        var position = 0
        for (key, element) in try Self.scan(text, chunk: 65536) {
            reader.take(JSONElementScanner.Element(key: key, bytes: Array(element.utf8)), position: position)
            position += 1
        }
        #expect(reader.points.count == 1)
        #expect(reader.report.kinds.first?.kind == "location")
        #expect(reader.report.kinds.first?.skipped == [ImportReport.Skip(reason: .missingValue, count: 1, firstAt: "locations[0]")])
    }

    @Test func coordinatesInEveryGoogleSpelling() {
        #expect(TakeoutLocationReader.latLng("35.6812360°, 139.7671250°").map { abs($0.0 - 35.681236) < 1e-9 && abs($0.1 - 139.767125) < 1e-9 } == true)
        #expect(TakeoutLocationReader.latLng("geo:35.658581,139.745433").map { abs($0.0 - 35.658581) < 1e-9 && abs($0.1 - 139.745433) < 1e-9 } == true)
        #expect(TakeoutLocationReader.latLng(["latitudeE7": 356812360, "longitudeE7": 1397671250]).map { abs($0.0 - 35.681236) < 1e-9 && abs($0.1 - 139.767125) < 1e-9 } == true)
        #expect(TakeoutLocationReader.latLng("somewhere") == nil)
    }

    @Test func trackerTimesAreReadFastAndRight() {
        #expect(LocationTime.parse("2024-05-01T06:00:00Z") == 1_714_543_200)
        #expect(LocationTime.parse("2024-05-01T06:00:00.987Z") == 1_714_543_200)
        #expect(LocationTime.parse("2024-05-01T15:00:00+09:00") == 1_714_543_200)
        #expect(LocationTime.parse("2024-05-01T15:00:00+0900") == 1_714_543_200)
        #expect(LocationTime.parse("2024-04-30T21:00:00-09:00") == 1_714_543_200)
        #expect(LocationTime.parse("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(LocationTime.parse("1969-12-31T23:59:59Z") == -1)
        #expect(LocationTime.parse("yesterday") == nil)
        #expect(LocationTime.parse("2024-13-01T00:00:00Z") == nil)
    }

    @Test func ownTracksKeepsLocationsAndIgnoresOtherMessages() throws {
        let (points, report) = try LiveLocation.ownTracks(Data(#"[{"_type":"location","lat":35.1,"lon":139.2,"tst":1714550400,"acc":5},{"_type":"lwt","tst":1},{"_type":"location","lat":135,"lon":1,"tst":1}]"#.utf8))
        #expect(points == [LocationPoint(time: 1_714_550_400, latitude: 35.1, longitude: 139.2, accuracy: 5)])
        #expect(report.kinds.first { $0.kind == "location" }?.skipped.first?.reason == .outOfRange)
        #expect(throws: LiveLocation.Failure.notJSON) { _ = try LiveLocation.ownTracks(Data("{".utf8)) }
    }

    @Test func overlandReadsGeoJSONFeaturesWithTheirTimestamps() throws {
        let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[139.2,35.1]},"properties":{"timestamp":"2024-05-01T08:00:00Z","horizontal_accuracy":7}},{"type":"Feature","geometry":{"type":"Point","coordinates":[139.2,35.1]},"properties":{"timestamp":"soon"}}]}"#
        let (points, report) = try LiveLocation.overland(Data(body.utf8))
        #expect(points == [LocationPoint(time: 1_714_550_400, latitude: 35.1, longitude: 139.2, accuracy: 7)])
        #expect(report.kinds.first?.skipped.first?.reason == .unparseableDate)
        #expect(throws: LiveLocation.Failure.self) { _ = try LiveLocation.overland(Data("[]".utf8)) }
    }
}
