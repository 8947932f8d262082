import Hummingbird
import Logging
import ServiceLifecycle

/// The video library: uploads and a shared folder, streaming with ranges, favourites, playlists, resume.
public struct VideosFeature: Feature {
    public let service: VideoService
    let platform: Platform

    init(platform: Platform) {
        self.platform = platform
        var service = VideoService(database: platform.database, dataDirectory: platform.config.mediaDirectory, settings: platform.config.videos,
                                   logger: platform.logger)
        service.leases = JobLeases(database: platform.database, holder: platform.instanceID)
        self.service = service
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            VideoWebRoutes(videos: service).register(on: web.signedIn())
            VideoAPIRoutes(videos: service, bodyLimit: platform.config.maxRequestBodyBytes, quota: platform.quota).register(on: api.signedIn())
        }
    }

    /// The shared-folder scanner, and the hourly sweep of media files no row owns (claimed by one instance).
    public func backgroundServices() -> [any Service] {
        [VideoLibraryScanService(videos: service, interval: platform.config.videos.scanInterval),
         MediaOrphanSweepService(sweeper: MediaOrphanSweeper(database: platform.database, mediaDirectory: platform.config.mediaDirectory,
                                                             leases: service.leases ?? JobLeases(database: platform.database, holder: platform.instanceID),
                                                             logger: platform.logger))]
    }

    /// Creates the video folders and removes uploads a previous run left unfinished.
    public func prepareToServe(logger: Logger) async {
        do {
            let swept = try service.files.prepare()
            if swept > 0 { logger.notice("removed unfinished video uploads", metadata: ["files": "\(swept)"]) }
        } catch {
            logger.error("video folders could not be created", metadata: ["error": "\(error)"])
        }
    }
}
