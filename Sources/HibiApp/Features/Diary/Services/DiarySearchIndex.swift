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
    }

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
        /// Newest first, so results come out in list order; rebuilt lazily after a change.
        var ordered: [Entry]?
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
        guard var index = users[userID] else { return }
        index.entries[record.id] = Entry(record)
        index.ordered = nil
        users[userID] = index
    }

    public func didDelete(userID: String, id: String) {
        guard var index = users[userID], index.entries.removeValue(forKey: id) != nil else { return }
        index.ordered = nil
        users[userID] = index
    }

    private func current(userID: String, store: DiaryStore) async throws -> [Entry] {
        let fingerprint = try await store.searchFingerprint(userID: userID)
        var index: UserIndex
        if var cached = users[userID] {
            if cached.fingerprint != fingerprint {
                try await refresh(&cached, userID: userID, to: fingerprint, store: store)
            }
            index = cached
        } else {
            index = try await build(userID: userID, fingerprint: fingerprint, store: store)
        }
        let ordered = index.ordered ?? index.entries.values.sorted { $0.date == $1.date ? $0.id < $1.id : $0.date > $1.date }
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
    /// more than one edit); deletions show as a count that is too high and are found by id.
    private func refresh(_ index: inout UserIndex, userID: String, to fingerprint: Fingerprint, store: DiaryStore) async throws {
        for record in try await store.searchRecords(userID: userID, editedSince: index.fingerprint.latestUpdate) {
            index.entries[record.id] = Entry(record)
        }
        if index.entries.count != fingerprint.count {
            let present = Set(try await store.entryIDs(userID: userID))
            index.entries = index.entries.filter { present.contains($0.key) }
        }
        guard index.entries.count == fingerprint.count else {
            // Something older than what we hold appeared (e.g. an import that keeps old edit times).
            index = try await build(userID: userID, fingerprint: fingerprint, store: store)
            return
        }
        index.fingerprint = fingerprint
        index.ordered = nil
    }

    private func remember(_ userID: String, _ index: UserIndex) {
        users[userID] = index
        order.removeAll { $0 == userID }
        order.append(userID)
        while order.count > maxUsers { users[order.removeFirst()] = nil }
    }
}
