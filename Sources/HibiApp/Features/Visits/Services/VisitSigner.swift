import Crypto
import Foundation
import Synchronization

/// The Ed25519 key that signs every chain record. It lives next to the data key in the data
/// directory (mode 0600) and is loaded on first use, so building the app stays free of I/O.
public final class VisitSigner: Sendable {
    public static let fileName = "visits-signing.key"
    let path: String
    private let cached = Mutex<Curve25519.Signing.PrivateKey?>(nil)

    public init(dataDirectory: String) {
        self.path = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
    }

    func key() throws -> Curve25519.Signing.PrivateKey {
        try cached.withLock { cached in
            if let cached { return cached }
            let key = try Self.loadOrCreate(path: path)
            cached = key
            return key
        }
    }

    public func sign(_ data: Data) throws -> Data {
        try key().signature(for: data)
    }

    public func publicKey() throws -> Curve25519.Signing.PublicKey {
        try key().publicKey
    }

    /// Base64 of the 32 raw public-key bytes, as exports carry it.
    public func publicKeyBase64() throws -> String {
        try publicKey().rawRepresentation.base64EncodedString()
    }

    static func loadOrCreate(path: String) throws -> Curve25519.Signing.PrivateKey {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            guard let contents = manager.contents(atPath: path) else { throw EncryptionError.keyFileUnreadable(path: path) }
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let bytes = Data(base64Encoded: text), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) else {
                throw EncryptionError.keyFileInvalid(path: path)
            }
            return key
        }
        let directory = (path as NSString).deletingLastPathComponent
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = Curve25519.Signing.PrivateKey()
        // Created 0600 from the start: a readable signing key would let anyone forge a "clean" chain.
        guard manager.createFile(atPath: path, contents: Data((key.rawRepresentation.base64EncodedString() + "\n").utf8),
                                 attributes: [.posixPermissions: 0o600]) else {
            throw EncryptionError.keyFileUnreadable(path: path)
        }
        return key
    }
}
