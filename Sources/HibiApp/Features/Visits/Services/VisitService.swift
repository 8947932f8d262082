import Crypto
import Foundation
import Logging
import SQLKit

/// Every change to a visit goes through here: the row, its photos and the chain record are
/// written in one transaction, so the table and the chain never disagree unless someone edits the database.
public struct VisitService: Sendable {
    let database: Database
    let box: SealedBoxService
    let signer: VisitSigner
    let webhook: ChainHeadWebhook
    let logger: Logger

    public init(database: Database, box: SealedBoxService, signer: VisitSigner, webhook: ChainHeadWebhook = .init(), logger: Logger) {
        self.database = database
        self.box = box
        self.signer = signer
        self.webhook = webhook
        self.logger = logger
    }

    /// Bound to the owner: a photo row moved to another person does not open for them.
    static func photoContext(userID: String, _ photoID: String) -> String { "visit-photo:\(userID):\(photoID)" }
    static func legacyPhotoContext(_ photoID: String) -> String { "visit-photo:\(photoID)" }

    /// Appends a record for `visit` (or its tombstone) after the current head.
    /// `key` is loaded before the transaction: on SQLite a read of the key on another connection while
    /// this one holds the write lock would wait for itself.
    private func record(_ visit: Visit, action: VisitAction, now: Date, key: Curve25519.Signing.PrivateKey,
                        on sql: any SQLDatabase) async throws -> ChainRecord {
        let (head, webhook) = try await VisitStore.lockHead(userID: visit.userID, on: sql)
        try await requireGenuine(head, userID: visit.userID, key: key.publicKey, on: sql)
        let state = action == .delete ? nil : VisitCanonical.state(id: visit.id, fields: visit.fields, photos: visit.photos)
        let record = try VisitChain.append(head: head, userID: visit.userID, visitID: visit.id, action: action, state: state,
                                           now: now, sign: { try key.signature(for: $0) })
        try await VisitStore.append(record, userID: visit.userID, on: sql)
        return ChainRecord(seq: record.seq, visitID: record.visitID, action: record.action, body: record.body, hash: record.hash,
                           signature: record.signature, webhook: webhook)
    }

    /// Refuses to sign on top of a head record whose hash or signature fails. Verify checks only the
    /// head's signature when every link holds; that covers the whole chain only because Hibi never
    /// signs a record whose `prev` is a forged head (otherwise someone who rewrote the history and its
    /// hashes in the database would have the next edit sign their version).
    private func requireGenuine(_ head: ChainHead?, userID: String, key: Curve25519.Signing.PublicKey, on sql: any SQLDatabase) async throws {
        guard let head else { return }
        let record = try await VisitStore.record(userID: userID, seq: head.seq, on: sql)
        guard VisitChain.isGenuineHead(record, head: head, isValidSignature: { key.isValidSignature($0, for: $1) }) else {
            logger.error("visit log head fails its hash or signature; refusing to sign on top of it")
            throw VisitError.logTampered
        }
    }

    public func create(userID: String, fields: VisitFields, now: Date) async throws -> Visit {
        let fields = try VisitRules.validate(fields)
        let visit = Visit(id: UUID().uuidString.lowercased(), userID: userID, fields: fields, photos: [], createdAt: now, updatedAt: now, revision: 1)
        let key = try await signer.signingKey()
        let record = try await database.transaction { sql in
            try await VisitStore.insert(visit, on: sql)
            return try await self.record(visit, action: .create, now: now, key: key, on: sql)
        }
        notifyWebhook(userID: userID, head: ChainHead(seq: record.seq, hash: record.hash), webhook: record.webhook, now: now)
        return visit
    }

    /// What an import stored: `stored[i]` is false for a visit already there (the same content key, in
    /// the table or earlier in the same file), which is neither stored nor signed.
    public struct ImportOutcome: Sendable, Equatable {
        public var stored: [Bool]
        /// Which visits had no time of their own (reported as "with an approximate time" when added).
        public var approximate: [Bool] = []
        public var added: Int { stored.filter { $0 }.count }
        public var alreadyThere: Int { stored.count - added }

        /// Moves the visits already there from "added" to "already there" in a parser's report, kind by kind.
        public func settle(_ report: inout ImportReport, kinds: [String]) {
            for (index, wasStored) in stored.enumerated() where !wasStored {
                let kind = index < kinds.count ? kinds[index] : (kinds.last ?? "visit")
                guard let entry = report.kinds.firstIndex(where: { $0.kind == kind }) else { report.duplicate(kind); continue }
                report.kinds[entry].added = max(0, report.kinds[entry].added - 1)
                report.kinds[entry].duplicates += 1
                if index < approximate.count, approximate[index] {
                    report.kinds[entry].approximateTime = max(0, report.kinds[entry].approximateTime - 1)
                }
            }
        }
    }

