import Foundation
import ZIPFoundation

/// The names a backup's writer makes, and nothing else: a restore refuses any other member before it reads a
/// byte of one, so an archive cannot place a file where Hibi keeps its database or keys (a `media/hibi.sqlite`
/// renamed over the checked database, a `media/data.key`), outside the media folders, or through a link.
enum BackupLayout {
    /// Top-level names in the data directory that are not media: the database and what SQLite keeps beside it,
    /// and the key files (the data key, and any `*.key`: the visits signing key file an older version kept is one).
    /// The writer never lists them (`MediaFiles` takes folders only); a folder of such a name would stand where the
    /// database or a key must go.
    static func isReserved(_ top: String) -> Bool {
        top == DataKeyStore.fileName || top.hasSuffix(".key") || top.contains(".sqlite")
    }

    /// Checks every entry of the archive against the manifest and the writer's layout.
    static func check(entries: [String: ZIPFoundation.Entry], manifest: BackupManifest) throws(BackupError) {
        var allowed: Set<String> = [BackupManifest.memberName, BackupManifest.macMemberName]
        if manifest.formatVersion >= 2 {
            if let database = manifest.database {
                guard database.member == BackupSnapshot.memberName else {
                    throw .outsideLayout(member: database.member, reason: "the tables live in \(BackupSnapshot.memberName)")
                }
                allowed.insert(database.member)
            }
        } else {
            // Format 1: a member per table, `tables/NAME.jsonl`; read, never placed anywhere.
            for table in manifest.tables {
                guard table.member == "tables/\(table.name).jsonl", StoredZip.isSafeName(table.member), !table.name.contains("/") else {
                    throw .outsideLayout(member: table.member, reason: "a table's member is tables/NAME.jsonl")
                }
                allowed.insert(table.member)
            }
        }
        for file in manifest.files {
            _ = try mediaPath(file.member)
            guard allowed.insert(file.member).inserted else { throw .outsideLayout(member: file.member, reason: "listed twice") }
        }
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard allowed.contains(name) else { throw .outsideLayout(member: name, reason: "the manifest does not list it") }
            // The writer makes plain files only; a link or folder entry is someone else's doing.
            guard entry.type == .file else { throw .outsideLayout(member: name, reason: "not a plain file (\(entry.type))") }
        }
    }

    /// Where a media member goes, relative to the media directory: `media/FOLDER/…/NAME` as `MediaFiles` lists
    /// them (a folder, then at least a name; no hidden, temporary or partial part), never a top-level file.
    static func mediaPath(_ member: String) throws(BackupError) -> String {
        guard member.hasPrefix("media/") else { throw .outsideLayout(member: member, reason: "files live under media/") }
        let relative = String(member.dropFirst("media/".count))
        guard StoredZip.isSafeName(relative), !relative.hasSuffix("/") else {
            throw .outsideLayout(member: member, reason: "not a safe file name")
        }
        let parts = relative.split(separator: "/")
        guard parts.count >= 2 else { throw .outsideLayout(member: member, reason: "a top-level file, where Hibi keeps its database and keys") }
        guard !isReserved(String(parts[0])) else { throw .outsideLayout(member: member, reason: "\(parts[0]) is where Hibi keeps its database or keys") }
        if parts.contains(where: { $0.hasPrefix(".") || $0 == "tmp" }) || [".tmp", ".partial", ".part", ".hibi-backup"].contains(where: relative.hasSuffix) {
            throw .outsideLayout(member: member, reason: "a hidden or temporary name, which backups leave out")
        }
        return relative
    }

    /// Before anything is written: every file must be able to take its place under the media directory. A
    /// file where a folder must go (or a folder where the file must go) would otherwise only fail after the
    /// tables were committed. With `replace`, the top-level folders are moved aside first, so nothing of the
    /// old layout is in the way.
    static func checkTargets(_ files: [BackupManifest.File], mediaDirectory: String, replace: Bool) throws(BackupError) {
        guard !replace else { return }
        var checked: Set<String> = []
        for file in files {
            let parts = try mediaPath(file.member).split(separator: "/").map(String.init)
            var path = mediaDirectory
            for (index, part) in parts.enumerated() {
                path = (path as NSString).appendingPathComponent(part)
                let last = index == parts.count - 1
                guard last || checked.insert(path).inserted else { continue }
                var info = stat()
                guard lstat(path, &info) == 0 else { break }
                let kind = info.st_mode & S_IFMT
                if last ? kind != S_IFREG : (kind != S_IFDIR && kind != S_IFLNK) {
                    throw .outsideLayout(member: file.member, reason: "\(path) is in the way in the target")
                }
            }
        }
    }
}
