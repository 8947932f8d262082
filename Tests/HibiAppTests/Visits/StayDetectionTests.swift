import Foundation
import Testing
@testable import HibiApp

/// Stay detection on synthetic tracks whose stays are known (issue 17).
struct StayDetectionTests {
    static let start: Int64 = 1_714_550_400
    static let settings = StaySettings.standard

    /// A point `metresNorth` and `metresEast` of Tokyo Station.
    static func at(_ time: Int64, north: Double = 0, east: Double = 0) -> LocationPoint {
        LocationPoint(time: time, latitude: 35.681236 + north / 111_000, longitude: 139.767125 + east / 90_000)
    }

    /// Walks north at 1.5 m/s, a point every 10 s; stops for `stops` (start minute, minutes) with jitter.
    static func track(minutes: Int, stops: [(at: Int, minutes: Int)], jitter: Double = 0, seed: UInt64 = 7) -> [LocationPoint] {
        var rng = SplitMix(seed: seed)
        var points: [LocationPoint] = []
        var north = 0.0
        for step in 0..<(minutes * 6) {
            let minute = step / 6
            let stopped = stops.contains { minute >= $0.at && minute < $0.at + $0.minutes }
            if !stopped { north += 15 }
            let dx = jitter > 0 ? rng.uniform(-jitter, jitter) : 0, dy = jitter > 0 ? rng.uniform(-jitter, jitter) : 0
            points.append(at(start + Int64(step) * 10, north: north + dy, east: dx))
        }
        return points
    }

    @Test func aTwentyMinuteStopIsFoundAndATwoMinuteRedLightIsNot() {
        let points = Self.track(minutes: 80, stops: [(10, 20), (45, 2)])
        let stays = StayDetector.detect(points, settings: Self.settings)
        #expect(stays.count == 1)
        let stay = try? #require(stays.first)
        // The stop runs from minute 10 to 30; the method counts from the first point inside the circle.
        #expect(stay.map { $0.departure - $0.arrival >= 20 * 60 } == true)
        #expect(stay.map { $0.arrival <= Self.start + 600 && $0.arrival >= Self.start + 600 - 120 } == true)
    }

    @Test func gpsJitterDoesNotSplitOrHideAStay() {
        let points = Self.track(minutes: 90, stops: [(10, 30), (60, 15)], jitter: 40)
        let stays = StayDetector.detect(points, settings: Self.settings)
        #expect(stays.count == 2)
        #expect(stays.allSatisfy { $0.departure - $0.arrival >= 10 * 60 })
    }

    @Test func theFixtureTrackHasTwoStaysAndNoRedLight() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/locations/two-stops.gpx")
        let parsed = try VisitFormats.parseGPXWithTrack(try Data(contentsOf: url), importedAt: Date())
        let stays = StayDetector.detect(parsed.trackPoints, settings: Self.settings)
        #expect(stays.count == 2)
        // The café (minutes 10-30) and the museum (minutes 52-77).
        #expect(stays.map { ($0.arrival - Self.start) / 60 } == [8, 50])
    }

    @Test func aGapInTheDataInsideTheRadiusIsStillAStay() {
        // At home: a point at 22:00, the phone silent, the next at 22:40, then away.
        let points = [Self.at(Self.start), Self.at(Self.start + 2400, north: 5), Self.at(Self.start + 2410, north: 500)]
        let stays = StayDetector.detect(points, settings: Self.settings)
        #expect(stays.count == 1)
        #expect(stays.first?.departure == Self.start + 2400)
    }

    @Test func aSilenceLongerThanTheMaximumGapIsNotAStay() {
        let points = [Self.at(Self.start), Self.at(Self.start + 13 * 3600)]
        #expect(StayDetector.detect(points, settings: Self.settings).isEmpty)
    }

    @Test func aStayAcrossMidnightIsOneStay() {
        // 23:50 to 00:30 UTC: times are instants, never cut at a date line.
        let midnight: Int64 = 1_714_608_000
        var points: [LocationPoint] = []
        for t in stride(from: midnight - 600, through: midnight + 1800, by: 60) { points.append(Self.at(t, north: Double(t % 7))) }
        points.append(Self.at(midnight + 1860, north: 1000))
        let stays = StayDetector.detect(points, settings: Self.settings)
        #expect(stays.count == 1)
        #expect(stays.first?.arrival == midnight - 600)
        #expect(stays.first?.departure == midnight + 1800)
    }

    @Test func aLiveFeedOffersAStayOnlyOnceThePersonLeaves() {
        var detector = StayDetector(settings: Self.settings)
        var found: [StayCandidate] = []
        for t in stride(from: Self.start, through: Self.start + 1800, by: 30) { found += detector.add(Self.at(t)) }
        #expect(found.isEmpty)
        found += detector.add(Self.at(Self.start + 1830, north: 400))
        #expect(found.count == 1)
        #expect(found.first?.pointCount == 61)
    }

    @Test func settingsChangeWhatCounts() {
        let points = Self.track(minutes: 40, stops: [(10, 6)])
        #expect(StayDetector.detect(points, settings: Self.settings).isEmpty)
        #expect(StayDetector.detect(points, settings: StaySettings(distanceMeters: 100, durationMinutes: 5)).count == 1)
    }

    @Test func offersAreMergedWithVisitsAndNamedFromKnownPlaces() {
        let stay = StayCandidate(arrival: Self.start, departure: Self.start + 1800, latitude: 35.681236, longitude: 139.767125, pointCount: 10)
        let cafe = StayOffer.Place(id: "v1", name: "Café Tokyo", latitude: 35.68125, longitude: 139.76713, time: Self.start - 86400 * 30)
        #expect(StayOffer.decide(stay, settings: Self.settings, storedStays: [], visits: [cafe]) == .offer)
        #expect(StayOffer.name(for: stay, settings: Self.settings, knownPlaces: [cafe]) == "Café Tokyo")
        var sameDay = cafe
        sameDay.time = Self.start + 600
        #expect(StayOffer.decide(stay, settings: Self.settings, storedStays: [], visits: [sameDay]) == .merged(visitID: "v1"))
        #expect(StayOffer.decide(stay, settings: Self.settings, storedStays: [(Self.start + 60, Self.start + 900, 35.681236, 139.767125)], visits: []) == .known)
        let far = StayOffer.Place(id: "v2", name: "Elsewhere", latitude: 35.7, longitude: 139.8, time: Self.start)
        #expect(StayOffer.name(for: stay, settings: Self.settings, knownPlaces: [far]).hasPrefix("35.68124, 139.7671"))
    }
}

/// A small seeded generator (SplitMix64), so random inputs are the same on every run; shared by the tests here.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
