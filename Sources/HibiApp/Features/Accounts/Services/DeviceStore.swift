import Foundation
import SQLKit

public struct RememberedDevice: Sendable, Equatable {
    public let id: String
    public let userID: String
    public let label: String
    public let createdAt: Date
    public let lastUsedAt: Date?
}

/// Devices a user chose to remember at a password sign-in. The cookie holds a random token; the table
/// holds only its SHA-256, so a database leak does not hand out devices. Remembering a device grants no
/// access by itself: it only lets that browser offer face sign-in.
public struct DeviceStore: Sendable {
    let database: Database
    public static let lifetime: TimeInterval = 365 * 24 * 3600

    public init(database: Database) {
        self.database = database
    }

    public func create(userID: String, label: String, now: Date) async throws -> String {
        let token = Secrets.randomToken()
        try await database.sql.delete(from: "remembered_devices").where("expires_at", .lessThan, Int64(saturating: now.timeIntervalSince1970)).run()
        try await RememberedDeviceRow.insert([RememberedDeviceRow(
            id: UUID().uuidString.lowercased(), userID: userID, tokenHash: Secrets.digest(token), label: label, createdAt: UnixTime(now).seconds,
            lastUsedAt: nil, expiresAt: UnixTime(now.addingTimeInterval(Self.lifetime)).seconds)], into: database.sql).run()
        return token
    }

    /// The live device a cookie names, with its user; nil for unknown, expired or revoked tokens.
    public func find(token: String, now: Date) async throws -> (device: RememberedDevice, user: User)? {
        guard let row = try await database.sql.raw("""
            SELECT \(unsafeRaw: UserRow.qualifiedColumns("u")), \(unsafeRaw: RememberedDeviceRow.aliasedColumns("d", prefix: "device_"))
            FROM remembered_devices d JOIN users u ON u.id = d.user_id WHERE d.token_hash = \(bind: Secrets.digest(token))
            """).first() else { return nil }
        let device = try row.decode(model: RememberedDeviceRow.self, prefix: "device_")
        guard Double(device.expiresAt) > now.timeIntervalSince1970 else { return nil }
        return (device.device, try UserStore.decode(row))
    }

    public func markUsed(id: String, now: Date) async throws {
        try await database.sql.update("remembered_devices").set("last_used_at", to: Int64(saturating: now.timeIntervalSince1970)).where("id", .equal, id).run()
    }

    public func list(userID: String, now: Date) async throws -> [RememberedDevice] {
        try await RememberedDeviceRow.select(database.sql)
            .where("user_id", .equal, userID).where("expires_at", .greaterThan, Int64(saturating: now.timeIntervalSince1970))
            .orderBy("created_at", .descending).all(decoding: RememberedDeviceRow.self).map(\.device)
    }

    /// Scoped by user: someone else's device id reports "not found", exactly like a made-up one.
    public func revoke(id: String, userID: String) async throws -> Bool {
        let existing = try await database.sql.select().column("id").from("remembered_devices")
            .where("id", .equal, id).where("user_id", .equal, userID).first()
        guard existing != nil else { return false }
        try await database.sql.delete(from: "remembered_devices").where("id", .equal, id).where("user_id", .equal, userID).run()
        return true
    }

    public func revoke(token: String) async throws {
        try await database.sql.delete(from: "remembered_devices").where("token_hash", .equal, Secrets.digest(token)).run()
    }
}
