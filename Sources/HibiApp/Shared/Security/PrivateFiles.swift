import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Files Hibi writes are its owner's alone. With the usual umask 022 the data directory came out 0755
/// and the database with its WAL 0644: visits and health records are plain text in there, readable by
/// every account on the machine. The process mask is set to 077 before anything is created, so the
/// database, its journal, uploads and thumbnails are made 0600/0700 whoever creates them (SQLite,
/// ffmpeg, a library), and the data directory itself is closed before the database is opened.
public enum PrivateFiles {
    public static func prepare(dataDirectory: String, logger: Logger) throws {
        umask(0o077)
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if chmod(dataDirectory, 0o700) != 0 || isReadableByOthers(dataDirectory) {
            // Not ours to change (another owner, a read-only mount): say so rather than stop.
            logger.warning("the data directory can be read by other accounts on this machine; make it 0700",
                           metadata: ["directory": "\(dataDirectory)"])
        }
    }

    public static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & (S_IRWXG | S_IRWXO) != 0
    }
}
