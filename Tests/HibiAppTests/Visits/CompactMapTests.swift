import Foundation
import Testing
@testable import HibiApp

/// Issue 33, item 5: the map's data for 10,000 visits at most 300 KB, every visit still there and reachable.
struct CompactMapTests {
    func points(_ count: Int) -> [MapPoint] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            MapPoint(id: UUID().uuidString.lowercased(), lat: Double.random(in: 24...45, using: &generator),
                     lon: Double.random(in: 122...146, using: &generator), name: "Place \(index % 2000)",
                     at: Date(timeIntervalSince1970: 1_704_067_200 + Double(index) * 3_137))
        }
    }

    @Test func tenThousandVisitsFitInThreeHundredKilobytesAndComeBackWithinAMetre() throws {
        let original = points(10_000)
        let compact = CompactMap.encode(original)
        let size = try JSONCoding.encoder.encode(compact).count
        #expect(size <= 300_000, "compact map: \(size) bytes")
        #expect(try JSONCoding.encoder.encode(original).count > 4 * size)
        let lats = CompactMap.decode(compact.lat), lons = CompactMap.decode(compact.lon)
        let minutes = CompactMap.decode(compact.at), names = CompactMap.decode(compact.name)
        #expect(compact.count == original.count && lats.count == original.count && names.count == original.count)
        let ids = Array(compact.ids)
        var prefixes = Set<String>()
        for (index, point) in original.enumerated() {
            #expect(abs(Double(lats[index]) / 100_000 - point.lat) <= 0.000_005 + 1e-12)
            #expect(abs(Double(lons[index]) / 100_000 - point.lon) <= 0.000_005 + 1e-12)
            #expect(minutes[index] == Int64(point.at.timeIntervalSince1970 / 60))
            #expect(compact.names[Int(names[index])] == point.name)
            let prefix = String(ids[(index * compact.idLength)..<((index + 1) * compact.idLength)])
            #expect(point.id.hasPrefix(prefix))
            prefixes.insert(prefix)
        }
        #expect(prefixes.count == original.count, "every visit has a prefix of its own")
    }

    @Test func anEmptyMapAndOneVisit() {
        #expect(CompactMap.encode([]).count == 0)
        let one = CompactMap.encode([MapPoint(id: "abcdef0123", lat: -33.86785, lon: 151.20732, name: "Sydney", at: Date(timeIntervalSince1970: 0))])
        #expect(one.idLength == 6 && one.ids == "abcdef")
        #expect(CompactMap.decode(one.lat) == [-3_386_785] && CompactMap.decode(one.lon) == [15_120_732])
    }
}
