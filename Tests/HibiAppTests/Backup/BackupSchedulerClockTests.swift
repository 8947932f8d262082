import Foundation
import Synchronization
import Testing
@testable import HibiApp

/// Issue 30, item 4: the backup schedule runs on the platform's clock, so a test moves time instead of waiting.
/// Each pass is what the server's service does every minute; two services stand for two instances on one database.
@Suite(.serialized) struct BackupSchedulerClockTests {
    @Test func aDueBackupRunsOnceByThePlatformsClockAndNotBefore() async throws {
        let time = AssemblyTests.ManualTime()
        let start = time.current.withLock { $0 }
        let data = try BackupFixture.directory("clock")
        let folder = (data as NSString).appendingPathComponent("backups")
        var config = TestApp.postgresURL == nil ? try await BackupFixture.sqliteConfig(data) : try await TestApp.config(dataDirectory: data)
        config.backups = BackupSettings(directory: folder, interval: 3600, keep: 5)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command, clock: time.clock)
        do {
            // The services the feature hands the server (each its own lease holder, as two instances are).
            let services = { core.features.backups.backgroundServices().compactMap { $0 as? BackupSchedulerService } }
            let a = try #require(services().first), b = try #require(services().first)
            let runs = BackupRunStore(database: core.database)

            // None yet: the first pass writes one, started and finished at the clock's time.
            let first = try #require(await a.pass())
            #expect(first.verified && first.startedAt == start && first.finishedAt == start)
            #expect(BackupSettings.archives(in: folder) == [BackupSettings.fileName(at: start)])

            // Before the next is due (59 minutes on), neither instance writes one.
            time.advance(59 * 60)
            #expect(await a.pass() == nil)
            #expect(await b.pass() == nil)
            #expect(try await runs.recent().count == 1)

            // Past it, both instances check at once: exactly one writes, recorded once, named by the clock's time.
            time.advance(60 + 1)
            let due = start.addingTimeInterval(3601)
            async let fromA = a.pass()
            async let fromB = b.pass()
            let written = [await fromA, await fromB].compactMap { $0 }
            #expect(written.count == 1)
            #expect(written.first?.startedAt == due && written.first?.verified == true)
            // A second check at the same moment does not write it again, and the lease was let go.
            #expect(await b.pass() == nil)
            #expect(await a.pass() == nil)
            let recent = try await runs.recent()
            #expect(recent.map(\.startedAt) == [due, start])
            #expect(BackupSettings.archives(in: folder) == [BackupSettings.fileName(at: due), BackupSettings.fileName(at: start)])
            #expect(try await JobLeases(database: core.database, holder: "observer", clock: time.clock).isHeld(BackupRunStore.leaseName) == false)

            // The age of the last good backup in /metrics is told by the same clock.
            time.advance(600)
            #expect(await a.pass() == nil)
            let metrics = core.metrics.emitToString()
            let age = metrics.split(separator: "\n").first { $0.hasPrefix("hibi_backup_last_success_age_seconds ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
            #expect(age == 600, "\(metrics)")
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }
}