    /// Creates all new visits or none: one transaction for the whole file. A visit already there is
    /// recognised by its content key before anything is signed, so importing a file again adds nothing.
    public func importAll(userID: String, visits: [VisitFields], now: Date) async throws -> ImportOutcome {
        var validated: [VisitFields] = []
        validated.reserveCapacity(visits.count)
        for (index, fields) in visits.enumerated() {
            do { validated.append(try VisitRules.validate(fields)) } catch {
                throw VisitError.importInvalid(position: "item \(index + 1)", reason: Text(en: error.message(.en), ja: error.message(.ja)))
            }
        }
        let batch = validated
        guard !validated.isEmpty else { return ImportOutcome(stored: []) }
        let key = try await signer.signingKey()
        let seconds = batch.map { Int64(saturating: $0.visitedAt.timeIntervalSince1970) }
        let (from, to) = (seconds.min() ?? 0, seconds.max() ?? 0)
        let (stored, last) = try await database.transaction { sql in
            // One head lock for the whole file; records are chained in memory and the head written once.
            // The keys are read under the lock, so two imports of one file cannot both find it new.
            let (start, webhook) = try await VisitStore.lockHead(userID: userID, on: sql)
            try await self.requireGenuine(start, userID: userID, key: key.publicKey, on: sql)
            var known = try await VisitStore.contentKeys(userID: userID, from: from, to: to, on: sql)
            var stored: [Bool] = []
            var head = start
            var last: ChainRecord?
            for fields in batch {
                guard known.insert(VisitContentKey.key(fields)).inserted else {
                    stored.append(false)
                    continue
                }
                stored.append(true)
                let visit = Visit(id: UUID().uuidString.lowercased(), userID: userID, fields: fields, photos: [], createdAt: now,
                                  updatedAt: now, revision: 1)
                try await VisitStore.insert(visit, on: sql)
                let record = try VisitChain.append(head: head, userID: userID, visitID: visit.id, action: .create,
                                                   state: VisitCanonical.state(id: visit.id, fields: fields, photos: []), now: now,
                                                   sign: { try key.signature(for: $0) })
                try await VisitStore.insertRecord(record, userID: userID, on: sql)
                head = ChainHead(seq: record.seq, hash: record.hash)
                last = record
            }
            // Every visit already there: the chain is left as it was.
            guard var newest = last else { return (stored, ChainRecord?.none) }
            try await VisitStore.setHead(newest, userID: userID, on: sql)
            newest.webhook = webhook
            return (stored, newest)
        }
        if let last { notifyWebhook(userID: userID, head: ChainHead(seq: last.seq, hash: last.hash), webhook: last.webhook, now: now) }
        return ImportOutcome(stored: stored, approximate: batch.map { $0.labels.contains(VisitFormats.approximateTimeLabel) })
    }

    public func get(userID: String, id: String) async throws -> Visit {
        guard let visit = try await VisitStore.find(id: id, userID: userID, on: database.sql) else { throw VisitError.notFound }
        return visit
    }

    public func update(userID: String, id: String, fields: VisitFields, now: Date) async throws -> Visit {
        let fields = try VisitRules.validate(fields)
        return try await mutate(userID: userID, id: id, now: now) { visit in visit.fields = fields }
    }

    private func mutate(userID: String, id: String, now: Date, _ change: @escaping @Sendable (inout Visit) async throws -> Void,
                        extra: @escaping @Sendable (Visit, any SQLDatabase) async throws -> Void = { _, _ in }) async throws -> Visit {
        let key = try await signer.signingKey()
        let (visit, record) = try await database.transaction { sql in
            guard var visit = try await VisitStore.find(id: id, userID: userID, on: sql) else { throw VisitError.notFound }
            try await change(&visit)
            visit.updatedAt = now
            visit.revision += 1
            try await extra(visit, sql)
            try await VisitStore.update(visit, on: sql)
            return (visit, try await self.record(visit, action: .edit, now: now, key: key, on: sql))
        }
        notifyWebhook(userID: userID, head: ChainHead(seq: record.seq, hash: record.hash), webhook: record.webhook, now: now)
        return visit
    }

    public func delete(userID: String, id: String, now: Date) async throws {
        let key = try await signer.signingKey()
        let record = try await database.transaction { sql in
            guard var visit = try await VisitStore.find(id: id, userID: userID, on: sql) else { throw VisitError.notFound }
            visit.revision += 1
            // The visit's text and photos go; the tombstone row and the chain keep that it existed.
            try await sql.delete(from: "visit_photos").where("visit_id", .equal, id).where("user_id", .equal, userID).run()
            try await sql.update("visits").set("deleted_at", to: Int64(saturating: now.timeIntervalSince1970))
                .set("revision", to: Int64(visit.revision)).set("updated_at", to: Int64(saturating: now.timeIntervalSince1970))
                .where("id", .equal, id).where("user_id", .equal, userID).run()
            return try await self.record(visit, action: .delete, now: now, key: key, on: sql)
        }
        notifyWebhook(userID: userID, head: ChainHead(seq: record.seq, hash: record.hash), webhook: record.webhook, now: now)
    }

