import Foundation

/// Diary photos as sealed files under the data directory, one per entry.
public struct PhotoStore: Sendable {
    let directory: String
    let box: SealedBoxService

    public init(dataDirectory: String, box: SealedBoxService) {
        self.directory = (dataDirectory as NSString).appendingPathComponent("diary-photos")
        self.box = box
    }

    static func context(_ entryID: String) -> String { "diary-photo:\(entryID)" }

    func path(userID: String, entryID: String) -> String {
        // Both ids are server-made UUIDs; checked anyway so no path can be steered by input.
        precondition(!userID.contains("/") && !entryID.contains("/") && !entryID.contains(".."))
        return ((directory as NSString).appendingPathComponent(userID) as NSString).appendingPathComponent(entryID + ".sealed")
    }

    public func save(_ data: Data, userID: String, entryID: String) throws {
        let sealed = try box.seal(data, context: Self.context(entryID))
        let target = path(userID: userID, entryID: entryID)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // Written to a temporary name and renamed, so a crash never leaves half a photo under the real name.
        let temporary = target + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: sealed, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        _ = try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.moveItem(atPath: temporary, toPath: target)
    }

    public func load(userID: String, entryID: String) throws -> Data? {
        guard let sealed = FileManager.default.contents(atPath: path(userID: userID, entryID: entryID)) else { return nil }
        return try box.open(sealed, context: Self.context(entryID))
    }

    /// The sealed file's size, a little more than the photo's: enough to bound an export without opening it.
    public func storedSize(userID: String, entryID: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path(userID: userID, entryID: entryID))[.size] as? NSNumber)?.intValue
    }

    public func delete(userID: String, entryID: String) {
        try? FileManager.default.removeItem(atPath: path(userID: userID, entryID: entryID))
    }
}
