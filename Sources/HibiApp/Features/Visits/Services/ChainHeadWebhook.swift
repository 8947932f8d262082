import Foundation

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

    let outbound: OutboundHTTP

    public init(outbound: OutboundHTTP = OutboundHTTP()) {
        self.outbound = outbound
    }

    /// Delivered, failed or refused (see `OutboundHTTP`). Never throws: a dead webhook must not break
    /// saving a visit.
    public func send(url: String, payload: Payload) async -> OutboundHTTP.Outcome {
        guard let body = try? JSONCoding.encoder.encode(payload) else { return .failed }
        return await outbound.postJSON(body, to: url)
    }
}