    public func list(userID: String, filter: VisitFilter) async throws -> [Visit] {
        let visits = try await VisitStore.list(userID: userID, from: filter.from, to: filter.to, on: database.sql)
        return VisitQuery.apply(filter, to: visits)
    }

    /// Only the columns a marker needs: this is what the map loads, for every visit at once.
    public func mapPoints(userID: String) async throws -> [MapPoint] {
        try await database.sql.select().columns(VisitRow.Marker.columns).from(VisitRow.table)
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .orderBy("visited_at", .descending).all(decoding: VisitRow.Marker.self).map(\.mapPoint)
    }

    /// The map's points as fixed-width columns (a quarter of the objects' size); see `CompactMap`.
    public func compactMap(userID: String) async throws -> CompactMap {
        CompactMap.encode(try await mapPoints(userID: userID))
    }

    /// The one live visit of this person whose id starts with `prefix` (the compact map names visits so),
    /// nil when none or several do. Only letters, digits and "-" are looked up: no LIKE wildcard gets in.
    public func visitID(userID: String, prefix: String) async throws -> String? {
        guard prefix.count >= CompactMap.minimumIDLength, prefix.count <= 64,
              prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        let rows = try await database.sql.select().column("id").from("visits")
            .where("user_id", .equal, userID).where("deleted_at", .is, SQLLiteral.null)
            .where("id", .like, prefix + "%").limit(2).all()
        guard rows.count == 1 else { return nil }
        return try rows[0].decode(column: "id", as: String.self)
    }

    public func stats(userID: String, timeZone: TimeZone) async throws -> PlaceStats {
        PlaceStats.compute(try await VisitStore.list(userID: userID, from: nil, to: nil, on: database.sql), timeZone: timeZone)
    }

    // MARK: photos

    public func addPhoto(userID: String, visitID: String, data: Data, contentType: String?, now: Date) async throws -> VisitPhotoRef {
        let box = self.box
        let photoID = UUID().uuidString.lowercased()
        let digest = Hex.string(SHA256.hash(data: data))
        let sealed = try box.seal(data, context: Self.photoContext(userID: userID, photoID))
        let visit = try await mutate(userID: userID, id: visitID, now: now, { visit in
            // The bytes decide the type: the declared one is the client's word, and visit photos are served back as stored.
            guard let image = ImageHeader.read(data) else { throw VisitError.photoType }
            // Dimensions before anything decodes it: a small file may still hold a huge picture.
            guard PhotoPixels.allows(image) else {
                throw VisitError.photoTooManyPixels(width: image.width, height: image.height, limitMegapixels: PhotoPixels.limitMegapixels)
            }
            let type = try VisitRules.validatePhoto(contentType: image.format.contentType, size: data.count, existing: visit.photos.count)
            visit.photos.append(VisitPhotoRef(id: photoID, contentType: type, size: data.count, sha256: digest))
        }, extra: { visit, sql in
            guard let ref = visit.photos.last else { return }
            try await VisitPhotoRow.insert([VisitPhotoRow(id: photoID, visitID: visitID, userID: userID, contentType: ref.contentType, data: sealed,
                                                          createdAt: Int64(saturating: now.timeIntervalSince1970))], into: sql).run()
        })
        guard let added = visit.photos.last else { throw VisitError.notFound }
        return added
    }

    public func photo(userID: String, visitID: String, photoID: String) async throws -> (Data, String) {
        guard let row = try await VisitPhotoRow.select(database.sql)
            .where("id", .equal, photoID).where("visit_id", .equal, visitID).where("user_id", .equal, userID).first(decoding: VisitPhotoRow.self)
        else { throw VisitError.photoNotFound }
        return (try box.open(row.data, context: Self.photoContext(userID: userID, photoID)), row.contentType)
    }

    public func deletePhoto(userID: String, visitID: String, photoID: String, now: Date) async throws {
        _ = try await mutate(userID: userID, id: visitID, now: now, { visit in
            guard visit.photos.contains(where: { $0.id == photoID }) else { throw VisitError.photoNotFound }
            visit.photos.removeAll { $0.id == photoID }
        }, extra: { _, sql in
            try await sql.delete(from: "visit_photos").where("id", .equal, photoID).where("user_id", .equal, userID).run()
        })
    }

    // MARK: chain

