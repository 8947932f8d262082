import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import HibiApp

/// The one assembly: features built once, commands without the server's extras, time from one clock.
struct AssemblyTests {
    /// A clock a test moves by hand.
    final class ManualTime: Sendable {
        let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var clock: WallClock { WallClock { [self] in current.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    @Test func theDiaryLocksWhenTheInjectedClockPassesItsIdleTime() async throws {
        let time = ManualTime()
        try await TestApp.run(clock: time.clock) { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            #expect(try await browser.get("/diary").status == .ok)
            time.advance(9 * 60)
            #expect(try await browser.get("/diary").status == .ok, "still open within the 10 minutes")
            time.advance(11 * 60)
            let locked = try await browser.get("/diary")
            #expect(locked.status == .found)
            #expect(locked.headers[.location]?.hasPrefix("/diary/unlock") == true)
        }
    }

    @Test func anEntryWithoutADateIsDatedByTheInjectedClock() async throws {
        let time = ManualTime()
        try await TestApp.run(clock: time.clock) { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let created = try await api.call(.post, "/api/v1/diary/entries", json: #"{"text":"no date given"}"#)
            #expect(created.status == .created)
            #expect(created.body.contains("2027-01-15T08:00:00Z"), "1,800,000,000 s is 2027-01-15 08:00 UTC: \(created.body)")
        }
    }

    @Test func aCommandCoreBuildsTheFeaturesButNotTheAPIDocument() async throws {
        let config = try await TestApp.config()
        let command = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        #expect(command.openAPIDocument == nil)
        #expect(command.features.all.count == 7)
        await command.database.shutdown()
        let server = try await AppCore.open(config, logger: TestApp.quietLogger)
        #expect(server.openAPIDocument != nil)
        await server.database.shutdown()
    }
}
