import Foundation
import SQLKit

/// SQL for visits, photos and the chain. Every query is scoped by user id.
struct VisitStore: Sendable {
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
        try await VisitRow.insert([VisitRow(visit)], into: sql).run()
    }

    /// Writes the row back whole: the visit was read live (`find`), so its id, owner, creation time and missing
    /// `deleted_at` are written as they were.
    static func update(_ visit: Visit, on sql: any SQLDatabase) async throws {
        try await sql.update(VisitRow.table).set(model: VisitRow(visit), with: SQLQueryEncoder(nilEncodingStrategy: .asNil))
            .where("id", .equal, visit.id).where("user_id", .equal, visit.userID)
            .run()
    }

    static func find(id: String, userID: String, on sql: any SQLDatabase) async throws -> Visit? {
        try await VisitRow.select(sql).where("id", .equal, id).where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .first(decoding: VisitRow.self)?.visit
    }

    /// Live visits, newest first, optionally within [from, to).
    static func list(userID: String, from: Date?, to: Date?, on sql: any SQLDatabase) async throws -> [Visit] {
        var query = VisitRow.select(sql).where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
        if let from { query = query.where("visited_at", .greaterThanOrEqual, Int64(saturating: from.timeIntervalSince1970.rounded(.down))) }
        if let to { query = query.where("visited_at", .lessThan, Int64(saturating: to.timeIntervalSince1970.rounded(.up))) }
        return try await query.orderBy("visited_at", .descending).orderBy("id").all(decoding: VisitRow.self).map { try $0.visit }
    }

    /// The content keys of the live visits in [from, to] (whole seconds), and of every visit whose time is approximate.
    static func contentKeys(userID: String, from: Int64, to: Int64, on sql: any SQLDatabase) async throws -> Set<String> {
        let rows = try await VisitRow.select(sql)
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .where { group in
                group.where { $0.where("visited_at", .greaterThanOrEqual, from).where("visited_at", .lessThanOrEqual, to) }
                    .orWhere("labels", .like, "%\"\(VisitFormats.approximateTimeLabel)\"%")
            }
            .all(decoding: VisitRow.self)
        var keys = Set<String>()
        for row in rows {
            let labels = try decodeStrings(row.labels)
            keys.insert(VisitContentKey.key(seconds: Double(row.visitedAt), latitude: row.latitude, longitude: row.longitude, name: row.name,
                                            approximate: labels.contains(VisitFormats.approximateTimeLabel)))
        }
        return keys
    }

    /// Every row, tombstones included, for comparing the table with the chain.
    static func allStates(userID: String, on sql: any SQLDatabase) async throws -> [VisitChain.CurrentVisit] {
        try await VisitRow.select(sql).where("user_id", .equal, userID).all(decoding: VisitRow.self).map { row in
            VisitChain.CurrentVisit(id: row.id, state: VisitCanonical.state(id: row.id, fields: try row.fields, photos: try decodePhotos(row.photos)),
                                    deleted: row.deleted)
        }
    }

    // MARK: chain

    /// Makes sure the head row exists and locks it (PostgreSQL's FOR UPDATE; SQLite's dialect has no row locks and
    /// leaves it out, its transaction already holds the write lock) so two writers cannot both take the next number.
    static func lockHead(userID: String, on sql: any SQLDatabase) async throws -> (ChainHead?, webhook: String?) {
        try await VisitChainHeadRow.insert([VisitChainHeadRow(userID: userID, seq: 0, hash: "")], into: sql)
            .ignoringConflicts(with: ["user_id"]).run()
        let row = try await VisitChainHeadRow.select(sql).where("user_id", .equal, userID).for(.update).first(decoding: VisitChainHeadRow.self)
        return (row?.head, row?.webhookURL)
    }

    static func headRow(userID: String, on sql: any SQLDatabase) async throws -> VisitChainHeadRow? {
        try await VisitChainHeadRow.select(sql).where("user_id", .equal, userID).first(decoding: VisitChainHeadRow.self)
    }

    static func append(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await insertRecord(record, userID: userID, on: sql)
        try await setHead(record, userID: userID, on: sql)
    }

    static func setHead(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await sql.update(VisitChainHeadRow.table).set("seq", to: Int64(record.seq)).set("hash", to: record.hash)
            .where("user_id", .equal, userID).run()
    }

    static func insertRecord(_ record: ChainRecord, userID: String, on sql: any SQLDatabase) async throws {
        try await VisitChainRow.insert([VisitChainRow(record, userID: userID)], into: sql).run()
    }

    static func record(userID: String, seq: Int, on sql: any SQLDatabase) async throws -> ChainRecord? {
        try await VisitChainRow.select(sql).where("user_id", .equal, userID).where("seq", .equal, Int64(seq))
            .first(decoding: VisitChainRow.self)?.record
    }

    static func records(userID: String, visitID: String? = nil, on sql: any SQLDatabase) async throws -> [ChainRecord] {
        var query = VisitChainRow.select(sql).where("user_id", .equal, userID)
        if let visitID { query = query.where("visit_id", .equal, visitID) }
        return try await query.orderBy("seq").all(decoding: VisitChainRow.self).map(\.record)
    }
}
