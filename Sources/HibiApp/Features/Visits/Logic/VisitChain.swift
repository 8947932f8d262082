import Crypto
import Dispatch
import Foundation

/// Writes canonical JSON straight into bytes when the keys are known in advance: verify renders
/// every visit's state, and building a dictionary and sorting its keys each time was most of that cost.
/// The caller writes keys in sorted order; a test compares the result with `CanonicalJSON`.
struct CanonicalWriter {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) { CanonicalJSON.quote(value, into: &bytes) }
    mutating func string(_ value: String?) { if let value { string(value) } else { raw("null") } }
    mutating func number(_ value: Double) { CanonicalJSON.number(value, into: &bytes) }
    mutating func number(_ value: Double?) { if let value { number(value) } else { raw("null") } }
    mutating func int(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    mutating func strings(_ values: [String]) {
        raw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { raw(",") }
            string(value)
        }
        raw("]")
    }
}

public enum VisitCanonical {
    /// The visit as it is signed: every field the user can see, and the photos by digest.
    /// Keys in UTF-8 order: accuracy, address, altitude, companions, group, id, labels, latitude,
    /// longitude, name, notes, photos, simulated, visitedAt.
    public static func state(id: String, fields: VisitFields, photos: [VisitPhotoRef]) -> String {
        var out = CanonicalWriter()
        out.bytes.reserveCapacity(320 + fields.notes.utf8.count + fields.name.utf8.count)
        out.raw("{\"accuracy\":")
        out.number(fields.accuracy)
        out.raw(",\"address\":")
        if let address = fields.address {
            out.raw("{\"country\":")
            out.string(address.country)
            out.raw(",\"locality\":")
            out.string(address.locality)
            out.raw(",\"postalCode\":")
            out.string(address.postalCode)
            out.raw(",\"region\":")
            out.string(address.region)
            out.raw(",\"street\":")
            out.string(address.street)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.raw(",\"altitude\":")
        out.number(fields.altitude)
        out.raw(",\"companions\":")
        out.strings(fields.companions)
        out.raw(",\"group\":")
        out.string(fields.group)
        out.raw(",\"id\":")
        out.string(id)
        out.raw(",\"labels\":")
        out.strings(fields.labels)
        out.raw(",\"latitude\":")
        out.number(fields.latitude)
        out.raw(",\"longitude\":")
        out.number(fields.longitude)
        out.raw(",\"name\":")
        out.string(fields.name)
        out.raw(",\"notes\":")
        out.string(fields.notes)
        out.raw(",\"photos\":[")
        for (index, photo) in photos.enumerated() {
            out.raw(index > 0 ? ",{\"contentType\":" : "{\"contentType\":")
            out.string(photo.contentType)
            out.raw(",\"id\":")
            out.string(photo.id)
            out.raw(",\"sha256\":")
            out.string(photo.sha256)
            out.raw(",\"size\":")
            out.int(Int64(photo.size))
            out.raw("}")
        }
        out.raw("],\"simulated\":")
        out.raw(fields.simulated ? "true" : "false")
        out.raw(",\"visitedAt\":")
        out.int(Int64(saturating: fields.visitedAt.timeIntervalSince1970))
        out.raw("}")
        return String(decoding: out.bytes, as: UTF8.self)
    }

    public static func body(_ body: ChainBody) -> String {
        CanonicalJSON.object([
            "seq": .int(Int64(body.seq)),
            "prev": .string(body.prev),
            "user": .string(body.user),
            "visit": .string(body.visit),
            "action": .string(body.action.rawValue),
            "at": .int(body.at),
            "state": body.state.map(CanonicalJSON.string) ?? .null,
        ]).render()
    }
}

/// The parts of a record body that verify needs, found by reading the exact text `VisitCanonical.body`
/// writes. Parsing 100 000 bodies with `JSONDecoder` took seconds; reading them as the one shape they
/// have takes milliseconds. A body in any other shape (an older writer, or one edited by hand) is
/// decoded with `JSONDecoder` instead, so the outcome never depends on which path read it.
struct BodyScan {
    var seq: Int
    var action: VisitAction
    var prev: Range<Int>
    var user: Range<Int>
    var visit: Range<Int>
    /// The quoted state token as it sits in the body (escapes and all); nil for a tombstone.
    var state: Range<Int>?

