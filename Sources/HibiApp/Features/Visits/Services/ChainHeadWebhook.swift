import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a user's chain head to the URL they chose, so a copy lives outside this server:
/// anyone holding an older head can later prove the chain was not rewritten behind it.
public struct ChainHeadWebhook: Sendable {
    public struct Payload: Codable, Sendable, Equatable {
        public var user: String
        public var seq: Int
        public var hash: String
        public var publicKey: String
        public var sentAt: Date
    }

    let timeout: TimeInterval

    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    /// Returns a short status for the settings page ("200", or why it failed). Never throws:
    /// a dead webhook must not break saving a visit.
    public func send(url: String, payload: Payload) async -> String {
        guard let target = URL(string: url) else { return "invalid URL" }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Hibi", forHTTPHeaderField: "User-Agent")
        request.httpBody = try? JSONCoding.encoder.encode(payload)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return "no HTTP response" }
            return String(http.statusCode)
        } catch {
            return "failed: \((error as NSError).localizedDescription.prefix(120))"
        }
    }
}
