import Foundation
import Logging
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

/// The SQLite bulk path of an import: one prepared statement stepped per record, and the WAL checkpointed
/// beside the writer and kept bounded. On a file database (WAL), as in production.
@Suite(.serialized) struct HealthBulkInsertTests {
    struct Fixture {
        let core: AppCore
        let user: User
        let directory: String
    }

    func fixture() async throws -> Fixture? {
        guard TestApp.postgresURL == nil else { return nil } // SQLite only: PostgreSQL keeps the portable statement
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-bulk-\(UUID().uuidString)").path
        let config = try await TestApp.config(dataDirectory: directory, database: .sqliteFile(path: directory + "/hibi.sqlite"))
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        return Fixture(core: core, user: user, directory: directory)
    }

    static func stored(_ core: AppCore, userID: String) async throws -> [String] {
        try await core.database.sql.raw("""
            SELECT type, value, category, unit, start_at, end_at, device, COALESCE(details, '<null>') AS details, source,
                   typeof(category) AS c, typeof(device) AS d FROM health_records WHERE user_id = \(bind: userID) ORDER BY start_at, type, device
            """).all().map { row in
            try ["type", "category", "unit", "device", "details", "source", "c", "d"].map { try row.decode(column: $0, as: String.self) }.joined(separator: "|")
                + "|\(try row.decode(column: "value", as: Double.self))|\(try row.decode(column: "start_at", as: Int64.self))|\(try row.decode(column: "end_at", as: Int64.self))"
        }
    }

    @Test func preparedInsertStoresEveryFieldCountsDuplicatesAndGivesAscendingIds() async throws {
        guard let f = try await fixture() else { return }
        defer { Task { await f.core.database.shutdown() } }
        let drafts = [
            HealthRecordDraft(type: "steps", value: 42, unit: "count", start: 1_700_000_000, end: 1_700_000_060, device: "<<HKDevice>, name:iPhone>"),
            HealthRecordDraft(type: "steps", value: 42, unit: "count", start: 1_700_000_000, end: 1_700_000_060), // another device: kept
            HealthRecordDraft(type: "sleep", value: 0, category: "asleepCore", unit: "", start: 1_700_000_100, end: 1_700_003_700,
                              details: "{\"k\":\"v\"}"),
            HealthRecordDraft(type: "custom:HKQuantityTypeIdentifierDietaryFatTotal", value: 21.37, unit: "g", start: 1_700_000_200,
                              end: 1_700_000_200, device: "Aiko’s 時計 ✓"),
        ]
        let twice = drafts + [drafts[0], drafts[2]] // the same batch holding duplicates of itself
        let (added, handleFound) = try await f.core.database.bulkTransaction { sql in
            let handleFound = (sql as? SQLiteSession)?.rawHandle != nil
            return (try await HealthRecordStore.insert(twice, userID: f.user.id, source: .appleHealth, now: Date(), on: sql), handleFound)
        }
        #expect(handleFound) // a SQLiteNIO release that hides the handle differently is noticed here
        #expect(added == 4)
        let again = try await f.core.database.bulkTransaction { sql in
            try await HealthRecordStore.insert(drafts, userID: f.user.id, source: .appleHealth, now: Date(), on: sql)
        }
        #expect(again == 0)

        // The portable statement (SQLKit, the PostgreSQL path) into a second user gives the very same rows.
        let other = try await f.core.accounts.createUser(username: "ben", displayName: "Ben", password: Browser.password, isAdmin: false,
                                                         language: nil, now: Date())
        let portable = try await f.core.database.transaction { sql in
            try await HealthRecordStore.insert(twice, userID: other.id, source: .appleHealth, now: Date(), on: PlainSQL(base: sql))
        }
        #expect(portable == 4)
        let fast = try await Self.stored(f.core, userID: f.user.id)
        #expect(fast == (try await Self.stored(f.core, userID: other.id)))
        #expect(fast.count == 4)
        #expect(fast.contains { $0.hasPrefix("sleep|asleepCore|||{\"k\":\"v\"}|appleHealth|text|text|0.0|") })
        #expect(fast.contains { $0.hasPrefix("steps||count||<null>|appleHealth|text|text|42.0|") }) // '' stays '', not NULL

        let ids = try await f.core.database.sql.raw("SELECT id FROM health_records WHERE user_id = \(bind: f.user.id) ORDER BY rowid")
            .all().map { try $0.decode(column: "id", as: String.self) }
        #expect(ids == ids.sorted())
        #expect(ids.allSatisfy { UUID(uuidString: $0)?.uuidString == $0 })
    }

    /// A record export of `count` step records a minute apart.
    static func export(records count: Int) -> String {
        var xml = ExportFixtures.header()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "Asia/Tokyo")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        for i in 0..<count {
            let s = format.string(from: start.addingTimeInterval(Double(i) * 60)), e = format.string(from: start.addingTimeInterval(Double(i) * 60 + 60))
            xml += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Aiko’s iPhone\" device=\"&lt;&lt;HKDevice: 0x283a4c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4.1&gt;\" unit=\"count\" startDate=\"\(s)\" endDate=\"\(e)\" value=\"\(i % 170 + 5)\"/>\n"
        }
        return xml + "</HealthData>\n"
    }

    @Test func walStaysBoundedWhileTheCheckpointRunsBesideTheWriter() async throws {
        guard let f = try await fixture() else { return }
        defer { Task { await f.core.database.shutdown() } }
        var importer = f.core.features.health.importer
        importer.batchSize = 200
        importer.walRestartFrames = 64
        let path = try ExportFixtures.write(Self.export(records: 12_000))
        let job = try await importer.prepare(path: path, fileName: "export.xml", user: f.user, uploadPath: nil, now: Date())
        let result = try await importer.run(job: job, path: path, user: f.user)
        #expect(result.job.inserted == 12_000)
        #expect(try await f.core.features.health.service.records.count(userID: f.user.id) == 12_000)
        // A passive checkpoint never shrinks the WAL file, so its size is the largest the WAL ever was.
        // Had it never started over, it would hold every page of the database at least once.
        func size(_ name: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: f.directory + "/" + name)[.size] as? NSNumber)?.intValue ?? 0
        }
        #expect(size("hibi.sqlite") > 3 << 20)
        #expect(size("hibi.sqlite-wal") < 2 << 20)
        // Every pooled connection checkpoints on its own again afterwards (SQLite's default, 1000 frames).
        for _ in 0..<6 {
            let setting = try await f.core.database.sql.raw("PRAGMA wal_autocheckpoint").first()?.decode(column: "wal_autocheckpoint", as: Int.self)
            #expect(setting == 1000)
        }
    }
}

/// An SQLDatabase that is not a `SQLiteSession`, so `HealthRecordStore.insert` takes the portable statement.
private struct PlainSQL: SQLDatabase {
    let base: any SQLDatabase
    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }
}
