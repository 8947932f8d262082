import Crypto
import Foundation

/// A JSON value written one way only: keys sorted, no spaces, numbers in their shortest exact form.
/// The signed text must come out byte-identical every time the same visit is serialised.
public indirect enum CanonicalJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([CanonicalJSON])
    case object([String: CanonicalJSON])

    public func render() -> String {
        var out = ""
        render(into: &out)
        return out
    }

    func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += String(value)
        case let .double(value):
            // Whole numbers print without ".0" so other languages' serialisers agree on them.
            if value == value.rounded(), abs(value) < 1e15 { out += String(Int64(value)) } else { out += "\(value)" }
        case let .string(value): Self.quote(value, into: &out)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.render(into: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            // Sorted by UTF-8 bytes, which is what Python's sort_keys does for these ASCII keys.
            for (index, key) in members.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                members[key]!.render(into: &out)
            }
            out += "}"
        }
    }

    static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

public enum VisitCanonical {
    static func optional(_ value: String?) -> CanonicalJSON { value.map(CanonicalJSON.string) ?? .null }
    static func optional(_ value: Double?) -> CanonicalJSON { value.map(CanonicalJSON.double) ?? .null }

    /// The visit as it is signed: every field the user can see, and the photos by digest.
    public static func state(id: String, fields: VisitFields, photos: [VisitPhotoRef]) -> String {
        let address: CanonicalJSON = fields.address.map { address in
            .object(["country": optional(address.country), "postalCode": optional(address.postalCode),
                     "region": optional(address.region), "locality": optional(address.locality), "street": optional(address.street)])
        } ?? .null
        return CanonicalJSON.object([
            "id": .string(id),
            "visitedAt": .int(Int64(fields.visitedAt.timeIntervalSince1970)),
            "latitude": .double(fields.latitude),
            "longitude": .double(fields.longitude),
            "accuracy": optional(fields.accuracy),
            "altitude": optional(fields.altitude),
            "simulated": .bool(fields.simulated),
            "name": .string(fields.name),
            "address": address,
            "labels": .array(fields.labels.map(CanonicalJSON.string)),
            "group": optional(fields.group),
            "companions": .array(fields.companions.map(CanonicalJSON.string)),
            "notes": .string(fields.notes),
            "photos": .array(photos.map { .object(["id": .string($0.id), "contentType": .string($0.contentType),
                                                    "size": .int(Int64($0.size)), "sha256": .string($0.sha256)]) }),
        ]).render()
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

/// Building and checking a user's chain. Pure: signing and verifying are passed in as functions of the bytes.
public enum VisitChain {
    /// The `prev` of the first record.
    public static let genesis = String(repeating: "0", count: 64)

    public static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The next record after `head`, signed by `sign`.
    public static func append(head: ChainHead?, userID: String, visitID: String, action: VisitAction, state: String?,
                              now: Date, sign: (Data) throws -> Data) rethrows -> ChainRecord {
        let body = ChainBody(seq: (head?.seq ?? 0) + 1, prev: head?.hash ?? genesis, user: userID, visit: visitID,
                             action: action, at: Int64(now.timeIntervalSince1970), state: state)
        let text = VisitCanonical.body(body)
        let signature = try sign(Data(text.utf8)).base64EncodedString()
        return ChainRecord(seq: body.seq, visitID: visitID, action: action, body: text, hash: sha256Hex(text), signature: signature)
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

    /// Checks a chain in stored order and names the first record that is wrong.
    ///
    /// Every record's hash and link is checked. Signatures: the head's signature covers every earlier
    /// record through the hash links, so when all links hold only the head's is needed; when something
    /// is wrong, every signature up to the problem is checked so the report names the first bad record.
    public static func verify(records: [ChainRecord], storedHead: ChainHead?, userID: String,
                              current: [CurrentVisit]?, allSignatures: Bool = false,
                              isValidSignature: (Data, Data) -> Bool) -> ChainReport {
        var problem: ChainProblem?
        var previousHash = genesis
        var bodies: [ChainBody] = []
        bodies.reserveCapacity(records.count)
        let decoder = JSONDecoder()
        let decoded = records.map { try? decoder.decode(ChainBody.self, from: Data($0.body.utf8)) }
        let presentSeqs = Set(decoded.compactMap { $0?.seq })

        func signatureOK(_ record: ChainRecord) -> Bool {
            guard let signature = Data(base64Encoded: record.signature) else { return false }
            return isValidSignature(signature, Data(record.body.utf8))
        }

        for (index, record) in records.enumerated() {
            let position = index + 1
            guard let body = decoded[index] else {
                problem = ChainProblem(seq: position, visitId: record.visitID, reason: .changed)
                break
            }
            if sha256Hex(record.body) != record.hash {
                problem = ChainProblem(seq: position, visitId: body.visit, reason: .changed)
                break
            }
            if body.seq != position || record.seq != position {
                let reason: ChainProblemReason = presentSeqs.contains(position) ? .reordered : .removed
                problem = ChainProblem(seq: position, visitId: reason == .removed ? nil : body.visit, reason: reason)
                break
            }
            if body.prev != previousHash || body.user != userID || body.visit != record.visitID || body.action != record.action {
                // Signed for another place in some chain: moved here, or copied from another user.
                problem = ChainProblem(seq: position, visitId: body.visit, reason: signatureOK(record) ? .reordered : .badSignature)
                break
            }
            if allSignatures, !signatureOK(record) {
                problem = ChainProblem(seq: position, visitId: body.visit, reason: .badSignature)
                break
            }
            previousHash = record.hash
            bodies.append(body)
        }

        if problem == nil, let last = records.last, !allSignatures, !signatureOK(last) {
            problem = ChainProblem(seq: records.count, visitId: last.visitID, reason: .badSignature)
        }
        if let found = problem, found.reason != .badSignature || !allSignatures {
            // An earlier record whose signature fails is the real first problem (its hash was recomputed).
            for (index, record) in records.prefix(found.seq - 1).enumerated() where !signatureOK(record) {
                problem = ChainProblem(seq: index + 1, visitId: record.visitID, reason: .badSignature)
                break
            }
        }
        if problem == nil, let storedHead, storedHead.seq > records.count {
            problem = ChainProblem(seq: records.count + 1, visitId: nil, reason: .removed)
        } else if problem == nil, let storedHead, storedHead.seq == records.count, storedHead.hash != previousHash {
            problem = ChainProblem(seq: records.count, visitId: records.last?.visitID, reason: .changed)
        }
        if problem == nil, let current {
            problem = compare(bodies: bodies, current: current)
        }
        return ChainReport(intact: problem == nil, records: records.count, head: records.isEmpty ? nil : previousHash, problem: problem)
    }

    /// The visits table must show exactly the last recorded state of every visit.
    static func compare(bodies: [ChainBody], current: [CurrentVisit]) -> ChainProblem? {
        var latest: [String: ChainBody] = [:]
        for body in bodies { latest[body.visit] = body }
        var seen = Set<String>()
        var problems: [ChainProblem] = []
        for visit in current {
            seen.insert(visit.id)
            guard let body = latest[visit.id] else {
                problems.append(ChainProblem(seq: bodies.count + 1, visitId: visit.id, reason: .removed))
                continue
            }
            let matches = visit.deleted ? body.action == .delete : (body.action != .delete && body.state == visit.state)
            if !matches { problems.append(ChainProblem(seq: body.seq, visitId: visit.id, reason: .visitChanged)) }
        }
        for (id, body) in latest where !seen.contains(id) {
            problems.append(ChainProblem(seq: body.seq, visitId: id, reason: .removed))
        }
        return problems.min { $0.seq < $1.seq }
    }
}
