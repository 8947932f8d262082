import Foundation
import Synchronization
import Testing
@testable import HibiApp

/// Issue 30, item 4: background work reads the platform's clock, not `Date()`, so a test drives it without
/// waiting. The shared-folder scan, one pass as the server's service makes it, dates what it finds by that clock.
@Suite struct VideoScanClockTests {
    @Test func theScheduledScanDatesNewVideosByThePlatformsClock() async throws {
        let time = AssemblyTests.ManualTime()
        let start = time.current.withLock { $0 }
        var config = try await TestApp.config()
        let library = try LibraryFolder()
        config.videos.libraryDirectory = library.path
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command, clock: time.clock)
        do {
            // The service the feature hands the server, with the platform's clock in it.
            let scan = try #require(core.features.videos.backgroundServices().compactMap { $0 as? VideoLibraryScanService }.first)
            let first = try #require(await scan.pass())
            #expect(first.added >= 1)
            let store = core.features.videos.service.store
            #expect(try await store.libraryVideos().map(\.createdAt) == Array(repeating: start, count: first.added))

            // An hour later by the clock a new file is found and dated then; what was there is not added again.
            time.advance(3600)
            try FileManager.default.copyItem(atPath: VideoFixtures.other, toPath: (library.path as NSString).appendingPathComponent("Evening.mp4"))
            let second = try #require(await scan.pass())
            #expect(second.added == 1 && second.unchanged == first.added && second.removed == 0)
            let found = try await store.libraryVideos()
            #expect(found.first { $0.filePath == "Evening.mp4" }?.createdAt == start.addingTimeInterval(3600))
            #expect(found.filter { $0.createdAt == start }.count == first.added)
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }
}
