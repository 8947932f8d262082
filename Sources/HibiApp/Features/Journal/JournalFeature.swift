import Foundation
import Hummingbird

/// The journal: a page per day across every feature, and one search over all of them. It reads the
/// other features through their services only.
public struct JournalFeature: Feature {
    public let service: JournalService
    let lock: DiaryLock
    let health: HealthService

    init(platform: Platform, diary: DiaryFeature, health: HealthFeature, visits: VisitsFeature, videos: VideosFeature) {
        service = JournalService(diary: diary.service, health: health.service, visits: visits.service, videos: videos.service,
                                 ratings: DayRatingStore(database: platform.database))
        lock = diary.lock
        self.health = health.service
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in JournalRoutes(journal: service, lock: lock, health: health).register(web: web, api: api) }
    }
}
