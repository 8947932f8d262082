import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

/// Issue 28, item 10: /metrics answered anyone. Now only with the bearer token or from this machine.
struct MetricsAccessTests {
    @Test func metricsNeedTheTokenOrLoopback() async throws {
        var config = try await ThrottleTests.fileConfig()  // trusts a proxy on loopback, as behind a reverse proxy
        config.metricsToken = "s3cret-metrics"
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        try await app.test(.live) { client in
            // From the internet, through the proxy: refused, with a wrong token too.
            let outside = try await client.executeRequest(uri: "/metrics", method: .get, headers: [.xForwardedFor: "203.0.113.9"], body: nil)
            #expect(outside.status == .forbidden)
            #expect(!String(buffer: outside.body).contains("hibi_http_requests_total"))
            let wrong = try await client.executeRequest(uri: "/metrics", method: .get,
                                                        headers: [.xForwardedFor: "203.0.113.9", .authorization: "Bearer nope"], body: nil)
            #expect(wrong.status == .forbidden)
            // With the token, from anywhere.
            let scraper = try await client.executeRequest(uri: "/metrics", method: .get,
                                                          headers: [.xForwardedFor: "203.0.113.9", .authorization: "Bearer s3cret-metrics"], body: nil)
            #expect(scraper.status == .ok && String(buffer: scraper.body).contains("hibi_http_requests_total"))
            // From loopback itself (no forwarded address): allowed without the token.
            let local = try await client.executeRequest(uri: "/metrics", method: .get, headers: [:], body: nil)
            #expect(local.status == .ok)
        }
        #expect(OperationsRoutes.mayReadMetrics(authorization: nil, clientAddress: "::1", token: nil))
        #expect(!OperationsRoutes.mayReadMetrics(authorization: nil, clientAddress: "192.168.1.5", token: nil))
        #expect(!OperationsRoutes.mayReadMetrics(authorization: "Bearer x", clientAddress: "192.168.1.5", token: nil))
    }
}
