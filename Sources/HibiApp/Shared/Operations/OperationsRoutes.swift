import Foundation
import Hummingbird
import Prometheus
import ServiceLifecycle
import Synchronization

struct HealthStatus: Codable, Sendable {
    let status: String
    let database: String
    let version: String
}

/// /healthz for load balancers and /metrics for Prometheus; neither reveals personal data.
struct OperationsRoutes: Sendable {
    let database: Database
    let metrics: HTTPMetrics
    /// Present when serving; a core opened for a command has none, and then the route is not added.
    let openAPIDocument: Data?
    /// `HIBI_METRICS_TOKEN`, when set.
    var metricsToken: String? = nil

    /// Whether a request may read /metrics: with the bearer token, or from loopback as the client address is
    /// resolved through `HIBI_TRUSTED_PROXIES` (a proxy on the same machine forwards the real client's address, so
    /// the public does not count as loopback; "local" is a request with no socket, in process).
    static func mayReadMetrics(authorization: String?, clientAddress: String, token: String?) -> Bool {
        if let token, let given = authorization, given.hasPrefix("Bearer "), Secrets.constantTimeEquals(String(given.dropFirst(7)), token) {
            return true
        }
        return clientAddress == "local" || IPAddress(clientAddress).map { IPRange("127.0.0.0/8")?.contains($0) == true || $0.description == "0:0:0:0:0:0:0:1" } == true
    }

    func register(on router: some RouterMethods<HibiRequestContext>) {
        router.get("/healthz") { _, _ in
            let reachable = await database.isReachable()
            return JSONBody(HealthStatus(status: reachable ? "ok" : "unavailable", database: reachable ? "reachable" : "unreachable",
                                         version: hibiVersion),
                            status: reachable ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { request, context in
            guard Self.mayReadMetrics(authorization: request.headers[.authorization], clientAddress: context.clientAddress, token: metricsToken) else {
                return Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: "/metrics needs Authorization: Bearer $HIBI_METRICS_TOKEN, or a request from this machine.\n")))
            }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        if let openAPIDocument {
            router.get("/api/v1/openapi.json") { _, _ in
                Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                         body: .init(byteBuffer: ByteBuffer(bytes: openAPIDocument)))
            }
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

/// The OpenAPI document is kept beside each feature's routes as one fragment per feature
/// (`Resources/openapi/*.json`); `base.json` holds info, security and shared components.
/// Fragments add `paths` and `components.schemas`/`components.responses`; a duplicate name is an error.
public enum OpenAPIDocument {
    public struct CompositionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The composed document of `directory`, composed once per process. A server composes it once anyway; each of the
    /// 640 tests of a run opens an app, and composing each time (JSONSerialization writing it out) was 7% of the run's CPU.
    /// The fragments ship with the binary and are not edited while it runs, so nothing is ever stale.
    public static func composedOnce(directory: String) throws -> Data {
        if let data = composed.withLock({ $0[directory] }) { return data }
        let data = try compose(directory: directory)
        composed.withLock { $0[directory] = data }
        return data
    }

    private static let composed = Mutex<[String: Data]>([:])

    public static func compose(directory: String) throws -> Data {
        let manager = FileManager.default
        let basePath = (directory as NSString).appendingPathComponent("base.json")
        guard let baseData = manager.contents(atPath: basePath),
              var document = try JSONSerialization.jsonObject(with: baseData) as? [String: Any] else {
            throw CompositionError(description: "OpenAPI base document missing or invalid at \(basePath)")
        }
        let fragments = try manager.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") && $0 != "base.json" }.sorted()
        var paths = document["paths"] as? [String: Any] ?? [:]
        var components = document["components"] as? [String: Any] ?? [:]
        for name in fragments {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = manager.contents(atPath: path),
                  let fragment = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw CompositionError(description: "OpenAPI fragment \(name) is not a JSON object")
            }
            for (key, value) in fragment["paths"] as? [String: Any] ?? [:] {
                guard paths[key] == nil else { throw CompositionError(description: "OpenAPI path \(key) defined twice (\(name))") }
                paths[key] = value
            }
            for (section, entries) in fragment["components"] as? [String: Any] ?? [:] {
                var merged = components[section] as? [String: Any] ?? [:]
                for (key, value) in entries as? [String: Any] ?? [:] {
                    guard merged[key] == nil else { throw CompositionError(description: "OpenAPI component \(section).\(key) defined twice (\(name))") }
                    merged[key] = value
                }
                components[section] = merged
            }
        }
        document["paths"] = paths
        document["components"] = components
        return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
