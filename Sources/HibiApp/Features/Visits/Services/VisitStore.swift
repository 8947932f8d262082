import Foundation
import SQLKit

/// SQL for visits, photos and the chain. Every query is scoped by user id.
struct VisitStore: Sendable {
    static let columns = ["id", "user_id", "visited_at", "latitude", "longitude", "accuracy", "altitude", "simulated", "name",
                          "address", "labels", "group_name", "companions", "notes", "photos", "revision", "created_at",
                          "updated_at", "deleted_at"]

    /// Bytes of this person's stored visit photos (sealed), for the storage quota.
    static func photoBytes(userID: String, on sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw("SELECT COALESCE(SUM(LENGTH(data)), 0) AS total FROM visit_photos WHERE user_id = \(bind: userID)")
            .first().map { try $0.decode(column: "total", as: Int64.self) } ?? 0
    }

    static func encodeJSON<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// Labels and companions: almost always `[]` or a few strings without escapes, read here directly
    /// because verify reads every row and `JSONDecoder` is slow at this scale. Anything else goes to it.
    static func decodeStrings(_ text: String) throws -> [String] {
        if text == "[]" { return [] }
        var text = text
        if let plain = text.withUTF8(plainStrings) { return plain }
        return try decodeJSON([String].self, text)
    }

    static func decodePhotos(_ text: String) throws -> [VisitPhotoRef] {
        text == "[]" ? [] : try decodeJSON([VisitPhotoRef].self, text)
    }

    /// `["a","b"]` exactly as JSONEncoder writes it, or nil.
    static func plainStrings(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        guard bytes.count >= 4, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        var strings: [String] = []
        var at = 1
        while at < bytes.count, bytes[at] == quote {
            let start = at + 1
            at = start
            while at < bytes.count, bytes[at] != quote {
                if bytes[at] == backslash || bytes[at] < 0x20 { return nil }
                at += 1
            }
            guard at + 1 < bytes.count else { return nil }
            strings.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
            at += 1
            if bytes[at] == UInt8(ascii: "]") { return at == bytes.count - 1 ? strings : nil }
            guard bytes[at] == UInt8(ascii: ",") else { return nil }
            at += 1
        }
        return nil
    }

    static func insert(_ visit: Visit, on sql: any SQLDatabase) async throws {
        let f = visit.fields
        try await sql.insert(into: "visits").columns(columns).values(
            SQLBind(visit.id), SQLBind(visit.userID), SQLBind(Int64(saturating: f.visitedAt.timeIntervalSince1970)), SQLBind(f.latitude),
            SQLBind(f.longitude), SQLBind(f.accuracy), SQLBind(f.altitude), SQLBind(f.simulated), SQLBind(f.name),
            SQLBind(f.address.map(encodeJSON)), SQLBind(encodeJSON(f.labels)), SQLBind(f.group), SQLBind(encodeJSON(f.companions)),
            SQLBind(f.notes), SQLBind(encodeJSON(visit.photos)), SQLBind(Int64(visit.revision)),
            SQLBind(Int64(saturating: visit.createdAt.timeIntervalSince1970)), SQLBind(Int64(saturating: visit.updatedAt.timeIntervalSince1970)),
            SQLBind(Int64?.none)
        ).run()
    }

    static func update(_ visit: Visit, on sql: any SQLDatabase) async throws {
        let f = visit.fields
        try await sql.update("visits")
            .set("visited_at", to: Int64(saturating: f.visitedAt.timeIntervalSince1970))
            .set("latitude", to: f.latitude).set("longitude", to: f.longitude)
            .set("accuracy", to: f.accuracy).set("altitude", to: f.altitude)
            .set("simulated", to: f.simulated).set("name", to: f.name)
            .set("address", to: f.address.map(encodeJSON))
            .set("labels", to: encodeJSON(f.labels)).set("group_name", to: f.group)
            .set("companions", to: encodeJSON(f.companions)).set("notes", to: f.notes)
            .set("photos", to: encodeJSON(visit.photos)).set("revision", to: Int64(visit.revision))
            .set("updated_at", to: Int64(saturating: visit.updatedAt.timeIntervalSince1970))
            .where("id", .equal, visit.id).where("user_id", .equal, visit.userID)
            .run()
    }

