import Foundation

/// Diary text is sealed at rest, so a database index cannot search it. This keeps each user's
/// decrypted, normalised text in memory after their first search. Building it costs seconds on a
/// 100k-entry diary (decrypting and folding every text), so a change refreshes it in place: entries
/// the service wrote are applied as they happen, and the fingerprint (entry count, latest edit)
/// catches what was written elsewhere (an import from the CLI) by fetching only rows edited since.
public actor DiarySearchIndex {
    public struct Record: Sendable {
        public let id: String
        public let date: Date
        public let text: String
        public let updatedAt: Int64
    }

    public struct Fingerprint: Equatable, Sendable {
        public let count: Int
        public let latestUpdate: Int64
        /// The diary's change counter (`ChangeCounters`): differs after any write through any instance.
        public var version: Int64 = 0
    }

    /// Edits from another instance may carry a slightly earlier clock: a refresh looks this far back.
    static let clockSkewAllowance: Int64 = 300

    /// Normalised text kept as UTF-8 bytes for `DiarySearch.matches(normalizedBytes:terms:)`.
    struct Entry: Sendable {
        let id: String
        let date: Date
        let bytes: [UInt8]
        let updatedAt: Int64

        init(_ record: Record) {
            id = record.id
            date = record.date
            bytes = Array(record.text.utf8)
            updatedAt = record.updatedAt
        }
    }

    struct UserIndex {
        var fingerprint: Fingerprint
        var entries: [String: Entry]
        /// Newest first, so results come out in list order; sorted lazily after a large change.
        var ordered: [Entry]?

        static func precedes(_ a: Entry, _ b: Entry) -> Bool { a.date == b.date ? a.id < b.id : a.date > b.date }

        /// Keeps the entries and their order current. A few changes are patched into the order (one
        /// pass and a binary search each), since sorting 100k entries again was most of a search
        /// right after an edit; many changes just drop the order to be sorted on the next search.
        mutating func apply(written: [Entry], deleted: Set<String> = []) {
            for entry in written { entries[entry.id] = entry }
            for id in deleted { entries[id] = nil }
            guard var order = ordered, written.count + deleted.count <= 256 else {
                ordered = nil
                return
            }
            ordered = nil  // so `order` is the only reference and is changed in place
            let gone = deleted.union(written.map(\.id))
            order.removeAll { gone.contains($0.id) }
            for entry in written {
                var low = 0, high = order.count
                while low < high {
                    let mid = (low + high) / 2
                    if Self.precedes(order[mid], entry) { low = mid + 1 } else { high = mid }
                }
                order.insert(entry, at: low)
            }
            ordered = order
        }
    }

    private var users: [String: UserIndex] = [:]
    /// Bounded so a host with many users does not keep every diary in memory.
    private let maxUsers: Int
    private var order: [String] = []

    public init(maxUsers: Int = 32) {
        self.maxUsers = maxUsers
    }

    /// Ids of the user's entries containing every term, newest first.
    public func search(userID: String, terms: [String], store: DiaryStore) async throws -> [String] {
        let ordered = try await current(userID: userID, store: store)
        let needles = terms.map { Array($0.utf8) }
        return ordered.filter { DiarySearch.matches(normalizedBytes: $0.bytes, terms: needles) }.map(\.id)
    }

    /// The service wrote this entry (create or edit): keep a built index current without a refresh.
    public func didWrite(userID: String, record: Record) {
        guard var index = users.removeValue(forKey: userID) else { return }
        index.apply(written: [Entry(record)])
        users[userID] = index
    }

    public func didDelete(userID: String, id: String) {
        guard var index = users.removeValue(forKey: userID) else { return }
        index.apply(written: [], deleted: [id])
        users[userID] = index
    }

    private func current(userID: String, store: DiaryStore) async throws -> [Entry] {
        let fingerprint = try await store.searchFingerprint(userID: userID)
        var index: UserIndex
        if let held = users[userID]?.fingerprint, held != fingerprint {
            index = try await refreshed(userID: userID, from: held, to: fingerprint, store: store)
        } else if let cached = users.removeValue(forKey: userID) {
            index = cached
        } else {
            index = try await build(userID: userID, fingerprint: fingerprint, store: store)
        }
        let ordered = index.ordered ?? index.entries.values.sorted(by: UserIndex.precedes)
        index.ordered = ordered
        remember(userID, index)
        return ordered
    }

    private func build(userID: String, fingerprint: Fingerprint, store: DiaryStore) async throws -> UserIndex {
        let records = try await store.searchRecords(userID: userID)
        return UserIndex(fingerprint: fingerprint, entries: Dictionary(records.map { ($0.id, Entry($0)) }, uniquingKeysWith: { $1 }),
                         ordered: nil)
    }

    /// Rows edited at or after the newest edit already held are fetched again (the same second may hold
    /// more than one edit); deletions show as a count that is too high and are found by id. Everything
    /// is read from the database first; the held index is then taken out of `users` and changed in
    /// place with no suspension in between, so its 100k entries are never copied.
    private func refreshed(userID: String, from held: Fingerprint, to fingerprint: Fingerprint, store: DiaryStore) async throws -> UserIndex {
        let changed = try await store.searchRecords(userID: userID, editedSince: held.latestUpdate - Self.clockSkewAllowance).map(Entry.init)
        let newCount = changed.filter { users[userID]?.entries[$0.id] == nil }.count
        let heldCount = users[userID]?.entries.count ?? 0
        let present = heldCount + newCount == fingerprint.count ? nil : Set(try await store.entryIDs(userID: userID))
        guard var index = users.removeValue(forKey: userID), index.fingerprint == held else {
            return try await build(userID: userID, fingerprint: fingerprint, store: store)
        }
        index.apply(written: changed)
        if let present { index.apply(written: [], deleted: Set(index.entries.keys.filter { !present.contains($0) })) }
        guard index.entries.count == fingerprint.count else {
            // Something older than what we hold appeared (e.g. an import that keeps old edit times).
            return try await build(userID: userID, fingerprint: fingerprint, store: store)
        }
        index.fingerprint = fingerprint
        return index
    }

    private func remember(_ userID: String, _ index: UserIndex) {
        users[userID] = index
        order.removeAll { $0 == userID }
        order.append(userID)
        while order.count > maxUsers { users[order.removeFirst()] = nil }
    }
}
