import Crypto
import Foundation
import Logging
import SQLKit
import Synchronization

/// The Ed25519 key that signs every chain record. It lives in the database, sealed under the data key
/// (`InstanceSecretStore`), so every instance on one database signs with the same key and a backup carries
/// it. A `visits-signing.key` file left by an older version in the data directory is moved into the
/// database on first use, so chains signed before keep verifying. Loaded on first use, so building the app
/// stays free of I/O.
public final class VisitSigner: Sendable {
    public static let fileName = "visits-signing.key"
    static let secretName = "visits-signing-key"
    let legacyPath: String
    let secrets: InstanceSecretStore
    let logger: Logger?
    private let cached = Mutex<Curve25519.Signing.PrivateKey?>(nil)

    public init(database: Database, box: SealedBoxService, dataDirectory: String, logger: Logger? = nil) {
        self.legacyPath = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
        self.secrets = InstanceSecretStore(database: database, box: box)
        self.logger = logger
    }

    public func signingKey() async throws -> Curve25519.Signing.PrivateKey {
        if let key = cached.withLock({ $0 }) { return key }
        // Two tasks may load at once: both end with the database's one key, so the race is harmless.
        let key = try await load()
        cached.withLock { $0 = key }
        return key
    }

    private func load() async throws -> Curve25519.Signing.PrivateKey {
        let legacy = try Self.readFile(path: legacyPath)
        let raw = try await secrets.readOrCreate(Self.secretName) {
            (legacy ?? Curve25519.Signing.PrivateKey()).rawRepresentation
        }
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else { throw EncryptionError.corrupted }
        if let legacy {
            if legacy.rawRepresentation == key.rawRepresentation {
                // The database holds it now: one copy of the secret, not two that could drift apart.
                try? FileManager.default.removeItem(atPath: legacyPath)
                logger?.notice("visits signing key moved into the database", metadata: ["file": "\(legacyPath)"])
            } else {
                // Another instance's key got there first; this file stays for the administrator to look at.
                logger?.error("visits-signing.key differs from the key in the database; the database's key is used",
                              metadata: ["file": "\(legacyPath)"])
            }
        }
        return key
    }

    public func publicKey() async throws -> Curve25519.Signing.PublicKey {
        try await signingKey().publicKey
    }

    /// Base64 of the 32 raw public-key bytes, as exports carry it.
    public func publicKeyBase64() async throws -> String {
        try await publicKey().rawRepresentation.base64EncodedString()
    }

    /// The key in a legacy file, or nil when there is no file.
    static func readFile(path: String) throws -> Curve25519.Signing.PrivateKey? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return nil }
        guard let contents = manager.contents(atPath: path) else { throw EncryptionError.keyFileUnreadable(path: path) }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: text), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) else {
            throw EncryptionError.keyFileInvalid(path: path)
        }
        return key
    }

    /// The public key a database holds, read without creating one; nil when none was made yet.
    static func storedPublicKey(_ sql: any SQLDatabase, box: SealedBoxService) async throws -> String? {
        guard let raw = try await InstanceSecretStore.read(secretName, on: sql, box: box) else { return nil }
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else { throw EncryptionError.corrupted }
        return key.publicKey.rawRepresentation.base64EncodedString()
    }
}
