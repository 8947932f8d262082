import Foundation

/// Electrocardiograms from an Apple Health export (`electrocardiograms/*.csv`), kept as the files
/// they are under the media directory, one folder per user: listed and downloaded by their owner only.
public struct HealthECGStore: Sendable {
    /// nil: this server keeps no files (tests of the stores alone); imports then report them as not kept.
    let directory: String?
    /// One ECG is 30 s at 512 Hz: about 300 KB of text. Anything far larger is not an ECG.
    public static let maxBytes = 8 * 1024 * 1024

    public struct File: Sendable, Equatable, Codable {
        public var name: String
        public var size: Int64
    }

    /// Names as Apple writes them (ecg_2024-05-05.csv, ecg_2024-05-05_1.csv): letters, digits, . _ - only,
    /// so a name can never leave the user's folder.
    public static func isSafeName(_ name: String) -> Bool {
        guard name.count <= 128, name.hasSuffix(".csv"), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { b in (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2E || b == 0x5F || b == 0x2D }
    }

    func folder(userID: String) -> String? {
        guard let directory, !userID.isEmpty, !userID.contains("/"), !userID.contains("..") else { return nil }
        return (directory as NSString).appendingPathComponent(userID)
    }

    /// Stores one file; false when the same file (same name, same bytes) is already there.
    func save(name: String, data: Data, userID: String) throws -> Bool {
        guard Self.isSafeName(name), let folder = folder(userID: userID) else { throw HealthError.recordNotFound }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = (folder as NSString).appendingPathComponent(name)
        if let existing = FileManager.default.contents(atPath: path), existing == data { return false }
        let partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: data, attributes: [.posixPermissions: 0o600]) else { throw HealthError.recordNotFound }
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return true
    }

    public func list(userID: String) -> [File] {
        guard let folder = folder(userID: userID), let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter(Self.isSafeName).sorted().map { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name))[.size] as? NSNumber)?.int64Value ?? 0
            return File(name: name, size: size)
        }
    }

    /// The file's path if this user has it.
    public func path(name: String, userID: String) -> String? {
        guard Self.isSafeName(name), let folder = folder(userID: userID) else { return nil }
        let path = (folder as NSString).appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
