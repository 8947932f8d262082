import Hummingbird
import ServiceLifecycle

/// Wires the video library into the application: one call from `buildApplication(core:)`.
enum VideoFeature {
    /// Registers pages and API routes and returns the background services (the shared-folder scanner).
    static func register(core: AppCore, router: Router<HibiRequestContext>, api: RouterGroup<HibiRequestContext>) -> [any Service] {
        var videos = VideoService(database: core.database, dataDirectory: core.config.mediaDirectory, settings: core.config.videos,
                                  logger: core.logger)
        videos.leases = JobLeases(database: core.database, holder: core.instanceID)
        do {
            let swept = try videos.files.prepare()
            if swept > 0 { core.logger.notice("removed unfinished video uploads", metadata: ["files": "\(swept)"]) }
        } catch {
            core.logger.error("video folders could not be created", metadata: ["error": "\(error)"])
        }
        VideoWebRoutes(videos: videos).register(on: router)
        VideoAPIRoutes(videos: videos, bodyLimit: core.config.maxRequestBodyBytes, quota: core.quota).register(on: api)
        return [VideoLibraryScanService(videos: videos, interval: core.config.videos.scanInterval),
                MediaOrphanSweepService(sweeper: MediaOrphanSweeper(database: core.database, mediaDirectory: core.config.mediaDirectory,
                                                                    leases: videos.leases ?? JobLeases(database: core.database, holder: core.instanceID),
                                                                    logger: core.logger))]
    }
}
