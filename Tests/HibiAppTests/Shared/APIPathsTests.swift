import Foundation
import Hummingbird
import Testing
@testable import HibiApp

/// Issue 30, item 4: the diary's, the video library's and the journal's API paths are typed (`DiaryAPIPaths`,
/// `VideoAPIPaths`, `JournalAPIPaths`)
/// and registered with those functions; this holds the registered routes and the OpenAPI fragments to each
/// other, so a route renamed in one place and not the other (or an operation documented that nothing serves)
/// fails here instead of in a client.
@Suite struct APIPathsTests {
    @Test func everyDiaryVideoAndJournalRouteIsADocumentedOperationAndBack() async throws {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger, for: .command)
        let router = Router(context: HibiRequestContext.self)
        for feature in [core.features.diary as any Feature, core.features.videos, core.features.journal] {
            router.addRoutes(feature.routes().api, atPath: RouterPath(APIPaths.root))
        }
        await core.database.shutdown()
        // HEAD on a stream is GET without the body; OpenAPI documents the GET.
        let served = Set(router.routes.filter { $0.method != .head }.map { "\($0.method.rawValue.lowercased()) \($0.path.description)" })
        var documented = Set<String>()
        for fragment in ["diary", "face", "videos", "journal"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: TestApp.resourcesDirectory + "/openapi/\(fragment).json"))
            let paths = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["paths"] as? [String: [String: Any]])
            for (path, item) in paths {
                // face.json also documents sign-in by face, which Accounts serves.
                for method in item.keys where ["get", "post", "put", "patch", "delete"].contains(method) && !path.hasPrefix("/api/v1/auth/") { documented.insert("\(method) \(path)") }
            }
        }
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(served.contains("get " + APIPaths.url(DiaryAPIPaths.photo("{id}", "{photo}"))))
        #expect(served.contains("delete " + APIPaths.url(VideoAPIPaths.item("{id}", video: "{videoId}"))))
        #expect(served.contains("put " + APIPaths.url(JournalAPIPaths.rating("{date}"))))
        #expect(served.contains("get " + APIPaths.url(JournalAPIPaths.review("week", "{period}"))))
    }
}
