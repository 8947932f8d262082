import Foundation
import Testing
@testable import HibiApp

/// `sqlite::memory:` (and every SQLite test) runs on a scratch file, since SQLiteNIO cannot share a real in-memory
/// database between connections. SQLiteKit's own fallback never deleted its file: a test run left a thousand of
/// them, half a megabyte and up each, in the temp directory.
struct SQLiteMemoryTests {
    @Test func anInMemoryDatabaseLeavesNoFileBehind() async throws {
        let database = try await Database.open(.sqliteMemory, logger: TestApp.quietLogger)
        let path = try #require(database.scratchPath)
        try await database.sql.raw("CREATE TABLE notes (body TEXT NOT NULL)").run()
        try await database.sql.raw("INSERT INTO notes (body) VALUES ('kept while open')").run()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        await database.shutdown()
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix) left behind")
        }
    }

    @Test func twoInMemoryDatabasesShareNothing() async throws {
        let first = try await Database.open(.sqliteMemory, logger: TestApp.quietLogger)
        let second = try await Database.open(.sqliteMemory, logger: TestApp.quietLogger)
        try await first.sql.raw("CREATE TABLE notes (body TEXT NOT NULL)").run()
        let tables = try await second.sql.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all()
        #expect(tables.isEmpty)
        // Nor is either one a file someone chose: a restore has no file of its own to replace.
        #expect(first.sqlitePath == nil)
        await first.shutdown()
        await second.shutdown()
    }
}
