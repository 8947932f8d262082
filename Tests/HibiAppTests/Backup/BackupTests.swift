import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SQLKit
import Synchronization
import Testing
@testable import HibiApp

/// A filled instance on SQLite, its backup, and places to restore it.
enum BackupFixture {
    static func directory(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-backup-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func sqliteConfig(_ directory: String) async throws -> AppConfig {
        try await TestApp.config(dataDirectory: directory, database: .sqliteFile(path: (directory as NSString).appendingPathComponent("hibi.sqlite")))
    }

    /// Where a restore goes: a fresh PostgreSQL database when the suite has a server, else a second SQLite file.
    static func targetConfig(_ directory: String) async throws -> AppConfig {
        if let server = TestApp.postgresURL {
            return try await TestApp.config(dataDirectory: directory, database: .postgres(url: try await TestApp.freshPostgresDatabase(serverURL: server)))
        }
        return try await sqliteConfig(directory)
    }

    /// Copies the data key, as an operator moving an instance does (it never travels inside a backup; the
    /// visits signing key does, sealed under it in the database).
    static func copyKeys(from source: String, to target: String) throws {
        for name in [DataKeyStore.fileName] {
            let from = (source as NSString).appendingPathComponent(name), to = (target as NSString).appendingPathComponent(name)
            try? FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
    }

    struct Filled: Sendable {
        let diaryText: String
        let photoEntryID: String
        let visits: Int
        let videoID: String?
    }

    /// Fills every feature through the API: diary with photos and moods, health with a goal and badges,
    /// visits with an edit and a photo, videos with a playlist and progress, a second user.
    static func fill(_ config: AppConfig) async throws -> Filled {
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, face: .given(analyzer: nil, moods: FakeMoodEstimator()))
        let app = await buildApplication(core: core)
        let filled = try await app.test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let text = "朝の散歩 \"quoted\"\nsecond line\ttab — café"
            let first = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-01T10:00:00Z","text":"\#(text.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t"))","tags":["walk","朝"],"confirmedMood":"happiness"}"#)
            guard first.status == .created else { throw TestFailure("diary: \(first.status) \(first.body)") }
            let photo = TestImages.png.base64EncodedString()
            let second = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-05T10:00:00Z","text":"With a photo","photo":"\#(photo)"}"#)
            guard second.status == .created else { throw TestFailure("diary photo: \(second.status) \(second.body)") }
            let photoEntry = try APIClient.decode(DiaryEntryResponse.self, second)

            for (type, value, offset) in [("steps", "6000", 600.0), ("weight", "61.25", 300.0), ("steps", "4500", 120.0)] {
                let start = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-offset))
                let page = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"\#(type)","value":\#(value),"start":"\#(start)"}"#)
                guard page.status == .created else { throw TestFailure("health: \(page.status) \(page.body)") }
            }
            let deadline = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86400 * 30))
            _ = try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10000,"deadline":"\#(deadline)"}"#)
            _ = try await api.call(.put, "/api/v1/health/profile", json: #"{"weightUnit":"lb","heightCm":165.5}"#)

            let visit = try await VisitTestApp.create(api)
            _ = try await VisitTestApp.create(api, VisitTestApp.visit("Kyoto", lat: 35.0116, lon: 135.7681))
            let edited = try await api.call(.put, "/api/v1/visits/\(visit.id)", json: VisitTestApp.visit("Tokyo Station Hotel"))
            guard edited.status == .ok else { throw TestFailure("visit edit: \(edited.status)") }
            _ = try await api.upload("/api/v1/visits/\(visit.id)/photos", data: VisitTestApp.png, contentType: "image/png")

            var videoID: String?
            if FileManager.default.isExecutableFile(atPath: config.videos.ffprobePath) {
                let video = try await browser.uploaded(VideoFixtures.other, name: "garden.mp4")
                videoID = video.id
                _ = try await browser.json(.put, "/api/v1/videos/\(video.id)/progress", #"{"positionSeconds":3,"ended":false}"#)
                let playlist = try APIClient.decode(PlaylistResponse.self, try await browser.json(.post, "/api/v1/playlists", #"{"name":"夕方"}"#))
                _ = try await browser.json(.post, "/api/v1/playlists/\(playlist.id)/items", #"{"videoId":"\#(video.id)"}"#)
            }
            _ = try await browser.addUser("ken")
            let stored = try APIClient.decode(DiaryEntryResponse.self, first).text
            return Filled(diaryText: stored, photoEntryID: photoEntry.id, visits: 2, videoID: videoID)
        }
        await core.database.shutdown()
        return filled
    }

    static func backup(_ config: AppConfig, to path: String) async throws -> BackupManifest {
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        do {
            let manifest = try await BackupService(database: core.database, dataDirectory: config.dataDirectory, box: core.box, logger: TestApp.quietLogger,
                                                 signingKey: VisitsSigningKey())
                .write(to: path)
            await core.database.shutdown()
            return manifest
        } catch {
            await core.database.shutdown()
            throw error
        }
    }

    static func restore(_ path: String, into config: AppConfig, replace: Bool = false, allowUnverified: Bool = false,
                        migrations: [Migration] = Schema.all) async throws {
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        do {
            let box = try RestoreKey.load(masterKey: config.masterKey, dataDirectory: config.dataDirectory)
            try await RestoreService(database: database, dataDirectory: config.dataDirectory, box: box, logger: TestApp.quietLogger,
                                     signingKey: VisitsSigningKey(), migrations: migrations).restore(from: path, replace: replace, allowUnverified: allowUnverified)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// Rows in every table but migration bookkeeping, and the files under the data directory's media folders.
    static func contents(_ config: AppConfig) async throws -> (rows: Int64, tables: Int, files: Int) {
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        let tables = try await TableCatalog.read(database.sql, engine: database.engine).filter { $0.name != "hibi_schema" }
        var rows: Int64 = 0
        for table in tables {
            rows += try await database.sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: TableCatalog.quoted(table.name))").first()?
                .decode(column: "n", as: Int64.self) ?? 0
        }
        await database.shutdown()
        return (rows, tables.count, try MediaFiles.list(dataDirectory: config.dataDirectory).count)
    }

    /// Every member's bytes, read back through ZIPFoundation and checked against the manifest on the way.
    static func members(_ path: String) throws -> [String: Data] {
        let archive = try BackupArchive(path: path)
        var out: [String: Data] = [:]
        for table in archive.manifest.tables {
            guard let bytes = table.bytes, let sha256 = table.sha256 else { continue }
            var data = Data()
            try archive.read(member: table.member, bytes: bytes, sha256: sha256) { data.append($0) }
            out[table.member] = data
        }
        if let database = archive.manifest.database {
            var data = Data()
            try archive.read(member: database.member, bytes: database.bytes, sha256: database.sha256) { data.append($0) }
            out[database.member] = data
        }
        for file in archive.manifest.files {
            var data = Data()
            try archive.read(member: file.member, bytes: file.bytes, sha256: file.sha256) { data.append($0) }
            out[file.member] = data
        }
        return out
    }

    /// The backup at `path` written again to `out` with its `tables.sqlite` changed by `change` and the manifest's
    /// size and SHA-256 for it updated: what someone who can write the file and knows the format could do.
    /// A source instance on SQLite filled through the API (plus `healthRecords` more), and its backup.
    static func filledBackup(_ label: String, healthRecords: Int = 0) async throws -> (source: String, backup: String) {
        let source = try directory(label)
        let config = try await sqliteConfig(source)
        _ = try await fill(config)
        if healthRecords > 0 { try await addHealthRecords(healthRecords, to: config) }
        let backup = (source as NSString).appendingPathComponent("\(label).hibi-backup")
        _ = try await self.backup(config, to: backup)
        // No partial file next to the finished archive, and nothing of the tables' scratch copy (nor what SQLite keeps
        // beside an open database: WAL, shared memory, journal) left in the data directory's tmp/.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: source)
            .filter { $0.hasPrefix("\(label).hibi-backup") && $0 != "\(label).hibi-backup" }
        #expect(leftovers.isEmpty, "left beside the archive: \(leftovers)")
        let scratch = (try? FileManager.default.contentsOfDirectory(atPath: (source as NSString).appendingPathComponent("tmp"))) ?? []
        #expect(!scratch.contains { $0.hasPrefix("backup-") }, "left in tmp/: \(scratch)")
        return (source, backup)
    }

    /// A change made to a backup's tables file, and the table the refusal must name.
    struct Tampering: Sendable {
        let label: String
        let table: String
        let change: @Sendable (SQLiteSession) async throws -> Void
    }

    /// Each change, written into a copy of `good` with matching checksums, is refused whole by a restore (the
    /// tables file named as damaged, the table in the reason) and the target left empty.
    static func expectRefusedWhole(_ good: String, keysFrom source: String, _ tamperings: [Tampering]) async throws {
        for tampering in tamperings {
            let tampered = (source as NSString).appendingPathComponent("tampered-\(tampering.label).hibi-backup")
            // Signed again with the source's key: these tamperings test the row checks behind the signature.
            try await rewrite(good, to: tampered, signWith: try RestoreKey.load(masterKey: nil, dataDirectory: source), tampering.change)
            #expect(try BackupVerifier.verify(path: tampered, box: try RestoreKey.load(masterKey: nil, dataDirectory: source)).tables > 0)
            let target = try directory("tampered-target")
            try copyKeys(from: source, to: target)
            let config = try await targetConfig(target)
            do {
                try await restore(tampered, into: config)
                Issue.record("the tampered backup (\(tampering.label)) was restored")
            } catch let error as BackupError {
                guard case let .damaged(member, reason) = error else { Issue.record("unexpected: \(error)"); continue }
                #expect(member == BackupSnapshot.memberName)
                #expect(reason.contains(tampering.table), "\(tampering.label): \(reason)")
            }
            let left = try await contents(config)
            #expect(left.rows == 0 && left.tables == 0 && left.files == 0, "\(tampering.label): target not left empty: \(left)")
        }
    }

    /// `signWith`: the key that signs the new manifest (someone holding the data key); nil leaves it unsigned,
    /// as someone without the key must, or with `keepingMACOf` carrying over another archive's signature.
    static func rewrite(_ path: String, to out: String, signWith box: SealedBoxService? = nil, keepingMACOf original: String? = nil,
                        _ change: @escaping @Sendable (SQLiteSession) async throws -> Void) async throws {
        let archive = try BackupArchive(path: path)
        var manifest = archive.manifest
        let database = try #require(manifest.database)
        let work = try directory("rewrite")
        let tables = (work as NSString).appendingPathComponent(BackupSnapshot.memberName)
        try archive.extract(member: database.member, bytes: database.bytes, sha256: database.sha256, to: tables)
        try await BackupSnapshot.withFile(tables, logger: TestApp.quietLogger) { try await change($0) }
        let zip = try BackupZipWriter(path: out)
        for (index, file) in manifest.files.enumerated() {
            let copy = (work as NSString).appendingPathComponent("file-\(index)")
            try archive.extract(member: file.member, bytes: file.bytes, sha256: file.sha256, to: copy)
            try zip.add(name: file.member, source: copy, method: .stored, modified: Date())
        }
        let written = try zip.add(name: BackupSnapshot.memberName, source: tables, method: .stored, modified: Date())
        manifest.database = .init(member: BackupSnapshot.memberName, bytes: written.bytes, sha256: written.sha256)
        let manifestPath = (work as NSString).appendingPathComponent(BackupManifest.memberName)
        let manifestBytes = try JSONCoding.encoder.encode(manifest)
        try manifestBytes.write(to: URL(fileURLWithPath: manifestPath))
        try zip.add(name: BackupManifest.memberName, source: manifestPath, method: .deflated, modified: Date())
        let mac = try box.map { $0.authenticationCode(for: manifestBytes, purpose: BackupManifest.macPurpose) } ?? original.flatMap { try BackupArchive(path: $0).mac }
        if let mac {
            let macPath = (work as NSString).appendingPathComponent(BackupManifest.macMemberName)
            try Data(Hex.string(mac).utf8).write(to: URL(fileURLWithPath: macPath))
            try zip.add(name: BackupManifest.macMemberName, source: macPath, method: .stored, modified: Date())
        }
        try zip.finish()
    }

    /// Enough health records that every table copy runs over many pages (2,000 rows a cursor fetch from
    /// PostgreSQL, 5,000 a read from the tables file), each page read while the one before is written.
    static func addHealthRecords(_ count: Int, to config: AppConfig) async throws {
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        do {
            let user = try #require(try await database.sql.raw("SELECT id FROM users WHERE username = 'aiko'").first()?.decode(column: "id", as: String.self))
            var start = 0
            while start < count {
                let insert = database.sql.insert(into: "health_records").columns(HealthRecordStore.columns)
                for index in start..<min(count, start + 500) {
                    insert.values(SQLBind("bulk-\(index)"), SQLBind(user), SQLBind("steps"), SQLBind(Double(index % 997) + 0.25), SQLBind(""),
                                  SQLBind("count"), SQLBind(Int64(1_700_000_000 + index * 60)), SQLBind(Int64(1_700_000_060 + index * 60)),
                                  SQLBind("appleHealth"), SQLBind("Watch \(index % 3)"), SQLLiteral.null, SQLBind(Int64(1_700_000_000)))
                }
                try await insert.run()
                start += 500
            }
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// Every table's rows in the backup's `tables.sqlite`, in a canonical order (all columns), one line per row:
    /// two snapshots of the same data compare equal whatever their pages look like.
    static func tableRows(_ path: String) async throws -> [String: [String]] {
        let archive = try BackupArchive(path: path)
        let database = try #require(archive.manifest.database)
        let file = try directory("rows") + "/tables.sqlite"
        try archive.extract(member: database.member, bytes: database.bytes, sha256: database.sha256, to: file)
        let tables = archive.manifest.tables
        return try await BackupSnapshot.withFile(file, logger: TestApp.quietLogger) { sql in
            var out: [String: [String]] = [:]
            for table in tables {
                let order = (1...max(1, table.columns.count)).map(String.init).joined(separator: ", ")
                let rows = try await sql.connection.query("SELECT * FROM \(TableCatalog.quoted(table.name)) ORDER BY \(order)", [])
                out[table.name] = rows.map { row in row.columns.map { "\($0.name)=\($0.data)" }.joined(separator: "|") }
            }
            return out
        }
    }
}

@Suite(.serialized) struct BackupRoundTripTests {
    @Test func sqliteBackupRestoresIntoTheOtherEngineAndBacksUpIdentically() async throws {
        let source = try BackupFixture.directory("source")
        let target = try BackupFixture.directory("target")
        try await roundTrip(source: source, sourceConfig: try await BackupFixture.sqliteConfig(source),
                            target: target, targetConfig: try await BackupFixture.targetConfig(target))
    }

    @Test(.enabled(if: TestApp.postgresURL != nil)) func postgresBackupRestoresIntoSQLiteAndBacksUpIdentically() async throws {
        let source = try BackupFixture.directory("pg-source")
        let target = try BackupFixture.directory("sqlite-target")
        try await roundTrip(source: source, sourceConfig: try await BackupFixture.targetConfig(source),
                            target: target, targetConfig: try await BackupFixture.sqliteConfig(target))
    }

    /// Fill the source through the API, back it up, restore into the target, back that up, and compare the
    /// two archives member by member; then use the restored instance as a person would.
    func roundTrip(source: String, sourceConfig: AppConfig, target: String, targetConfig: AppConfig) async throws {
        let filled = try await BackupFixture.fill(sourceConfig)
        try await BackupFixture.addHealthRecords(12_345, to: sourceConfig)
        let first = (source as NSString).appendingPathComponent("first.hibi-backup")
        let manifest = try await BackupFixture.backup(sourceConfig, to: first)
        #expect(FileManager.default.fileExists(atPath: first))
        #expect(!FileManager.default.fileExists(atPath: first + ".partial"))
        // The key's check value travels, the key never does.
        #expect(manifest.dataKeyCheck != nil)
        let key = try String(contentsOfFile: (source as NSString).appendingPathComponent(DataKeyStore.fileName), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let everything = try BackupFixture.members(first)
        #expect(!everything.values.contains { $0.range(of: Data(key.utf8)) != nil })
        #expect(manifest.tables.first { $0.name == "sessions" }?.rows == 0)
        #expect(manifest.tables.first { $0.name == "diary_entries" }?.rows == 2)
        #expect(manifest.files.contains { $0.member.hasPrefix("media/diary-photos/") })

        try BackupFixture.copyKeys(from: source, to: target)
        try await BackupFixture.restore(first, into: targetConfig)

        let second = (target as NSString).appendingPathComponent("second.hibi-backup")
        let again = try await BackupFixture.backup(targetConfig, to: second)
        var left = manifest, right = again
        left.createdAt = .distantPast; right.createdAt = .distantPast
        // The tables' file is compared by its rows below: the same rows need not sit in the same pages.
        left.database?.sha256 = ""; right.database?.sha256 = ""
        left.database?.bytes = 0; right.database?.bytes = 0
        #expect(left == right)
        let a = try BackupFixture.members(first), b = try BackupFixture.members(second)
        #expect(a.keys.sorted() == b.keys.sorted())
        for (member, data) in a where member != BackupSnapshot.memberName {
            #expect(b[member] == data, "member \(member) differs after the round trip")
        }
        let rowsBefore = try await BackupFixture.tableRows(first), rowsAfter = try await BackupFixture.tableRows(second)
        #expect(rowsBefore.keys.sorted() == rowsAfter.keys.sorted())
        #expect(rowsBefore["diary_entries"]?.count == 2)
        #expect(rowsBefore["health_records"]?.count == 12_348)
        for (table, rows) in rowsBefore { #expect(rowsAfter[table] == rows, "table \(table) differs after the round trip") }

        // The restored instance works: sealed text and photos open, visit chains verify, no session came along.
        let core = try await AppCore.open(targetConfig, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            let browser = Browser(client: client)
            let page = try await browser.signIn(username: "aiko")
            #expect(page.status == .found)
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            #expect(entries.entries.map(\.text).contains(filled.diaryText))
            let photo = try await api.call(.get, "/api/v1/diary/entries/\(filled.photoEntryID)/photo")
            #expect(photo.status == .ok)
            #expect(photo.data == TestImages.png)
            let verify = try await VisitTestApp.verify(api)
            #expect(verify.intact)
            #expect(verify.records >= filled.visits)
            // Only the data key was copied: the signing key came inside the backup, sealed under it.
            #expect(!FileManager.default.fileExists(atPath: (target as NSString).appendingPathComponent(VisitSigner.fileName)))
            if let videoID = filled.videoID {
                #expect(try await api.call(.get, "/api/v1/videos/\(videoID)").status == .ok)
            }
            // Ken signed in on the source; nobody but Aiko, just now, has a session here.
            let sessions = try await core.database.sql.raw("SELECT COUNT(*) AS n FROM sessions WHERE user_id IN (SELECT id FROM users WHERE username = 'ken')").first()?
                .decode(column: "n", as: Int.self)
            #expect(sessions == 0)
        }
    }

    /// The SQLite snapshot is a page copy made while the instance keeps writing: writes go on during it, the
    /// copy is one moment (its counts hold together and it restores), and the sessions it copied are gone
    /// from its bytes, not only from its tables.
    /// `sqlite::memory:` has no file of the user's to copy pages from: its backup goes through `VACUUM INTO`
    /// (route tests run on files, so this is the one test of that path).
    @Test func anInMemoryDatabaseIsBackedUpToo() async throws {
        let source = try BackupFixture.directory("memory")
        let config = try await TestApp.config(dataDirectory: source, database: .sqliteMemory)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        #expect(core.database.sqlitePath == nil)
        let path = (source as NSString).appendingPathComponent("memory.hibi-backup")
        let manifest: BackupManifest
        do {
            _ = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                   language: nil, now: Date())
            manifest = try await BackupService(database: core.database, dataDirectory: config.dataDirectory, box: core.box, logger: TestApp.quietLogger,
                                               signingKey: VisitsSigningKey())
                .write(to: path)
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
        #expect(manifest.tables.first { $0.name == "users" }?.rows == 1)
        #expect(try await BackupFixture.tableRows(path)["users"]?.count == 1)
    }

    @Test func anSQLiteBackupTakenWhileTheServerWritesIsOneMomentWithoutSessions() async throws {
        let source = try BackupFixture.directory("live")
        let config = try await BackupFixture.sqliteConfig(source)
        _ = try await BackupFixture.fill(config)
        try await BackupFixture.addHealthRecords(40_000, to: config)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        let tokens = try await core.database.sql.raw("SELECT token_hash, csrf_token FROM sessions").all()
            .flatMap { [try $0.decode(column: "token_hash", as: String.self), try $0.decode(column: "csrf_token", as: String.self)] }
        #expect(!tokens.isEmpty)
        let user = try #require(try await core.database.sql.raw("SELECT id FROM users WHERE username = 'aiko'").first()?.decode(column: "id", as: String.self))
        let backingUp = Atomic<Bool>(true)
        let path = (source as NSString).appendingPathComponent("live.hibi-backup")
        // A writer that inserts one record per transaction until the backup is done.
        async let written: (during: Int, total: Int) = {
            var during = 0, total = 0
            while backingUp.load(ordering: .acquiring) {
                try await core.database.sql.insert(into: "health_records").columns(HealthRecordStore.columns)
                    .values(SQLBind("live-\(total)"), SQLBind(user), SQLBind("steps"), SQLBind(Double(total)), SQLBind(""), SQLBind("count"),
                            SQLBind(Int64(1_600_000_000 + total)), SQLBind(Int64(1_600_000_000 + total)), SQLBind("manual"), SQLBind(""),
                            SQLLiteral.null, SQLBind(Int64(1_600_000_000))).run()
                total += 1
                during += 1
            }
            return (during, total)
        }()
        let manifest: BackupManifest
        do {
            manifest = try await BackupService(database: core.database, dataDirectory: config.dataDirectory, box: core.box, logger: TestApp.quietLogger,
                                                 signingKey: VisitsSigningKey())
                .write(to: path)
            backingUp.store(false, ordering: .releasing)
        } catch {
            backingUp.store(false, ordering: .releasing)
            _ = try? await written
            await core.database.shutdown()
            throw error
        }
        let writes = try await written
        let after = try await core.database.sql.raw("SELECT COUNT(*) AS n FROM health_records").first()?.decode(column: "n", as: Int.self) ?? 0
        await core.database.shutdown()
        #expect(writes.during > 0, "no write finished while the backup ran")
        let copied = try #require(manifest.tables.first { $0.name == "health_records" }?.rows)
        #expect(copied >= 40_003 && copied <= after)
        // The live rows in the copy are exactly the first `copied - 40,003` the writer made: one moment.
        let rows = try await BackupFixture.tableRows(path)
        let live = (rows["health_records"] ?? []).filter { $0.contains("live-") }.count
        #expect(live == copied - 40_003)
        #expect(rows["sessions"]?.isEmpty == true)
        let tables = try #require(try BackupFixture.members(path)[BackupSnapshot.memberName])
        for token in tokens { #expect(tables.range(of: Data(token.utf8)) == nil, "a session token is still in the tables file's bytes") }

        let target = try BackupFixture.directory("live-target")
        try BackupFixture.copyKeys(from: source, to: target)
        let targetConfig = try await BackupFixture.sqliteConfig(target)
        try await BackupFixture.restore(path, into: targetConfig)
        let restored = try await Database.open(targetConfig.database, logger: TestApp.quietLogger)
        let count = try await restored.sql.raw("SELECT COUNT(*) AS n FROM health_records").first()?.decode(column: "n", as: Int.self)
        await restored.shutdown()
        #expect(count == copied)
    }

    @Test func restoreRefusesDamageNewerSchemaWrongKeyAndANonEmptyTargetLeavingItEmpty() async throws {
        let source = try BackupFixture.directory("refusals")
        let sourceConfig = try await BackupFixture.sqliteConfig(source)
        _ = try await BackupFixture.fill(sourceConfig)
        let good = (source as NSString).appendingPathComponent("good.hibi-backup")
        let manifest = try await BackupFixture.backup(sourceConfig, to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))

        func freshTarget() async throws -> AppConfig {
            let directory = try BackupFixture.directory("refused")
            try BackupFixture.copyKeys(from: source, to: directory)
            return try await BackupFixture.targetConfig(directory)
        }
        func expectRefused(_ path: String, _ config: AppConfig, migrations: [Migration] = Schema.all,
                           _ check: (BackupError) -> Bool) async throws {
            do {
                try await BackupFixture.restore(path, into: config, migrations: migrations)
                Issue.record("restore of \(path) was not refused")
            } catch let error as BackupError {
                #expect(check(error), "unexpected refusal: \(error.description)")
            }
            let left = try await BackupFixture.contents(config)
            #expect(left.rows == 0 && left.tables == 0 && left.files == 0, "target not left empty: \(left)")
        }

        // A flipped byte inside a photo and inside the tables' database.
        let photo = try #require(manifest.files.first { $0.member.hasPrefix("media/diary-photos/") })
        for member in [photo.member, BackupSnapshot.memberName] {
            var damaged = bytes
            let name = Data(member.utf8)
            // Past the local header's name and extra field (a table streamed from the database has a ZIP64 one).
            let named = try #require(damaged.range(of: name))
            let extra = Int(damaged[named.lowerBound - 2]) | Int(damaged[named.lowerBound - 1]) << 8
            let at = named.upperBound + extra + 4
            damaged[at] ^= 0x5A
            let path = (source as NSString).appendingPathComponent("damaged.hibi-backup")
            try damaged.write(to: URL(fileURLWithPath: path))
            try await expectRefused(path, try await freshTarget()) { error in
                if case let .damaged(named, _) = error { return named == member } else { return false }
            }
            #expect(throws: BackupError.self) { try BackupVerifier.verify(path: path, box: nil, allowUnverified: true) }
        }

        let truncated = (source as NSString).appendingPathComponent("truncated.hibi-backup")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        try await expectRefused(truncated, try await freshTarget()) { if case .notABackup = $0 { true } else { false } }

        // This Hibi knowing fewer migrations than the backup used is what a newer backup looks like to it.
        let older = Schema.all.filter { $0.version != manifest.schemaVersion }
        try await expectRefused(good, try await freshTarget(), migrations: older) { error in
            error == .newerSchema(backup: manifest.schemaVersion, binary: older.map(\.version).max() ?? 0)
                && error.description.contains("newer Hibi")
        }

        var wrongKey = try await freshTarget()
        wrongKey.masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try await expectRefused(good, wrongKey) { $0 == .wrongDataKey && $0.description.contains("sealed with another data key") }

        // The signing key travels sealed in the backup: a target without any key file of its own is fine.
        #expect(manifest.tables.first { $0.name == "instance_secrets" }?.rows == 1)
        #expect(manifest.visitsSigningPublicKey != nil)
        // A backup from before the key moved into the database still needs the target's key file.
        var legacy = manifest
        legacy.tables.removeAll { $0.name == "instance_secrets" }
        legacy.dataKeyCheck = nil
        #expect(throws: BackupError.signingKeyMismatch) {
            try RestoreService.check(legacy, migrations: Schema.all, box: nil, dataDirectory: try BackupFixture.directory("legacy"),
                                     signingKey: VisitsSigningKey())
        }

        // A second restore into the same target is refused without --replace and succeeds with it.
        let target = try await freshTarget()
        try await BackupFixture.restore(good, into: target)
        let once = try await BackupFixture.contents(target)
        do {
            try await BackupFixture.restore(good, into: target)
            Issue.record("a non-empty target was not refused")
        } catch let error as BackupError {
            guard case .targetNotEmpty = error else { Issue.record("unexpected: \(error)"); return }
        }
        #expect(try await BackupFixture.contents(target) == once)
        try await BackupFixture.restore(good, into: target, replace: true)
        #expect(try await BackupFixture.contents(target) == once)
    }

    /// A tables file whose checksums were made to fit but whose rows do not hold together is refused whole, naming
    /// the table: rows pointing to a user who is not there; on PostgreSQL also a number column holding text.
    @Test func aTablesFileWhoseRowsDoNotHoldTogetherIsRefusedWhole() async throws {
        let (source, good) = try await BackupFixture.filledBackup("tampered")
        var changes: [BackupFixture.Tampering] = [
            .init(label: "diary_entries", table: "diary_entries") { file in
                try await file.raw("PRAGMA foreign_keys = OFF").run()
                try await file.raw("UPDATE diary_entries SET user_id = 'nobody'").run()
            },
        ]
        if TestApp.postgresURL != nil {
            changes.append(.init(label: "number-column", table: "health_records") { file in
                try await file.raw("UPDATE health_records SET value = 'many'").run()
            })
        } else {
            // A file put in the database's place must not bring SQL of its own that would run there later.
            changes.append(.init(label: "trigger", table: "trigger hibi_spy") { file in
                try await file.raw("CREATE TRIGGER hibi_spy AFTER INSERT ON sessions BEGIN DELETE FROM users; END").run()
            })
            // The same name and columns without its primary key: the restored database would take duplicate ids.
            changes.append(.init(label: "keyless", table: "health_records") { file in
                try await file.raw("PRAGMA foreign_keys = OFF").run()
                let indexes = try await file.raw("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'health_records' AND sql IS NOT NULL").all()
                    .map { try $0.decode(column: "sql", as: String.self) }
                let create = try #require(try await file.raw("SELECT sql FROM sqlite_master WHERE name = 'health_records'").first()?
                    .decode(column: "sql", as: String.self))
                let keyless = create.replacingOccurrences(of: "PRIMARY KEY", with: "")
                #expect(keyless != create)
                try await file.raw("ALTER TABLE health_records RENAME TO old_health_records").run()
                try await file.raw(SQLQueryString(keyless)).run()
                try await file.raw("INSERT INTO health_records SELECT * FROM old_health_records").run()
                try await file.raw("DROP TABLE old_health_records").run()
                for index in indexes { try await file.raw(SQLQueryString(index)).run() }
            })
        }
        try await BackupFixture.expectRefusedWhole(good, keysFrom: source, changes)
    }

    /// A restore into an SQLite file that another connection has open (a server left running) cannot put a new
    /// file in its place: the rows go in through one transaction beside that connection, which then sees them.
    @Test func aRestoreBesideAnOpenConnectionGoesInThroughOneTransaction() async throws {
        let source = try BackupFixture.directory("beside-source")
        let sourceConfig = try await BackupFixture.sqliteConfig(source)
        _ = try await BackupFixture.fill(sourceConfig)
        let backup = (source as NSString).appendingPathComponent("b.hibi-backup")
        let manifest = try await BackupFixture.backup(sourceConfig, to: backup)
        func restored(keepingOpen: Bool) async throws -> [String: [String]] {
            let target = try BackupFixture.directory("beside")
            try BackupFixture.copyKeys(from: source, to: target)
            let config = try await BackupFixture.sqliteConfig(target)
            let other = try await Database.open(config.database, logger: TestApp.quietLogger)
            _ = try await other.sql.raw("SELECT COUNT(*) AS n FROM sqlite_master").all()
            if !keepingOpen { await other.shutdown() }
            try await BackupFixture.restore(backup, into: config)
            if keepingOpen {
                let seen = try await other.sql.raw("SELECT COUNT(*) AS n FROM diary_entries").first()?.decode(column: "n", as: Int.self)
                #expect(seen == 2)
                await other.shutdown()
            }
            let again = (target as NSString).appendingPathComponent("again.hibi-backup")
            let second = try await BackupFixture.backup(config, to: again)
            #expect(second.tables.map(\.rows) == manifest.tables.map(\.rows))
            return try await BackupFixture.tableRows(again)
        }
        let beside = try await restored(keepingOpen: true)
        let alone = try await restored(keepingOpen: false)
        #expect(beside == alone)
        #expect(beside == (try await BackupFixture.tableRows(backup)))
    }

    @Test func anInterruptedBackupLeavesNoFinishedLookingFile() async throws {
        let source = try BackupFixture.directory("interrupted")
        let config = try await BackupFixture.sqliteConfig(source)
        _ = try await BackupFixture.fill(config)
        let output = (source as NSString).appendingPathComponent("cut.hibi-backup")
        struct Stop: Error {}
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        let service = BackupService(database: core.database, dataDirectory: source, box: core.box, logger: TestApp.quietLogger,
                                    signingKey: VisitsSigningKey())
        let sawPartial = LockedFlag()
        await #expect(throws: Stop.self) {
            try await service.write(to: output) { progress in
                // Half way: the archive exists only under its temporary name.
                if progress.phase == "files" {
                    sawPartial.set(FileManager.default.fileExists(atPath: output + ".partial") && !FileManager.default.fileExists(atPath: output))
                    throw Stop()
                }
            }
        }
        await core.database.shutdown()
        #expect(sawPartial.value)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: output + ".partial"))
        // The tables' scratch copy went with it.
        let scratch = (try? FileManager.default.contentsOfDirectory(atPath: (config.dataDirectory as NSString).appendingPathComponent("tmp"))) ?? []
        #expect(!scratch.contains { $0.hasPrefix("backup-") }, "left in tmp/: \(scratch)")
    }

    @Test func aKilledBackupOrRestoreProcessLeavesNothingThatLooksDone() async throws {
        // The real thing: the CLI killed with SIGKILL mid-write, where no cleanup code can run.
        let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/hibi").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { return }
        let source = try BackupFixture.directory("killed")
        let config = try await BackupFixture.sqliteConfig(source)
        _ = try await BackupFixture.fill(config)
        // Enough media that the write takes a while.
        let big = (source as NSString).appendingPathComponent("videos/uploads/bulk")
        try FileManager.default.createDirectory(atPath: big, withIntermediateDirectories: true)
        for index in 0..<40 { try Data(repeating: UInt8(index), count: 8 << 20).write(to: URL(fileURLWithPath: "\(big)/\(index).bin")) }
        let output = (source as NSString).appendingPathComponent("killed.hibi-backup")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["backup", "--quiet", "--data-dir", source, "-o", output]
        var environment = ProcessInfo.processInfo.environment
        environment["HIBI_RESOURCES_DIR"] = TestApp.resourcesDirectory
        environment["HIBI_DATABASE_URL"] = "sqlite:" + (source as NSString).appendingPathComponent("hibi.sqlite")
        process.environment = environment
        try process.run()
        for _ in 0..<2000 where !FileManager.default.fileExists(atPath: output + ".partial") { try await Task.sleep(for: .milliseconds(5)) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(throws: BackupError.self) { try BackupVerifier.verify(path: output + ".partial", box: nil, allowUnverified: true) }

        // Killed while restoring (here while it stages the 320 MB of files): the target stays empty, and the
        // next restore clears what the killed one left and succeeds.
        let complete = (source as NSString).appendingPathComponent("complete.hibi-backup")
        _ = try await BackupFixture.backup(config, to: complete)
        let target = try BackupFixture.directory("killed-restore")
        try BackupFixture.copyKeys(from: source, to: target)
        let targetConfig = try await BackupFixture.sqliteConfig(target)
        let restore = Process()
        restore.executableURL = URL(fileURLWithPath: binary)
        restore.arguments = ["restore", "--quiet", "--data-dir", target, complete]
        environment["HIBI_DATABASE_URL"] = "sqlite:" + (target as NSString).appendingPathComponent("hibi.sqlite")
        restore.environment = environment
        try restore.run()
        func staging() -> Bool { ((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).contains { $0.hasPrefix(".restore-") } }
        for _ in 0..<2000 where !staging() { try await Task.sleep(for: .milliseconds(5)) }
        kill(restore.processIdentifier, SIGKILL)
        restore.waitUntilExit()
        #expect(restore.terminationReason == .uncaughtSignal)
        let left = try await BackupFixture.contents(targetConfig)
        #expect(left.rows == 0 && left.tables == 0 && left.files == 0, "target not left empty: \(left)")
        try await BackupFixture.restore(complete, into: targetConfig)
        #expect(!staging())
        #expect(try await BackupFixture.contents(targetConfig).files == BackupFixture.contents(config).files)
        try? FileManager.default.removeItem(atPath: source)
        try? FileManager.default.removeItem(atPath: target)
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set(_ value: Bool) { lock.withLock { flag = value } }
}

@Suite struct BackupFormatTests {
    /// Backups written before the tables moved into one SQLite file (format 1, a JSON-lines member per table)
    /// still restore, into either engine, and what they held opens: sealed text and photo, health, the visit chain.
    /// The fixture comes from `scripts/make-backup-v1-fixture.sh`, sealed with a published test key.
    @Test func aFormatOneBackupStillRestores() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/v1.hibi-backup").path
        let manifest = try BackupArchive(path: fixture).manifest
        #expect(manifest.formatVersion == 1)
        #expect(try BackupVerifier.verify(path: fixture, box: nil, allowUnverified: true).tables == manifest.tables.count)
        // Without the flag --verify says what it cannot check, as a restore does.
        let unsigned = #expect(throws: BackupError.self) { try BackupVerifier.verify(path: fixture, box: nil) }
        #expect(unsigned?.description.contains("--allow-unverified") == true)
        let target = try BackupFixture.directory("v1")
        var config = try await BackupFixture.targetConfig(target)
        config.masterKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
        // Made before backups were signed: refused without the flag, naming what cannot be checked.
        do {
            try await BackupFixture.restore(fixture, into: config)
            Issue.record("an unsigned backup was restored without --allow-unverified")
        } catch let error as BackupError {
            #expect(error == .unverified(.unsigned, hibiVersion: manifest.hibiVersion))
            #expect(error.description.contains("admin rights") && error.description.contains("--allow-unverified"))
        }
        #expect(try await BackupFixture.contents(config).rows == 0)
        try await BackupFixture.restore(fixture, into: config, allowUnverified: true)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            let browser = Browser(client: client)
            #expect(try await browser.signIn(username: "aiko", password: "fixture password").status == .found)
            let api = APIClient(browser: browser, token: try await browser.createToken(password: "fixture password"))
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            #expect(entries.entries.map(\.text).contains("v1 の日記 \"quoted\"\nline"))
            let withPhoto = try #require(entries.entries.first { $0.hasPhoto })
            #expect(try await api.call(.get, "/api/v1/diary/entries/\(withPhoto.id)/photo").status == .ok)
            let health = try await api.call(.get, "/api/v1/health/records?type=weight")
            #expect(health.status == .ok && health.body.contains("61.25"))
            let verify = try await VisitTestApp.verify(api)
            #expect(verify.intact && verify.records == 1)
        }
    }

    @Test func tablesAreInsertedParentsFirst() {
        func table(_ name: String, _ parents: Set<String>) -> TableCatalog.Table {
            .init(name: name, columns: [], primaryKey: [], parents: parents)
        }
        let order = TableCatalog.insertionOrder([
            table("video_playlist_items", ["video_playlists", "videos"]), table("videos", ["users"]),
            table("users", []), table("video_playlists", ["users"]), table("settings", []),
        ]).map(\.name)
        for (child, parent) in [("videos", "users"), ("video_playlist_items", "videos"), ("video_playlist_items", "video_playlists")] {
            #expect(order.firstIndex(of: parent)! < order.firstIndex(of: child)!)
        }
    }

    @Test func archivesTheWriterMakesAreReadByZIPFoundationAndUnzip() throws {
        let directory = try BackupFixture.directory("zip")
        let names = ["a.txt": Data(repeating: 65, count: 300_000), "sub/b.bin": Data((0..<70_000).map { UInt8($0 % 251) }), "empty": Data()]
        for (name, data) in names {
            let path = (directory as NSString).appendingPathComponent("in-" + name.replacingOccurrences(of: "/", with: "-"))
            try data.write(to: URL(fileURLWithPath: path))
        }
        let archivePath = (directory as NSString).appendingPathComponent("out.zip")
        let writer = try BackupZipWriter(path: archivePath)
        var digests: [String: BackupZipWriter.Written] = [:]
        for (name, _) in names.sorted(by: { $0.key < $1.key }) {
            let path = (directory as NSString).appendingPathComponent("in-" + name.replacingOccurrences(of: "/", with: "-"))
            digests[name] = try writer.add(name: name, source: path, method: name == "a.txt" ? .deflated : .stored, modified: Date())
        }
        try writer.finish()
        let size = try #require(FileManager.default.attributesOfItem(atPath: archivePath)[.size] as? NSNumber).intValue
        #expect(size < 300_000)  // the repetitive member was really deflated
        let archive = try ZipReader(path: archivePath, maxTotalBytes: 1 << 20)
        #expect(Set(archive.entries.keys) == Set(names.keys))
        for (name, data) in names {
            #expect(try archive.contents(of: name) == data)
            #expect(digests[name]?.bytes == Int64(data.count))
        }
        try Self.unzipTests(archivePath)
    }

    /// Members given their place first and filled later, out of order (as the media files and the tables' snapshot are,
    /// from two threads): a large one read in pieces keeps the plain SHA-256 and CRC-32 across piece boundaries and a
    /// short last piece, and a file that changed size since its place was given is refused.
    @Test func reservedMembersFilledOutOfOrderHaveTheRightDigests() throws {
        let directory = try BackupFixture.directory("large")
        let words = (0..<((2 * BackupZipWriter.parallelPiece + 12_345) / 8)).map { _ in UInt64.random(in: .min ... .max) }
        let data = words.withUnsafeBytes { Data($0) } + Data([1, 2, 3])
        let small = (directory as NSString).appendingPathComponent("small.bin")
        let large = (directory as NSString).appendingPathComponent("large.bin")
        try Data("before".utf8).write(to: URL(fileURLWithPath: small))
        try data.write(to: URL(fileURLWithPath: large))
        let archivePath = (directory as NSString).appendingPathComponent("out.zip")
        let writer = try BackupZipWriter(path: archivePath)
        let first = try writer.reserve(name: "small.bin", size: 6)
        let second = try writer.reserve(name: "large.bin", size: Int64(data.count))
        let wrong = try writer.reserve(name: "wrong.bin", size: 5)
        let written = try writer.fill(second, from: large, modified: Date())
        _ = try writer.fill(first, from: small, modified: Date())
        #expect(throws: BackupError.self) { try writer.fill(wrong, from: small, modified: Date()) }
        try Data("12345".utf8).write(to: URL(fileURLWithPath: small))
        _ = try writer.fill(wrong, from: small, modified: Date())
        let after = try writer.begin(name: "after.json", method: .deflated, modified: Date())
        try Data("{}".utf8).withUnsafeBytes { try after.write($0) }
        _ = try after.finish()
        try writer.finish()
        #expect(written.sha256 == Hex.string(SHA256.hash(data: data)))
        #expect(written.bytes == Int64(data.count))
        let archive = try ZipReader(path: archivePath, maxTotalBytes: 1 << 26)
        #expect(try archive.contents(of: "large.bin") == data)
        #expect(try archive.contents(of: "small.bin") == Data("before".utf8))
        #expect(try archive.contents(of: "wrong.bin") == Data("12345".utf8))
        #expect(try archive.contents(of: "after.json") == Data("{}".utf8))
        try Self.unzipTests(archivePath)
    }

    /// `unzip -t` checks every member's CRC-32.
    static func unzipTests(_ archivePath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        process.arguments = ["-tqq", archivePath]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
