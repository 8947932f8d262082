import Foundation
import Hummingbird
import Prometheus
import ServiceLifecycle

struct HealthStatus: Codable, Sendable {
    let status: String
    let database: String
    let version: String
}

/// /healthz for load balancers and /metrics for Prometheus; neither reveals personal data.
struct OperationsRoutes: Sendable {
    let database: Database
    let metrics: HTTPMetrics
    let openAPIPath: String

    func register(on router: Router<HibiRequestContext>) {
        router.get("/healthz") { _, _ in
            let reachable = await database.isReachable()
            return JSONBody(HealthStatus(status: reachable ? "ok" : "unavailable", database: reachable ? "reachable" : "unreachable",
                                         version: hibiVersion),
                            status: reachable ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        router.get("/api/v1/openapi.json") { _, _ in
            guard let data = FileManager.default.contents(atPath: openAPIPath) else { throw RequestError.notFound }
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}

/// Closes the database pool after the HTTP server has drained, on SIGTERM or at the end of a test.
struct DatabaseService: Service {
    let database: Database

    func run() async throws {
        try? await gracefulShutdown()
        await database.shutdown()
    }
}
