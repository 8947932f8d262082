import Foundation
import Hummingbird
import Logging
import SQLKit
import ServiceLifecycle

/// The video library: uploads and a shared folder, streaming with ranges, favourites, playlists, resume.
public struct VideosFeature: Feature {
    public let service: VideoService
    let platform: Platform

    init(platform: Platform) {
        self.platform = platform
        var service = VideoService(database: platform.database, dataDirectory: platform.config.mediaDirectory, settings: platform.config.videos,
                                   logger: platform.logger)
        service.leases = JobLeases(database: platform.database, holder: platform.instanceID, clock: platform.clock)
        self.service = service
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            VideoWebRoutes(videos: service).register(on: web.signedIn())
            VideoAPIRoutes(videos: service, bodyLimit: platform.config.maxRequestBodyBytes, quota: platform.quota).register(on: api.signedIn())
        }
    }

    /// The shared-folder scanner.
    public func backgroundServices() -> [any Service] {
        [VideoLibraryScanService(videos: service, interval: platform.config.videos.scanInterval, clock: platform.clock)]
    }

    /// Uploaded videos and their captions (videos/uploads/<user>/<id>.<ext>) and thumbnails (videos/thumbs/<id>.jpg),
    /// owned by the video's row.
    public var mediaFolders: [MediaFolder] {
        let owned: @Sendable ([MediaFile], any SQLDatabase) async throws -> [String] = { files, sql in
            var orphans: [String] = []
            for file in files {
                let videoID = (file.name as NSString).deletingPathExtension
                if try await !MediaFolder.exists("SELECT id FROM videos WHERE id = ", videoID, on: sql) { orphans.append(file.path) }
            }
            return orphans
        }
        return [MediaFolder("videos/uploads", depth: 2, orphans: owned), MediaFolder("videos/thumbs", depth: 1, orphans: owned)]
    }

    public static func storageUsage(database: Database, config: AppConfig, box: SealedBoxService) -> [StorageQuota.Usage] {
        let videos = VideoStore(database: database)
        return [{ try await videos.uploadedBytes(userID: $0) }]
    }

    /// The library, each person's data on a video, playlists.
    public static var migrations: [Migration] { [VideosSchema.migration] }
    /// `HIBI_VIDEO_*`: the upload limit, the shared library folder and its scan, ffprobe and ffmpeg.
    public static var settings: [any FeatureSettings.Type] { [VideoSettings.self] }
    public static var navigation: NavEntry? { NavEntry(order: 50, item: NavItem(path: VideoPaths.library, title: CommonStrings.videos, icon: "▶")) }

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
