import Foundation
import Hummingbird
import Testing
@testable import HibiApp

/// Issue 30, item 4: the API paths are typed (`DiaryAPIPaths`, `VideoAPIPaths`, `HealthAPIPaths`, `VisitAPIPaths`,
/// `AccountAPIPaths`, `JournalAPIPaths`) and registered with those functions; this holds each feature's registered routes and its OpenAPI fragments to
/// each other, so a route renamed in one place and not the other (or an operation documented that nothing serves)
/// fails here instead of in a client.
@Suite struct APIPathsTests {
    /// face.json documents the diary's face routes and Accounts' sign-in by face; takeout.json Accounts' takeout.
    @Test func everyDiaryVideoAndAccountRouteIsADocumentedOperationAndBack() async throws {
        let (served, documented) = try await Self.compare({ [$0.diary, $0.videos, $0.accounts] },
                                                          fragments: ["diary", "face", "videos", "accounts", "takeout"])
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(served.contains("get " + APIPaths.url(DiaryAPIPaths.photo("{id}", "{photo}"))))
        #expect(served.contains("delete " + APIPaths.url(VideoAPIPaths.item("{id}", video: "{videoId}"))))
        #expect(served.contains("delete " + APIPaths.url(AccountAPIPaths.token("{id}"))))
        #expect(served.contains("post " + APIPaths.url(AccountAPIPaths.faceFrame)))
    }

    @Test func everyJournalRouteIsADocumentedOperationAndBack() async throws {
        let (served, documented) = try await Self.compare({ [$0.journal] }, fragments: ["journal"])
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(served.contains("put " + APIPaths.url(JournalAPIPaths.rating("{date}"))))
        #expect(served.contains("get " + APIPaths.url(JournalAPIPaths.review("week", "{period}"))))
    }

    /// Health, and Visits with its location history (the phones' two endpoints included, which sit outside the
    /// signed-in group).
    @Test func everyHealthAndVisitRouteIsADocumentedOperationAndBack() async throws {
        let (served, documented) = try await Self.compare({ [$0.health, $0.visits] }, fragments: ["health", "visits", "locations"])
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(served.contains("get " + APIPaths.url(HealthAPIPaths.electrocardiogram("{name}"))))
        #expect(served.contains("delete " + APIPaths.url(VisitAPIPaths.photo("{id}", "{photo}"))))
        #expect(served.contains("post " + APIPaths.url(VisitAPIPaths.ownTracks)))
    }

    /// The features' API routes as the router describes them ("get /api/v1/..."), and the operations the named
    /// fragments of Resources/openapi document.
    static func compare(_ features: (Features) -> [any Feature], fragments: [String]) async throws -> (served: Set<String>, documented: Set<String>) {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger, for: .command)
        let router = Router(context: HibiRequestContext.self)
        for feature in features(core.features) {
            router.addRoutes(feature.routes().api, atPath: RouterPath(APIPaths.root))
        }
        await core.database.shutdown()
        // HEAD on a stream is GET without the body; OpenAPI documents the GET.
        let served = Set(router.routes.filter { $0.method != .head }.map { "\($0.method.rawValue.lowercased()) \($0.path.description)" })
        var documented = Set<String>()
        for fragment in fragments {
            let data = try Data(contentsOf: URL(fileURLWithPath: TestApp.resourcesDirectory + "/openapi/\(fragment).json"))
            let paths = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["paths"] as? [String: [String: Any]])
            for (path, item) in paths {
                for method in item.keys where ["get", "post", "put", "patch", "delete"].contains(method) { documented.insert("\(method) \(path)") }
            }
        }
        return (served, documented)
    }
}