    static func read(_ b: UnsafeBufferPointer<UInt8>) -> BodyScan? {
        var at = 0
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= b.count else { return false }
            let start = text.utf8Start
            for offset in 0..<count where b[at + offset] != start[offset] { return false }
            at += count
            return true
        }
        /// A string without escapes, up to (not including) its closing quote, which is consumed.
        func plainString() -> Range<Int>? {
            let start = at
            while at < b.count {
                switch b[at] {
                case UInt8(ascii: "\""): at += 1; return start..<(at - 1)
                case UInt8(ascii: "\\"), ..<0x20: return nil
                default: at += 1
                }
            }
            return nil
        }
        func integer() -> Int? {
            let negative = at < b.count && b[at] == UInt8(ascii: "-")
            if negative { at += 1 }
            var value = 0
            let start = at
            while at < b.count, b[at] >= UInt8(ascii: "0"), b[at] <= UInt8(ascii: "9"), at - start < 18 {
                value = value * 10 + Int(b[at] - UInt8(ascii: "0"))
                at += 1
            }
            guard at > start else { return nil }
            return negative ? -value : value
        }
        /// A whole JSON string token, quotes included; only skips escapes, validity is the hash's job.
        func stringToken() -> Range<Int>? {
            let start = at
            guard at < b.count, b[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            while at < b.count {
                switch b[at] {
                case UInt8(ascii: "\\"): at += 2
                case UInt8(ascii: "\""): at += 1; return start..<at
                case ..<0x20: return nil
                default: at += 1
                }
            }
            return nil
        }

        guard literal("{\"action\":\""), let actionRange = plainString(),
              let action = VisitAction(rawValue: String(decoding: UnsafeBufferPointer(rebasing: b[actionRange]), as: UTF8.self)),
              literal(",\"at\":"), integer() != nil,
              literal(",\"prev\":\""), let prev = plainString(),
              literal(",\"seq\":"), let seq = integer(),
              literal(",\"state\":") else { return nil }
        var state: Range<Int>?
        if !literal("null") {
            guard let token = stringToken() else { return nil }
            state = token
        }
        guard literal(",\"user\":\""), let user = plainString(),
              literal(",\"visit\":\""), let visit = plainString(),
              literal("}"), at == b.count else { return nil }
        return BodyScan(seq: seq, action: action, prev: prev, user: user, visit: visit, state: state)
    }
}

/// Building and checking a user's chain. Pure: signing and verifying are passed in as functions of the bytes.
public enum VisitChain {
    /// The `prev` of the first record.
    public static let genesis = String(repeating: "0", count: 64)

