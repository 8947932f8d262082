import Foundation

/// Diary text is sealed at rest, so a database index cannot search it. This keeps each user's
/// decrypted, normalised text in memory after their first search, and rebuilds it when the diary's
/// fingerprint (entry count and latest edit) shows it changed, e.g. after an import from the CLI.
public actor DiarySearchIndex {
    public struct Record: Sendable {
        public let id: String
        public let date: Date
        public let text: String
    }

    /// Normalised text kept as UTF-8 bytes for `DiarySearch.matches(normalizedBytes:terms:)`.
    struct Entry: Sendable {
        let id: String
        let bytes: [UInt8]
    }

    struct UserIndex {
        let fingerprint: String
        /// Newest first, so results come out in list order.
        let entries: [Entry]
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
        let fingerprint = try await store.fingerprint(userID: userID)
        let index: UserIndex
        if let cached = users[userID], cached.fingerprint == fingerprint {
            index = cached
        } else {
            let records = try await store.searchRecords(userID: userID).sorted { $0.date == $1.date ? $0.id < $1.id : $0.date > $1.date }
            index = UserIndex(fingerprint: fingerprint, entries: records.map { Entry(id: $0.id, bytes: Array($0.text.utf8)) })
            remember(userID, index)
        }
        let needles = terms.map { Array($0.utf8) }
        return index.entries.filter { DiarySearch.matches(normalizedBytes: $0.bytes, terms: needles) }.map(\.id)
    }

    private func remember(_ userID: String, _ index: UserIndex) {
        users[userID] = index
        order.removeAll { $0 == userID }
        order.append(userID)
        while order.count > maxUsers { users[order.removeFirst()] = nil }
    }
}
