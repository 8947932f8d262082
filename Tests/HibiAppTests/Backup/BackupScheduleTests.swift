import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

@Suite struct BackupSettingsTests {
    @Test func intervalsAreAWholeNumberAndOneUnitOfAtLeastAMinute() {
        #expect(BackupSettings.parseInterval("24h") == 86400)
        #expect(BackupSettings.parseInterval("30m") == 1800)
        #expect(BackupSettings.parseInterval("7d") == 604_800)
        #expect(BackupSettings.parseInterval("90s") == 90)
        for bad in ["", "h", "0h", "-1h", "30", "59s", "1.5h", "1w", "9999999999999999999d", "400d"] {
            #expect(BackupSettings.parseInterval(bad) == nil, "\(bad)")
        }
    }

    @Test func settingsComeFromTheEnvironmentAndBadValuesNameTheVariable() throws {
        let settings = try BackupSettings.load(environment: ["HIBI_BACKUP_DIR": "/b", "HIBI_BACKUP_EVERY": "6h", "HIBI_BACKUP_KEEP": "3"])
        #expect(settings == BackupSettings(directory: "/b", interval: 6 * 3600, keep: 3))
        #expect(try BackupSettings.load(environment: [:]).directory == nil)
        #expect(throws: ConfigError.self) { try BackupSettings.load(environment: ["HIBI_BACKUP_EVERY": "daily"]) }
        do {
            _ = try AppConfig.load(environment: ["HIBI_BACKUP_KEEP": "0"])
            Issue.record("HIBI_BACKUP_KEEP=0 was accepted")
        } catch {
            #expect(error.setting == "HIBI_BACKUP_KEEP")
        }
    }
}

@Suite(.serialized) struct BackupScheduleTests {
    @Test func onlyOneOfTwoInstancesWritesADueBackupAndOldOnesArePruned() async throws {
        let data = try BackupFixture.directory("schedule")
        let folder = (data as NSString).appendingPathComponent("backups")
        var config = try await BackupFixture.sqliteConfig(data)
        _ = try await BackupFixture.fill(config)
        config.backups = BackupSettings(directory: folder, interval: 3600, keep: 2)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        let runs = BackupRunStore(database: core.database)
        let service = BackupService(database: core.database, dataDirectory: data, box: core.box, logger: TestApp.quietLogger,
                                    signingKey: VisitsSigningKey())
        let a = BackupScheduler(settings: config.backups, runs: runs, backup: service, logger: TestApp.quietLogger, holder: "instance-a")
        let b = BackupScheduler(settings: config.backups, runs: runs, backup: service, logger: TestApp.quietLogger, holder: "instance-b")
        // Ten hours ago, in whole seconds as the database keeps them.
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 36_000).rounded(.down))

        // Both instances tick at the same moment: exactly one writes.
        async let first = a.tick(now: start)
        async let second = b.tick(now: start)
        let written = [try await first, try await second].compactMap { $0 }
        #expect(written.count == 1)
        #expect(written.first?.verified == true)
        // Not due again until the interval has passed, whoever asks.
        #expect(try await b.tick(now: start.addingTimeInterval(1800)) == nil)
        for hour in 1...3 { #expect(try await (hour % 2 == 0 ? a : b).tick(now: start.addingTimeInterval(TimeInterval(hour) * 3600 + 1)) != nil) }
        #expect(BackupSettings.archives(in: folder).count == 2)
        #expect(BackupSettings.archives(in: folder).first == BackupSettings.fileName(at: start.addingTimeInterval(3 * 3600 + 1)))
        let recent = try await runs.recent()
        #expect(recent.count == 4, "\(recent)")
        #expect(try await runs.lastGood() == start.addingTimeInterval(3 * 3600 + 1))

        // A lease held by a crashed instance blocks others until it expires.
        #expect(try await runs.claim(holder: "crashed", now: start.addingTimeInterval(5 * 3600), lease: 600))
        #expect(try await a.tick(now: start.addingTimeInterval(5 * 3600 + 60)) == nil)
        #expect(try await a.tick(now: start.addingTimeInterval(5 * 3600 + 601)) != nil)

        // The server runs the schedule itself: the last good backup is hours old, so it writes one at start,
        // and /metrics tells its age. The admin page shows the runs; a non-admin may not see it.
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            var age: Double?
            for _ in 0..<100 where age == nil {
                let metrics = try await Browser(client: client).get("/metrics").body
                age = metrics.split(separator: "\n").first { $0.hasPrefix("hibi_backup_last_success_age_seconds ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
                if age == nil || age ?? 0 > 600 { age = nil; try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(age != nil && age ?? -1 >= 0, "no fresh backup age in /metrics")
            #expect(BackupSettings.archives(in: folder).count == 2)
            let browser = Browser(client: client)
            _ = try await browser.signIn(username: "aiko")
            let page = try await browser.get("/admin/backups")
            #expect(page.status == .ok)
            #expect(page.body.contains(BackupSettings.fileName(at: start.addingTimeInterval(5 * 3600 + 601))))
            #expect(page.body.contains("verified"))
            let ken = Browser(client: client)
            _ = try await ken.signIn(username: "ken", password: "ken's password!")
            #expect(try await ken.get("/admin/backups").status == .forbidden)
            #expect(try await ken.post("/admin/backups/now", form: [:]).status == .forbidden)

            // "Back up now": the page shows its progress while it runs, then a new verified archive in the list;
            // the page leads back to the users page and shows no literal backticks.
            #expect(page.body.contains(#"href="/admin/users""#) && !page.body.contains("`"))
            let before = Set(BackupSettings.archives(in: folder))
            #expect(try await browser.post("/admin/backups/now", form: [:]).location == "/admin/backups")
            var finished = ""
            for _ in 0..<300 {
                let current = try await browser.get("/admin/backups").body
                if !current.contains("backup-running") { finished = current; break }
                #expect(current.contains(#"http-equiv="refresh""#))
                try await Task.sleep(for: .milliseconds(100))
            }
            let written = Set(BackupSettings.archives(in: folder)).subtracting(before)
            #expect(written.count == 1, "\(written)")
            let newest = try #require(try await runs.recent(limit: 30).first { written.contains($0.fileName) })
            #expect(newest.verified && newest.error == nil)
            #expect(finished.contains(newest.fileName) && finished.contains("backup-now-form"))
        }
        await core.database.shutdown()
    }
}
