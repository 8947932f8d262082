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
            descriptor: MetricNameDescriptor(namespace: "hibi", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                                             helpText: "Time to answer an HTTP request"),
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                      .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5)]
        )
    }

    public func record(method: String, status: Int, elapsed: Duration) {
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "hibi", subsystem: "http", metricName: "requests", unitName: "total",
                                                              helpText: "HTTP requests answered"),
                             labels: [("method", method), ("status", String(status))]).increment()
        duration.record(elapsed)
    }

    public func signInFailed() {
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "hibi", metricName: "sign_in_failures", unitName: "total",
                                                              helpText: "Failed sign-in attempts")).increment()
    }
}
