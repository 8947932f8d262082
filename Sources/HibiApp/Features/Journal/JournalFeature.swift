import Foundation
import Hummingbird

/// The journal: a page per day across every feature, and one search over all of them. It reads the
/// other features through their services only.
public struct JournalFeature: Feature {
    public let service: JournalService
    let lock: any DiaryOpenCheck
    /// `/` is today's page: it sends a new server to setup, and shows the accounts' getting-started checklist.
    let setupState: any SetupCheck
    let gettingStarted: GettingStartedChecklist

    init(platform: Platform, diary: DiaryFeature, health: HealthFeature, visits: VisitsFeature, videos: VideosFeature, setupState: any SetupCheck,
         diaryLock: any DiaryOpenCheck, searches: [any SearchOffer], gettingStarted: [any GettingStartedOffer], dayPages: [any DayPageOffer]) {
        service = JournalService(diary: diary.service, health: health.service, visits: visits.service, videos: videos.service,
                                 ratings: DayRatingStore(database: platform.database), searches: searches, dayPages: dayPages)
        lock = diaryLock
        self.setupState = setupState
        self.gettingStarted = GettingStartedChecklist(offers: gettingStarted)
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            let day = JournalRoutes(journal: service, lock: lock)
            let signedInWeb = web.signedIn(), signedInAPI = api.signedIn()
            day.register(web: signedInWeb, api: signedInAPI)
            JournalOverviewRoutes(journal: service, day: day, setupState: setupState, gettingStarted: gettingStarted)
                .register(home: web, web: signedInWeb, api: signedInAPI)
        }
    }
}

extension JournalFeature {
    public static var sitePages: [(page: SitePage, path: String)] { [(.search, JournalPaths.search)] }

    public static var navigation: NavEntry? { NavEntry(order: 10, item: NavItem(path: JournalPaths.today, title: CommonStrings.today, icon: "☀")) }
}