    /// sqlite-kit decodes `T?` through its generic Decoder path, several times slower than `T`;
    /// verify decodes five of these for every visit.
    static func optional<T: Decodable>(_ row: any SQLRow, _ column: String, as type: T.Type) throws -> T? {
        try row.decodeNil(column: column) ? nil : row.decode(column: column, as: T.self)
    }

    static func decode(_ row: any SQLRow) throws -> (Visit, deleted: Bool) {
        let fields = VisitFields(
            visitedAt: try row.date("visited_at"),
            latitude: try row.decode(column: "latitude", as: Double.self),
            longitude: try row.decode(column: "longitude", as: Double.self),
            accuracy: try optional(row, "accuracy", as: Double.self),
            altitude: try optional(row, "altitude", as: Double.self),
            simulated: try row.decode(column: "simulated", as: Bool.self),
            name: try row.decode(column: "name", as: String.self),
            address: try optional(row, "address", as: String.self).map { try decodeJSON(VisitAddress.self, $0) },
            labels: try decodeStrings(try row.decode(column: "labels", as: String.self)),
            group: try optional(row, "group_name", as: String.self),
            companions: try decodeStrings(try row.decode(column: "companions", as: String.self)),
            notes: try row.decode(column: "notes", as: String.self))
        let visit = Visit(
            id: try row.decode(column: "id", as: String.self), userID: try row.decode(column: "user_id", as: String.self),
            fields: fields, photos: try decodePhotos(try row.decode(column: "photos", as: String.self)),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"),
            revision: Int(try row.decode(column: "revision", as: Int64.self)))
        return (visit, !(try row.decodeNil(column: "deleted_at")))
    }

