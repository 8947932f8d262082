import Foundation
import Hummingbird

/// The journal: a page per day across every feature, the calendar, timeline, reviews and insights over days, and one
/// search over all of them. It reads the other features only through what they offer it (Shared/Offers).
public struct JournalFeature: Feature {
    public let service: JournalService
    let lock: any DiaryOpenCheck
    /// The review's share card, drawn as Health's cards are.
    let shareCards: any ShareCardDrawing
    /// `/` is today's page: it sends a new server to setup, and shows the accounts' getting-started checklist.
    let setupState: any SetupCheck
    let gettingStarted: GettingStartedChecklist

    init(platform: Platform, setupState: any SetupCheck, diaryLock: any DiaryOpenCheck, searches: [any SearchOffer],
         gettingStarted: [any GettingStartedOffer], dayPages: [any DayPageOffer], overviews: [any OverviewOffer], shareCards: any ShareCardDrawing) {
        service = JournalService(ratings: DayRatingStore(database: platform.database), searches: searches, dayPages: dayPages, overviews: overviews)
        self.shareCards = shareCards
        lock = diaryLock
        self.setupState = setupState
        self.gettingStarted = GettingStartedChecklist(offers: gettingStarted)
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            let day = JournalRoutes(journal: service, lock: lock)
            let signedInWeb = web.signedIn(), signedInAPI = api.signedIn()
            day.register(web: signedInWeb, api: signedInAPI)
            JournalOverviewRoutes(journal: service, day: day, setupState: setupState, gettingStarted: gettingStarted, shareCards: shareCards)
                .register(home: web, web: signedInWeb, api: signedInAPI)
        }
    }
}

extension JournalFeature {
    /// Each day's rating.
    public static var migrations: [Migration] { [JournalSchema.dayRatings] }

    public static var sitePages: [(page: SitePage, path: String)] { [(.search, JournalPaths.search)] }

    public static var navigation: NavEntry? { NavEntry(order: 10, item: NavItem(path: JournalPaths.today, title: CommonStrings.today, icon: "☀")) }
}