    public static func sha256Hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { Hex.string(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }

    /// The next record after `head`, signed by `sign`.
    public static func append(head: ChainHead?, userID: String, visitID: String, action: VisitAction, state: String?,
                              now: Date, sign: (Data) throws -> Data) rethrows -> ChainRecord {
        let body = ChainBody(seq: (head?.seq ?? 0) + 1, prev: head?.hash ?? genesis, user: userID, visit: visitID,
                             action: action, at: Int64(saturating: now.timeIntervalSince1970), state: state)
        let text = VisitCanonical.body(body)
        let signature = try sign(Data(text.utf8)).base64EncodedString()
        return ChainRecord(seq: body.seq, visitID: visitID, action: action, body: text, hash: sha256Hex(text), signature: signature)
    }

    /// The record the stored head points at is there, hashes to the head and carries a valid signature.
    public static func isGenuineHead(_ record: ChainRecord?, head: ChainHead, isValidSignature: (Data, Data) -> Bool) -> Bool {
        guard let record, record.seq == head.seq, sha256Hex(record.body) == head.hash, record.hash == head.hash,
              let signature = Data(base64Encoded: record.signature) else { return false }
        return isValidSignature(signature, Data(record.body.utf8))
    }

    /// What the visits table currently says about one visit.
    public struct CurrentVisit: Sendable {
        public let id: String
        public let state: String
        public let deleted: Bool
        public init(id: String, state: String, deleted: Bool) {
            self.id = id
            self.state = state
            self.deleted = deleted
        }
    }

    /// What one record says, checked on its own (everything except signatures needs only the record
    /// and the stored hash of the one before it, so records are checked in any order, in parallel).
    struct RecordCheck {
        enum State {
            case tombstone
            /// Where the quoted state sits in the record's body.
            case token(Range<Int>)
            /// A body read by `JSONDecoder`: its state as decoded.
            case decoded(String)
        }

        /// The body's `seq`; nil when the body cannot be read at all.
        var bodySeq: Int?
        var hashMatches = false
        /// prev, user, visit and action agree with where the record sits.
        var placeMatches = false
        var action: VisitAction = .edit
        var state: State = .tombstone
    }

    static func check(_ record: ChainRecord, previousHash: String, userID: String) -> RecordCheck {
        var result = RecordCheck()
        var body = record.body
        body.withUTF8 { bytes in
            result.hashMatches = Hex.string(SHA256.hash(data: UnsafeRawBufferPointer(bytes))) == record.hash
            if let scan = BodyScan.read(bytes) {
                func equals(_ range: Range<Int>, _ text: String) -> Bool {
                    var text = text
                    return text.withUTF8 { $0.elementsEqual(bytes[range]) }
                }
                result.bodySeq = scan.seq
                result.action = scan.action
                result.state = scan.state.map(RecordCheck.State.token) ?? .tombstone
                result.placeMatches = equals(scan.prev, previousHash) && equals(scan.user, userID)
                    && equals(scan.visit, record.visitID) && scan.action == record.action
            } else if let decoded = decode(record) {
                result.bodySeq = decoded.seq
                result.action = decoded.action
                result.state = decoded.state.map(RecordCheck.State.decoded) ?? .tombstone
                result.placeMatches = decoded.prev == previousHash && decoded.user == userID
                    && decoded.visit == record.visitID && decoded.action == record.action
            }
        }
        return result
    }

    static func signatureOK(_ record: ChainRecord, _ isValidSignature: (Data, Data) -> Bool) -> Bool {
        guard let signature = Data(base64Encoded: record.signature) else { return false }
        return isValidSignature(signature, Data(record.body.utf8))
    }

    static func decode(_ record: ChainRecord) -> ChainBody? {
        try? JSONDecoder().decode(ChainBody.self, from: Data(record.body.utf8))
    }

    /// Runs `work` over `0..<count` split into one slice per core. The work is CPU only (hashing,
    /// Ed25519), so it goes to Dispatch's pool rather than holding Swift's cooperative threads in turn.
    static func inParallel<T>(_ count: Int, _ work: @Sendable (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        let slices = min(count, max(1, ProcessInfo.processInfo.activeProcessorCount) * 4)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each slice writes only its own indices, and all are written before concurrentPerform returns.
            guard let base = buffer.baseAddress else { return } // count > 0, so the buffer has storage
            let output = UncheckedSendable(base)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                for index in (count * slice / slices)..<(count * (slice + 1) / slices) {
                    (output.value + index).initialize(to: work(index))
                }
            }
            initialized = count
        }
    }

    struct UncheckedSendable<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Checks a chain in stored order and names the first record that is wrong.
    ///
    /// Every record's hash and link is checked. Signatures: the head's signature covers every earlier
    /// record through the hash links, so when all links hold only the head's is needed (this is sound
    /// because `VisitService` never signs on top of a head whose own signature fails; see docs/visits.md).
    /// When something is wrong, every signature up to the problem is checked so the report names the
    /// first bad record.
    /// A log that checks out against itself can still have lost its newest records, with the stored head
    /// moved back to match: only a copy held elsewhere shows that. Compares the log with the head the
    /// webhook receiver acknowledged: it must still be there, unchanged.
    public static func compare(_ records: [ChainRecord], withAcknowledged acknowledged: ChainHead) -> ChainProblem? {
        guard let record = records.first(where: { $0.seq == acknowledged.seq }) else {
            return ChainProblem(seq: acknowledged.seq, visitId: nil, reason: .truncated)
        }
        return record.hash == acknowledged.hash ? nil : ChainProblem(seq: acknowledged.seq, visitId: record.visitID, reason: .truncated)
    }

