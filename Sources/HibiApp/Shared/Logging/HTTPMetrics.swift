import Foundation
import Prometheus

/// Metrics Hibi records directly into its registry (no global MetricsSystem), so every
/// application instance, tests included, exposes its own figures at /metrics.
public struct HTTPMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let duration: DurationHistogram

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.duration = registry.makeDurationHistogram(
            name: "hibi_http_request_duration_seconds",
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                      .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5)],
            help: "Time to answer an HTTP request"
        )
    }

    public func record(method: String, status: Int, elapsed: Duration) {
        registry.makeCounter(name: "hibi_http_requests_total", labels: [("method", method), ("status", String(status))],
                             help: "HTTP requests answered").increment()
        duration.record(elapsed)
    }

    public func signInFailed() {
        registry.makeCounter(name: "hibi_sign_in_failures_total", help: "Failed sign-in attempts").increment()
    }
}
