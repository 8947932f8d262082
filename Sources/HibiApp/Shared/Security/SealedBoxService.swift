import Crypto
import Foundation
import SQLKit

public enum EncryptionError: Error, CustomStringConvertible, Equatable {
    case keyFileUnreadable(path: String)
    case keyFileInvalid(path: String)
    /// The key opens nothing this database sealed: changed HIBI_MASTER_KEY or a key file from elsewhere.
    case wrongKey
    case corrupted

    public var description: String {
        switch self {
        case let .keyFileUnreadable(path): "The data key file \(path) cannot be read; check its owner and permissions."
        case let .keyFileInvalid(path): "The data key file \(path) is not a 32-byte base64 key; restore it from your backup."
        case .wrongKey: "The data key does not match this database (was HIBI_MASTER_KEY or the key file changed?). Restore the original key; Hibi will not read data with a different one."
        case .corrupted: "Encrypted data is damaged and cannot be opened."
        }
    }
}

/// Seals personal data (face templates, diary text, photos) with AES-GCM under the data key.
/// Output layout: one version byte, then nonce ‖ ciphertext ‖ tag as CryptoKit's `combined`.
public struct SealedBoxService: Sendable {
    private let key: SymmetricKey
    private static let version: UInt8 = 1

    public init(key: SymmetricKey) {
        self.key = key
    }

    /// `context` binds a value to where it belongs (e.g. "diary:<entry id>"), so a sealed value
    /// copied into another row or user fails to open instead of being shown out of place.
    public func seal(_ plaintext: Data, context: String) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw EncryptionError.corrupted }
        return Data([Self.version]) + combined
    }

    public func open(_ sealed: Data, context: String) throws(EncryptionError) -> Data {
        // Version, nonce and tag: an empty plaintext (a photo-only diary entry's text) is exactly that long.
        guard sealed.count >= 1 + 12 + 16, sealed.first == Self.version else { throw .corrupted }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst())
            return try AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        } catch {
            throw .wrongKey
        }
    }

    /// A short signature of `text` for one purpose, with a key derived from the data key (never the
    /// data key itself): values the server hands out and must recognise when they come back.
    public func tag(_ text: String, purpose: String) -> String {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("hibi-tag:\(purpose)".utf8), outputByteCount: 32)
        return Hex.string(Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: derived)).prefix(16))
    }

    /// A full HMAC-SHA256 of `data` for one purpose, under a key derived from the data key by HKDF with
    /// that purpose as its label: what a backup's manifest carries so a restore knows this key's holder wrote it.
    public func authenticationCode(for data: Data, purpose: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: macKey(purpose: purpose)))
    }

    /// Whether `code` is `data`'s HMAC for `purpose` (compared in constant time).
    public func isValidAuthenticationCode(_ code: Data, for data: Data, purpose: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: data, using: macKey(purpose: purpose))
    }

    private func macKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("hibi-mac:\(purpose)".utf8), outputByteCount: 32)
    }

    public func sealString(_ text: String, context: String) throws -> Data {
        try seal(Data(text.utf8), context: context)
    }

    public func openString(_ sealed: Data, context: String) throws(EncryptionError) -> String {
        let data = try open(sealed, context: context)
        guard let text = String(data: data, encoding: .utf8) else { throw .corrupted }
        return text
    }
}

/// Loads the data key from HIBI_MASTER_KEY or the data directory, creating the file (mode 0600) on first run.
public enum DataKeyStore {
    public static let fileName = "data.key"

    public static func loadOrCreate(masterKey: String?, dataDirectory: String) throws -> SymmetricKey {
        if let masterKey, let bytes = Data(base64Encoded: masterKey), bytes.count == 32 {
            return SymmetricKey(data: bytes)
        }
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            guard let contents = manager.contents(atPath: path) else { throw EncryptionError.keyFileUnreadable(path: path) }
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let bytes = Data(base64Encoded: text), bytes.count == 32 else { throw EncryptionError.keyFileInvalid(path: path) }
            return SymmetricKey(data: bytes)
        }
        try manager.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = SymmetricKey(size: .bits256)
        let encoded = key.withUnsafeBytes { Data($0).base64EncodedString() }
        // Created with 0600 from the start so the key is never readable by others, not even briefly.
        guard manager.createFile(atPath: path, contents: Data((encoded + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw EncryptionError.keyFileUnreadable(path: path)
        }
        return key
    }
}

/// A sealed known value in the database tells a wrong key apart from a right one at start-up.
public struct KeyCheck: Sendable {
    static let settingKey = "data_key_check"
    static let context = "hibi:key-check"
    let database: Database
    let box: SealedBoxService

    public init(database: Database, box: SealedBoxService) {
        self.database = database
        self.box = box
    }

    public func verifyOrRecord() async throws {
        if let stored = try await SettingRow.value(Self.settingKey, on: database.sql) {
            guard let data = Data(base64Encoded: stored) else { throw EncryptionError.wrongKey }
            _ = try box.open(data, context: Self.context)
            return
        }
        let sealed = try box.seal(Data("hibi".utf8), context: Self.context).base64EncodedString()
        // Insert-if-absent, then check what the database holds: of two instances starting at once on an
        // empty database one row wins, and an instance with a different key is refused like any other.
        try await SettingRow.write(Self.settingKey, sealed, on: database.sql, keepExisting: true)
        guard let text = try await SettingRow.value(Self.settingKey, on: database.sql), let data = Data(base64Encoded: text) else {
            throw EncryptionError.wrongKey
        }
        _ = try box.open(data, context: Self.context)
    }
}