    static func find(id: String, userID: String, on sql: any SQLDatabase) async throws -> Visit? {
        guard let row = try await sql.select().columns(columns.map { SQLIdentifier($0) }).from("visits")
            .where("id", .equal, id).where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null).first()
        else { return nil }
        return try decode(row).0
    }

    /// Live visits, newest first, optionally within [from, to).
    static func list(userID: String, from: Date?, to: Date?, on sql: any SQLDatabase) async throws -> [Visit] {
        var query = sql.select().columns(columns.map { SQLIdentifier($0) }).from("visits")
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
        if let from { query = query.where("visited_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970.rounded(.down))) }
        if let to { query = query.where("visited_at", .lessThan, Int64(saturating: to.timeIntervalSince1970.rounded(.up))) }
        return try await query.orderBy("visited_at", .descending).orderBy("id").all().map { try decode($0).0 }
    }

    /// The content keys of the live visits in [from, to] (whole seconds), and of every visit whose time is approximate.
    static func contentKeys(userID: String, from: Int64, to: Int64, on sql: any SQLDatabase) async throws -> Set<String> {
        let rows = try await sql.select().column("visited_at").column("latitude").column("longitude").column("name").column("labels").from("visits")
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .where { group in
                group.where { $0.where("visited_at", .greaterThanOrEqual, from).where("visited_at", .lessThanOrEqual, to) }
                    .orWhere("labels", .like, "%\"\(VisitFormats.approximateTimeLabel)\"%")
            }
            .all()
        var keys = Set<String>()
        for row in rows {
            let labels = try decodeStrings(try row.decode(column: "labels", as: String.self))
            keys.insert(VisitContentKey.key(seconds: Double(try row.decode(column: "visited_at", as: Int64.self)),
                                            latitude: try row.decode(column: "latitude", as: Double.self),
                                            longitude: try row.decode(column: "longitude", as: Double.self),
                                            name: try row.decode(column: "name", as: String.self),
                                            approximate: labels.contains(VisitFormats.approximateTimeLabel)))
        }
        return keys
    }

    /// Every row, tombstones included, for comparing the table with the chain.
    static func allStates(userID: String, on sql: any SQLDatabase) async throws -> [VisitChain.CurrentVisit] {
        try await sql.select().columns(columns.map { SQLIdentifier($0) }).from("visits")
            .where("user_id", .equal, userID).all().map { row in
                let (visit, deleted) = try decode(row)
                return VisitChain.CurrentVisit(id: visit.id, state: VisitCanonical.state(id: visit.id, fields: visit.fields, photos: visit.photos),
                                               deleted: deleted)
            }
    }

    // MARK: chain

    /// Makes sure the head row exists and locks it (PostgreSQL) so two writers cannot both take the next number.
    static func lockHead(userID: String, engine: DatabaseEngine, on sql: any SQLDatabase) async throws -> (ChainHead?, webhook: String?) {
        try await sql.insert(into: "visit_chain_heads").columns("user_id", "seq", "hash")
            .values(SQLBind(userID), SQLBind(Int64(0)), SQLBind(""))
            .ignoringConflicts(with: ["user_id"]).run()
        let lock = engine == .postgres ? " FOR UPDATE" : ""
        let row = try await sql.raw("SELECT seq, hash, webhook_url FROM visit_chain_heads WHERE user_id = \(bind: userID)\(unsafeRaw: lock)").first()
        guard let row else { return (nil, nil) }
        let seq = Int(try row.decode(column: "seq", as: Int64.self))
        let webhook = try row.decode(column: "webhook_url", as: String?.self)
        return (seq == 0 ? nil : ChainHead(seq: seq, hash: try row.decode(column: "hash", as: String.self)), webhook)
    }

    static func storedHead(userID: String, on sql: any SQLDatabase) async throws -> ChainHead? {
        guard let row = try await sql.select().columns("seq", "hash").from("visit_chain_heads").where("user_id", .equal, userID).first()
        else { return nil }
        let seq = Int(try row.decode(column: "seq", as: Int64.self))
        return seq == 0 ? nil : ChainHead(seq: seq, hash: try row.decode(column: "hash", as: String.self))
    }

    static func acknowledgedHead(userID: String, on sql: any SQLDatabase) async throws -> ChainHead? {
        guard let row = try await sql.select().columns("webhook_seq", "webhook_hash").from("visit_chain_heads")
            .where("user_id", .equal, userID).first(),
              let seq = try row.decode(column: "webhook_seq", as: Int64?.self), let hash = try row.decode(column: "webhook_hash", as: String?.self)
        else { return nil }
        return ChainHead(seq: Int(seq), hash: hash)
    }

    static func append(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await insertRecord(record, userID: userID, on: sql)
        try await setHead(record, userID: userID, on: sql)
    }

    static func setHead(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.update("visit_chain_heads").set("seq", to: Int64(record.seq)).set("hash", to: record.hash)
            .where("user_id", .equal, userID).run()
    }

    static func insertRecord(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.insert(into: "visit_chain").columns("user_id", "seq", "visit_id", "action", "body", "hash", "signature")
            .values(SQLBind(userID), SQLBind(Int64(record.seq)), SQLBind(record.visitID), SQLBind(record.action.rawValue),
                    SQLBind(record.body), SQLBind(record.hash), SQLBind(record.signature))
            .run()
    }

    static func record(userID: String, seq: Int, on sql: any SQLDatabase) async throws -> ChainRecord? {
        try await sql.select().columns("seq", "visit_id", "action", "body", "hash", "signature").from("visit_chain")
            .where("user_id", .equal, userID).where("seq", .equal, Int64(seq)).first().map(decodeRecord)
    }

    static func records(userID: String, visitID: String? = nil, on sql: any SQLDatabase) async throws -> [ChainRecord] {
        var query = sql.select().columns("seq", "visit_id", "action", "body", "hash", "signature").from("visit_chain")
            .where("user_id", .equal, userID)
        if let visitID { query = query.where("visit_id", .equal, visitID) }
        return try await query.orderBy("seq").all().map(decodeRecord)
    }

    static func decodeRecord(_ row: any SQLRow) throws -> ChainRecord {
        ChainRecord(seq: Int(try row.decode(column: "seq", as: Int64.self)), visitID: try row.decode(column: "visit_id", as: String.self),
                    action: VisitAction(rawValue: try row.decode(column: "action", as: String.self)) ?? .edit,
                    body: try row.decode(column: "body", as: String.self), hash: try row.decode(column: "hash", as: String.self),
                    signature: try row.decode(column: "signature", as: String.self))
    }
}