    public static func verify(records: [ChainRecord], storedHead: ChainHead?, userID: String,
                              current: [CurrentVisit]?, allSignatures: Bool = false,
                              isValidSignature: @Sendable (Data, Data) -> Bool) -> ChainReport {
        let checks = inParallel(records.count) { index in
            check(records[index], previousHash: index == 0 ? genesis : records[index - 1].hash, userID: userID)
        }
        /// The first position (1-based) among the first `count` records whose signature fails.
        func firstBadSignature(among count: Int) -> Int? {
            inParallel(count) { signatureOK(records[$0], isValidSignature) }.firstIndex(of: false).map { $0 + 1 }
        }
        // The visit id a report names: the body's own when it can be read, as before.
        func bodyVisit(_ index: Int) -> String { decode(records[index])?.visit ?? records[index].visitID }

        var problem: ChainProblem?
        var verified = 0
        let badSignatureAt = allSignatures ? firstBadSignature(among: records.count) : nil
        for (index, record) in records.enumerated() {
            let position = index + 1
            let check = checks[index]
            guard let bodySeq = check.bodySeq else {
                problem = ChainProblem(seq: position, visitId: record.visitID, reason: .changed)
                break
            }
            if !check.hashMatches {
                problem = ChainProblem(seq: position, visitId: bodyVisit(index), reason: .changed)
                break
            }
            if bodySeq != position || record.seq != position {
                let present = Set(checks.compactMap(\.bodySeq))
                let reason: ChainProblemReason = present.contains(position) ? .reordered : .removed
                problem = ChainProblem(seq: position, visitId: reason == .removed ? nil : bodyVisit(index), reason: reason)
                break
            }
            if !check.placeMatches {
                // Signed for another place in some chain: moved here, or copied from another user.
                problem = ChainProblem(seq: position, visitId: bodyVisit(index), reason: signatureOK(record, isValidSignature) ? .reordered : .badSignature)
                break
            }
            if let bad = badSignatureAt, bad == position {
                problem = ChainProblem(seq: position, visitId: bodyVisit(index), reason: .badSignature)
                break
            }
            verified = position
        }
        let previousHash = verified == 0 ? genesis : records[verified - 1].hash

        if problem == nil, let last = records.last, !allSignatures, !signatureOK(last, isValidSignature) {
            problem = ChainProblem(seq: records.count, visitId: last.visitID, reason: .badSignature)
        }
        if let found = problem, found.reason != .badSignature || !allSignatures,
           let bad = firstBadSignature(among: found.seq - 1) {
            // An earlier record whose signature fails is the real first problem (its hash was recomputed).
            problem = ChainProblem(seq: bad, visitId: records[bad - 1].visitID, reason: .badSignature)
        }
        if problem == nil, let storedHead, storedHead.seq > records.count {
            problem = ChainProblem(seq: records.count + 1, visitId: nil, reason: .removed)
        } else if problem == nil, let storedHead, storedHead.seq == records.count, storedHead.hash != previousHash {
            problem = ChainProblem(seq: records.count, visitId: records.last?.visitID, reason: .changed)
        }
        if problem == nil, let current {
            problem = compare(records: records, checks: checks, current: current)
        }
        return ChainReport(intact: problem == nil, records: records.count, head: records.isEmpty ? nil : previousHash, problem: problem)
    }

    /// The visits table must show exactly the last recorded state of every visit.
    /// Called only when every record checked out, so each record's visit id is its body's.
    static func compare(records: [ChainRecord], checks: [RecordCheck], current: [CurrentVisit]) -> ChainProblem? {
        var latest: [String: Int] = [:]
        latest.reserveCapacity(records.count)
        for (index, record) in records.enumerated() { latest[record.visitID] = index }
        // Marks which records' visits the table has (its ids are unique): cheaper than a set of ids.
        var seen = [Bool](repeating: false, count: records.count)
        var problems: [ChainProblem] = []
        var quoted: [UInt8] = []
        for visit in current {
            guard let index = latest[visit.id] else {
                problems.append(ChainProblem(seq: records.count + 1, visitId: visit.id, reason: .removed))
                continue
            }
            seen[index] = true
            let matches: Bool
            if visit.deleted || checks[index].action == .delete {
                matches = visit.deleted && checks[index].action == .delete
            } else {
                switch checks[index].state {
                case .tombstone:
                    matches = false
                case let .decoded(state):
                    matches = state == visit.state
                case let .token(range):
                    // The body holds the state quoted; quoting the table's state the same way compares
                    // them without unescaping anything.
                    quoted.removeAll(keepingCapacity: true)
                    CanonicalJSON.quote(visit.state, into: &quoted)
                    var body = records[index].body
                    matches = body.withUTF8 { $0[range].elementsEqual(quoted) }
                }
            }
            if !matches { problems.append(ChainProblem(seq: index + 1, visitId: visit.id, reason: .visitChanged)) }
        }
        for (id, index) in latest where !seen[index] {
            problems.append(ChainProblem(seq: index + 1, visitId: id, reason: .removed))
        }
        return problems.min { $0.seq < $1.seq }
    }
}
