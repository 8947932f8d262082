import Foundation
import Logging
import SQLKit
import Testing
@testable import HibiApp

/// The backup's tables snapshot is made by SQLite straight inside the archive, after the media files: the bytes
/// before the window must never change, and the window must hold exactly a plain SQLite file.
@Suite struct ArchiveWindowVFSTests {
    static let logger = Logger(label: "test")

    /// `count` bytes that are not zeros, so an overwrite shows.
    static func prefix(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    static func plainCopy(of path: String, from offset: Int, into directory: String) throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let copy = (directory as NSString).appendingPathComponent("plain-\(UUID().uuidString).sqlite")
        try whole.subdata(in: offset..<whole.count).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    /// A database written, changed in WAL mode and rollback mode, and shrunk, through the window of a file whose
    /// name needs escaping in a URI: the bytes before it stay as they were, nothing is left beside the file, and
    /// the window read on its own is a sound SQLite file with every row. The same with writes held back and made
    /// in runs (as the backup API's copy opens it): every page still reaches the file.
    @Test(arguments: [false, true]) func aDatabaseMadeInsideAFileAtAnOffsetIsAPlainSQLiteFileThere(coalescing: Bool) async throws {
        let directory = try BackupFixture.directory("window")
        let path = (directory as NSString).appendingPathComponent("archive #1 ?100% 日記.zip")
        let before = Self.prefix(12_345)
        try before.write(to: URL(fileURLWithPath: path))
        let window = try ArchiveWindowVFS.uri(path: path, offset: UInt64(before.count))
        let uri = coalescing ? ArchiveWindowVFS.coalescing(window) : window
        #expect(uri.hasSuffix("hibi_coalesce=1") == coalescing)
        try await BackupSnapshot.withFile(uri, logger: Self.logger) { file in
            try await file.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, n INTEGER NOT NULL)").run()
            try await file.raw("CREATE INDEX notes_n ON notes (n)").run()
            try await file.raw("""
                WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 20000)
                INSERT INTO notes (body, n) SELECT printf('note %d %s', i, hex(randomblob(40))), i FROM k
                """).run()
            // WAL needs the real file's shared memory; the window forwards it.
            try await file.raw("PRAGMA journal_mode = WAL").run()
            try await file.raw("UPDATE notes SET n = n + 1 WHERE n % 2 = 0").run()
            try await file.raw("PRAGMA journal_mode = DELETE").run()
            try await file.raw("DELETE FROM notes WHERE n > 15000").run()
            try await file.raw("VACUUM").run()
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(whole.prefix(before.count) == before)
        #expect(whole.count > before.count + 4096)
        let beside = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(beside == ["archive #1 ?100% 日記.zip"])
        let plain = try Self.plainCopy(of: path, from: before.count, into: directory)
        let (check, rows, total) = try await BackupSnapshot.withFile(plain, logger: Self.logger) { file in
            let check = try await file.raw("PRAGMA integrity_check").first()?.decode(column: "integrity_check", as: String.self)
            let row = try await file.raw("SELECT COUNT(*) AS c, SUM(n) AS s FROM notes").first()
            return (check, try row?.decode(column: "c", as: Int.self), try row?.decode(column: "s", as: Int.self))
        }
        #expect(check == "ok")
        // n = i, plus one for even i, then every n above 15000 removed.
        let expected = (1...20000).map { $0 % 2 == 0 ? $0 + 1 : $0 }.filter { $0 <= 15000 }
        #expect(rows == expected.count)
        #expect(total == expected.reduce(0, +))
    }

    /// The window opens only where the backup asks for it: without the offset, or with one that is not a whole
    /// number of at least zero, SQLite cannot open the file through it, and the file is left as it was.
    @Test func theWindowOpensOnlyWithAWholeNonNegativeOffset() async throws {
        try ArchiveWindowVFS.register()
        let directory = try BackupFixture.directory("window-refused")
        let path = (directory as NSString).appendingPathComponent("archive.zip")
        let before = Self.prefix(5000)
        try before.write(to: URL(fileURLWithPath: path))
        for parameters in ["", "&hibi_offset=-1", "&hibi_offset=12abc", "&hibi_offset=", "&hibi_offset=99999999999999999999"] {
            let uri = "file:\(path)?vfs=\(ArchiveWindowVFS.name)\(parameters)"
            await #expect(throws: (any Error).self, "\(parameters)") {
                try await BackupSnapshot.withFile(uri, logger: Self.logger) { file in
                    try await file.raw("CREATE TABLE t (x)").run()
                }
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
