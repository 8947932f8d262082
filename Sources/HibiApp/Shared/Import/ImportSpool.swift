import Foundation

/// A private folder under the media directory's `tmp/imports/` where an import keeps the archive members it
/// reads, each inflated once and then referred to by path, and the ledger of what the import will write.
/// `tmp` folders are left out of backups; a spool a killed process left behind is removed by the next import
/// after a day.
final class ImportSpool: @unchecked Sendable {
    let directory: String
    /// Most bytes the import may write, every reference to a member counted.
    let budget: UInt64
    private(set) var charged: UInt64 = 0
    private var byMember: [String: String] = [:]
    private var count = 0

    static let staleAfter: TimeInterval = 86_400

    init(mediaDirectory: String, budget: UInt64, now: Date = Date()) throws {
        let root = ((mediaDirectory as NSString).appendingPathComponent("tmp") as NSString).appendingPathComponent("imports")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            let path = (root as NSString).appendingPathComponent(name)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
               now.timeIntervalSince(modified) > Self.staleAfter {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        directory = (root as NSString).appendingPathComponent(UUID().uuidString.lowercased())
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        self.budget = budget
    }

    /// The import would write more than `budget` bytes; the importer refuses the archive in its own words.
    struct OverBudget: Error, Equatable {
        let budget: UInt64
    }

    /// Counts `bytes` more that the import will write; refuses once the total passes the budget.
    func charge(_ bytes: UInt64) throws(OverBudget) {
        let (sum, over) = charged.addingReportingOverflow(bytes)
        guard !over, sum <= budget else { throw OverBudget(budget: budget) }
        charged = sum
    }

    /// The spool file already made for `member`, if any.
    func file(for member: String) -> String? { byMember[member] }

    /// A new spool file filled by `fill`; remembered under `member` when given. Removed again if `fill` fails.
    func create(for member: String?, _ fill: (FileHandle) throws -> Void) throws -> String {
        count += 1
        let path = (directory as NSString).appendingPathComponent("\(count)")
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        do {
            defer { try? handle.close() }
            try fill(handle)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        if let member { byMember[member] = path }
        return path
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
