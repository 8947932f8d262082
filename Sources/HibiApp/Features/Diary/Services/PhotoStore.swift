import Foundation

/// Diary photos as sealed files under the media directory, one per photo (`<user>/<photo id>.sealed`).
/// An entry's first photo from before several photos were allowed has the entry's id as its photo id.
public struct PhotoStore: Sendable {
    let directory: String
    let box: SealedBoxService

    public init(dataDirectory: String, box: SealedBoxService) {
        self.directory = (dataDirectory as NSString).appendingPathComponent("diary-photos")
        self.box = box
    }

    /// Bound to the owner as well as the entry: a file moved into another person's folder does not open.
    static func context(userID: String, _ photoID: String) -> String { "diary-photo:\(userID):\(photoID)" }
    static func legacyContext(_ photoID: String) -> String { "diary-photo:\(photoID)" }

    /// Both ids are server-made UUIDs; checked anyway so no path can be steered by input. An id that
    /// fails the check names no file (reads find nothing, writes are refused) rather than stopping the process.
    func path(userID: String, photoID: String) -> String? {
        guard Self.isPlainName(userID), Self.isPlainName(photoID) else { return nil }
        return ((directory as NSString).appendingPathComponent(userID) as NSString).appendingPathComponent(photoID + ".sealed")
    }

    static func isPlainName(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Where the photo's thumbnail is kept (see `PhotoThumbnails`).
    func thumbnailPath(userID: String, photoID: String) -> String? {
        path(userID: userID, photoID: photoID).map { String($0.dropLast(".sealed".count)) + ".thumb.sealed" }
    }

    public func save(_ data: Data, userID: String, photoID: String) throws {
        let sealed = try box.seal(data, context: Self.context(userID: userID, photoID))
        guard let target = path(userID: userID, photoID: photoID) else { throw DiaryError.entryNotFound }
        try write(sealed, to: target)
    }

    /// Sealed bytes to `target`, whole or not at all.
    func write(_ sealed: Data, to target: String) throws {
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // Written to a temporary name and renamed, so a crash never leaves half a photo under the real name.
        // A name of its own: two instances saving the same entry at once never write into one file.
        let temporary = target + "." + UUID().uuidString.lowercased() + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: sealed, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        // rename(2) replaces the old photo in one step: a reader sees the old file or the new, never none.
        guard rename(temporary, target) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Photos sealed before contexts named the owner, re-sealed to their owner (`OwnerSealing`, once at start-up);
    /// returns how many changed.
    func resealToOwners() throws -> Int {
        let manager = FileManager.default
        var changed = 0
        for user in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where Self.isPlainName(user) {
            let folder = (directory as NSString).appendingPathComponent(user)
            for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".sealed") {
                let entry = String(name.dropLast(".sealed".count))
                let path = (folder as NSString).appendingPathComponent(name)
                guard Self.isPlainName(entry), let sealed = manager.contents(atPath: path),
                      (try? box.open(sealed, context: Self.context(userID: user, entry))) == nil,
                      let plain = try? box.open(sealed, context: Self.legacyContext(entry)) else { continue }
                try save(plain, userID: user, photoID: entry)
                changed += 1
            }
        }
        return changed
    }

    public func load(userID: String, photoID: String) throws -> Data? {
        guard let path = path(userID: userID, photoID: photoID), let sealed = FileManager.default.contents(atPath: path) else { return nil }
        return try box.open(sealed, context: Self.context(userID: userID, photoID))
    }

    /// Bytes of this person's sealed photos on disk, for the storage quota.
    public func usedBytes(userID: String) -> Int64 {
        guard Self.isPlainName(userID) else { return 0 }
        let folder = (directory as NSString).appendingPathComponent(userID)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.reduce(Int64(0)) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name))[.size] as? NSNumber)?.int64Value ?? 0
            return total + size
        }
    }

    /// The sealed file's size, a little more than the photo's: enough to bound an export without opening it.
    public func storedSize(userID: String, photoID: String) -> Int? {
        path(userID: userID, photoID: photoID).flatMap { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? NSNumber)?.intValue }
    }

    /// The photo and its thumbnail, if one was made.
    public func delete(userID: String, photoID: String) {
        for path in [path(userID: userID, photoID: photoID), thumbnailPath(userID: userID, photoID: photoID)].compactMap({ $0 }) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
