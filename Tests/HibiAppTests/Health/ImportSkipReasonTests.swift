import Foundation
import Testing
@testable import HibiApp

/// Issue 17, item 4: every reason an import gives for a skipped element is one the code can give and the
/// API documents (the unused `trackPoint` was removed: track points are stored, or skipped for a reason
/// that says why, such as `tooMany` beyond a route's cap).
@Suite struct ImportSkipReasonTests {
    static func reasons(in file: String, schema: String) throws -> [String] {
        let path = (TestApp.resourcesDirectory as NSString).appendingPathComponent("openapi/\(file)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let schemas = (root["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let kinds = ((schemas?[schema] as? [String: Any])?["properties"] as? [String: Any])?["kinds"] as? [String: Any]
        let kind = (kinds?["items"] as? [String: Any])?["properties"] as? [String: Any]
        let skip = ((kind?["skipped"] as? [String: Any])?["items"] as? [String: Any])?["properties"] as? [String: Any]
        return try #require((skip?["reason"] as? [String: Any])?["enum"] as? [String])
    }

    @Test func theDocumentedReasonsAreTheReasonsTheCodeHas() throws {
        let all = ImportSkipReason.allCases.map(\.rawValue)
        #expect(!all.contains("trackPoint"))
        // Every reason is documented where it can be given: Apple Health imports all but the location history's
        // suspicious times (beforeEpoch, inFuture, sameSecond), which only the location and visits imports give.
        let health = try Self.reasons(in: "health.json", schema: "HealthImportReport")
        let visits = try Self.reasons(in: "visits.json", schema: "ImportReport")
        #expect(Set(health).isSubset(of: Set(all)) && Set(visits).isSubset(of: Set(all)))
        #expect(Set(health).union(visits) == Set(all))
        #expect(Set(visits).isSuperset(of: ["beforeEpoch", "inFuture", "sameSecond"]))
        for reason in ImportSkipReason.allCases {
            #expect(!reason.text.en.isEmpty && !reason.text.ja.isEmpty)
        }
    }

    @Test func aRoutePointBeyondTheCapIsSkippedAsTooManyNotDropped() throws {
        let gpx = """
        <gpx version="1.1"><trk><trkseg>
        <trkpt lat="35.0" lon="139.0"><time>2024-05-05T09:00:00Z</time></trkpt>
        <trkpt lat="35.1" lon="139.1"><time>2024-05-05T09:00:01Z</time></trkpt>
        <trkpt lat="35.2" lon="139.2"><time>2024-05-05T09:00:02Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        let parsed = try WorkoutRouteGPX.parse(MemoryByteStream(gpx), maxPoints: 2)
        #expect(parsed.points.count == 2)
        #expect(parsed.skips.map(\.reason) == [.tooMany])
    }
}