    /// Earlier versions of one visit, oldest first, read back from its signed records.
    public func history(userID: String, visitID: String) async throws -> [(ChainBody, VisitFields?)] {
        _ = try await get(userID: userID, id: visitID)
        let records = try await VisitStore.records(userID: userID, visitID: visitID, on: database.sql)
        return records.compactMap { record in
            guard let body = try? JSONDecoder().decode(ChainBody.self, from: Data(record.body.utf8)) else { return nil }
            return (body, body.state.flatMap { try? VisitStateDecoder.fields(from: $0) })
        }
    }

    public func verify(userID: String, allSignatures: Bool = false) async throws -> ChainReport {
        let sql = database.sql
        async let loaded = VisitStore.records(userID: userID, on: sql)
        async let head = VisitStore.headRow(userID: userID, on: sql)
        async let current = VisitStore.allStates(userID: userID, on: sql)
        let key = try await signer.publicKey()
        let records = try await loaded
        let stored = try await head
        var report = VisitChain.verify(records: records, storedHead: stored?.head, userID: userID, current: try await current,
                                       allSignatures: allSignatures) { signature, data in
            key.isValidSignature(signature, for: data)
        }
        if report.problem == nil, let acknowledged = stored?.acknowledged,
           let problem = VisitChain.compare(records, withAcknowledged: acknowledged) {
            report.intact = false
            report.problem = problem
        }
        return report
    }

    public func chainExport(userID: String) async throws -> ChainExport {
        let records = try await VisitStore.records(userID: userID, on: database.sql)
        return ChainExport(algorithm: "Ed25519", publicKey: try await signer.publicKeyBase64(), head: records.last?.hash,
                           records: records.map { ChainExport.Record(seq: $0.seq, body: $0.body, hash: $0.hash, signature: $0.signature) })
    }

    // MARK: webhook

    public func webhookSettings(userID: String) async throws -> WebhookSettings {
        try await VisitStore.headRow(userID: userID, on: database.sql)?.webhook ?? WebhookSettings(url: nil, lastStatus: nil, lastSentAt: nil)
    }

    public func setWebhook(userID: String, url: String?) async throws -> WebhookSettings {
        let url = try VisitRules.validateWebhook(url)
        if let url, await webhook.outbound.permittedAddress(for: url) == nil { throw VisitError.webhookAddressRefused }
        try await database.transaction { sql in
            _ = try await VisitStore.lockHead(userID: userID, on: sql)
            try await sql.update(VisitChainHeadRow.table).set("webhook_url", to: url).set("webhook_status", to: String?.none)
                .where("user_id", .equal, userID).run()
        }
        return try await webhookSettings(userID: userID)
    }

    /// Sends the current head now and records the outcome; used by the "send now" button and after each change.
    @discardableResult
    public func sendHead(userID: String, now: Date) async throws -> String? {
        guard let url = try await webhookSettings(userID: userID).url else { return nil }
        guard let head = try await VisitStore.headRow(userID: userID, on: database.sql)?.head else { return nil }
        let status = await webhook.send(url: url, payload: .init(user: userID, seq: head.seq, hash: head.hash,
                                                                  publicKey: try await signer.publicKeyBase64(), sentAt: now))
        let update = database.sql.update(VisitChainHeadRow.table).set("webhook_status", to: status.rawValue)
            .set("webhook_at", to: Int64(saturating: now.timeIntervalSince1970))
        // Only a head the receiver accepted counts as held outside: verify compares the log with it.
        if status == .delivered { update.set("webhook_seq", to: Int64(head.seq)).set("webhook_hash", to: head.hash) }
        try await update.where("user_id", .equal, userID).run()
        return status.rawValue
    }

    private func notifyWebhook(userID: String, head: ChainHead, webhook: String?, now: Date) {
        guard webhook != nil else { return }
        let service = self
        // Off the request path: a slow or dead receiver must not delay saving.
        Task {
            do { try await service.sendHead(userID: userID, now: now) } catch {
                service.logger.warning("visit chain webhook failed", metadata: ["error": "\(type(of: error))"])
            }
        }
    }
}

public struct WebhookSettings: Codable, Sendable, Equatable {
    public var url: String?
    public var lastStatus: String?
    public var lastSentAt: Date?
}

public struct ChainExport: Codable, Sendable, Equatable {
    public struct Record: Codable, Sendable, Equatable {
        public var seq: Int
        public var body: String
        public var hash: String
        public var signature: String
    }
    public var algorithm: String
    public var publicKey: String
    public var head: String?
    public var records: [Record]
}

// MARK: read methods for the journal

extension VisitService {
    /// When the first (not deleted) visit was, for paging back through time without scanning past it.
    public func firstVisitDate(userID: String) async throws -> Date? {
        let row = try await database.sql.raw("SELECT MIN(visited_at) AS first FROM visits WHERE user_id = \(bind: userID) AND deleted_at IS NULL").first()
        return try row?.decode(column: "first", as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
