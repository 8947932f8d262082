import Foundation
import Testing
@testable import HibiApp

/// Two instances started at the same moment on one new SQLite file both open it (the WAL switch of one must not
/// fail the other with "database is locked").
struct SQLiteOpenRaceTests {
    @Test func fourConnectionsOpeningOneNewFileAtOnceAllOpenIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-open-race-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Forty new files, four openers each: without the retry about one race in eight failed.
        for round in 0..<40 {
            let path = "\(directory)/race-\(round).sqlite"
            let opened = try await withThrowingTaskGroup(of: Database.self, returning: [Database].self) { group in
                for _ in 0..<4 { group.addTask { try await Database.open(.sqliteFile(path: path), logger: TestApp.quietLogger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(opened.count == 4)
            let mode = try await opened[0].sql.raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
            #expect(mode == "wal")
            for database in opened { await database.shutdown() }
        }
    }
}
