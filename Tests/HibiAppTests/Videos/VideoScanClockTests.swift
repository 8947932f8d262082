import Foundation
import Testing
@testable import HibiApp

/// Issue 30, item 4: background work reads the platform's clock, not `Date()`, so a test can drive it. The
/// shared-folder scan, run as the server runs it, dates what it finds by that clock.
@Suite struct VideoScanClockTests {
    @Test func theScheduledScanDatesNewVideosByThePlatformsClock() async throws {
        let then = Date(timeIntervalSince1970: 1_700_000_000) // 2023-11-14, far from the machine's clock
        var config = try await TestApp.config()
        let library = try LibraryFolder()
        config.videos.libraryDirectory = library.path
        try FileManager.default.copyItem(atPath: VideoFixtures.other, toPath: (library.path as NSString).appendingPathComponent("Evening.mp4"))
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command, clock: WallClock { then })
        do {
            // interval 0: one pass, as at start-up, then the service returns.
            try await VideoLibraryScanService(videos: core.features.videos.service, interval: 0, clock: core.clock).run()
            let found = try await core.features.videos.service.store.libraryVideos()
            #expect(found.count == 1)
            #expect(found.map(\.createdAt) == [then])
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }
}
