import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Random tokens and their stored digests. Only digests are stored, so a leaked database
/// does not yield live sessions or API tokens.
public enum Secrets {
    public static func randomToken(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = (0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(raw).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func digest(_ token: String) -> String {
        Hex.string(SHA256.hash(data: Data(token.utf8)))
    }

    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// bcrypt runs for a quarter second at cost 12; it goes to NIO's thread pool so the event loops keep serving,
/// through one `BcryptGate` per instance so a flood of sign-ins queues instead of taking every core.
public struct PasswordHasher: Sendable {
    public let cost: UInt8
    public let gate: BcryptGate

    /// The gate refused: its queue is full. Sign-in answers 429 (`AccountError.busy`).
    public struct Busy: Error {}

    public init(cost: UInt8, gate: BcryptGate = BcryptGate()) {
        self.cost = cost
        self.gate = gate
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        guard let hash = try await gate.run(.account, { try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) } }) else {
            throw Busy()
        }
        return hash
    }

    /// `priority` is `.decoy` for the hash spent on a name that does not exist, `.account` otherwise.
    public func verify(_ password: String, hash: String, priority: BcryptGate.Priority = .account) async throws -> Bool {
        guard let valid = try await gate.run(priority, { try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) } }) else {
            throw Busy()
        }
        return valid
    }
}
