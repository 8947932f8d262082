import Foundation
import Hummingbird

/// `/` (today's page, with the getting-started checklist while steps remain), the timeline, insights and reviews
/// (pages and `JournalAPIPaths` answers). Each handler is a named method; `register` lists them all.
struct JournalOverviewRoutes: Sendable {
    let journal: JournalService
    let day: JournalRoutes
    let setupState: any SetupCheck
    let gettingStarted: GettingStartedChecklist
    /// The review's card, drawn (and made a PNG by rsvg-convert) as Health's share cards are.
    let shareCards: any ShareCardDrawing

    /// `/` answers everyone (setup, sign-in or today's page); the rest is in signed-in groups.
    func register(home: some RouterMethods<HibiRequestContext>, web: some RouterMethods<SignedInContext>, api: some RouterMethods<SignedInContext>) {
        home.get(RouterPath(JournalPaths.today), use: homePage)
        web.get(RouterPath(JournalPaths.timeline), use: timelinePage)
        web.get(RouterPath(JournalPaths.insights), use: insightsPage)
        web.get(RouterPath(JournalPaths.review(ReviewPeriod.Kind.week.rawValue, ":period")), use: weekPage)
        web.get(RouterPath(JournalPaths.review(ReviewPeriod.Kind.month.rawValue, ":period")), use: monthPage)
        web.get(RouterPath(JournalPaths.reviewCard(ReviewPeriod.Kind.week.rawValue, ":period")), use: weekCard)
        web.get(RouterPath(JournalPaths.reviewCard(ReviewPeriod.Kind.month.rawValue, ":period")), use: monthCard)
        api.get(RouterPath(JournalAPIPaths.timeline), use: timelineAnswer)
        api.get(RouterPath(JournalAPIPaths.insights), use: insightsAnswer)
        api.get(RouterPath(JournalAPIPaths.review(ReviewPeriod.Kind.week.rawValue, ":period")), use: weekAnswer)
        api.get(RouterPath(JournalAPIPaths.review(ReviewPeriod.Kind.month.rawValue, ":period")), use: monthAnswer)
    }

    @Sendable func homePage(_ request: Request, context: HibiRequestContext) async throws -> Response {
        if try await setupState.needsSetup() { return Response.redirect(to: SitePage.setup.path, type: .found) }
        guard let user = context.user else { return Response.redirect(to: SitePage.signIn.path, type: .found) }
        let key = day.today(user, context)
        let checklist = try await gettingStarted.checklist(userID: user.id)
        return try await day.page(user: user, key: key, context: context, home: JournalViews.Home(checklist: checklist))
            .response(from: request, context: context)
    }

    @Sendable func timelinePage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let open = try await day.diaryReadable(context.base)
        let query = request.uri.formQuery
        // A hand-edited link shows the nearest sensible page rather than an error.
        let filter = TimelineFilter(domain: query.get("domain").flatMap(JournalDomain.init(rawValue:)),
                                    tag: Self.text(query.get("tag")), label: Self.text(query.get("label")),
                                    rating: query.get("mood").flatMap(Int.init).flatMap(DayRating.init(rawValue:)))
        // Nothing is recorded after today: a later cursor starts at tomorrow rather than widening a window over empty years.
        let before = min(query.get("before").flatMap(DayKey.init) ?? Self.tomorrow(user, context.base, day: day), Self.tomorrow(user, context.base, day: day))
        let limit = QueryNumber.clamped(query.get("limit"), range: 1...60, default: 20)
        let page = try await journal.timeline(user: user, before: before, limit: limit, filter: filter, diaryOpen: open)
        return HTMLPage(JournalViews.timeline(context: context.base, page: page, filter: filter, diaryOpen: open))
    }

    @Sendable func timelineAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<TimelineResponse> {
        let user = context.user
        let open = try await day.diaryReadable(context.base)
        let query = request.uri.formQuery
        var filter = TimelineFilter(tag: Self.text(query.get("tag")), label: Self.text(query.get("label")))
        if let raw = query.get("domain"), !raw.isEmpty {
            guard let domain = JournalDomain(rawValue: raw) else {
                throw RequestError.invalidParameter("domain", Text(en: "one of diary, health, visits, videos", ja: "diary・health・visits・videos のいずれか"))
            }
            filter.domain = domain
        }
        if let mood = try QueryNumber.strict(query.get("mood"), name: "mood", range: 1...5) { filter.rating = DayRating(rawValue: mood) }
        if let tag = query.get("tag"), tag.count > 100 { throw RequestError.invalidParameter("tag", Text(en: "at most 100 characters", ja: "100文字以内")) }
        if let label = query.get("label"), label.count > 100 { throw RequestError.invalidParameter("label", Text(en: "at most 100 characters", ja: "100文字以内")) }
        var before = Self.tomorrow(user, context.base, day: day)
        if let raw = query.get("before"), !raw.isEmpty {
            guard let key = DayKey(raw) else {
                throw RequestError.invalidParameter("before", DayKey.invalidReason)
            }
            before = key
        }
        before = min(before, Self.tomorrow(user, context.base, day: day))
        let limit = try QueryNumber.strict(query.get("limit"), name: "limit", range: 1...100) ?? 20
        let page = try await journal.timeline(user: user, before: before, limit: limit, filter: filter, diaryOpen: open)
        return JSONBody(TimelineResponse(page, diaryOpen: open))
    }

    @Sendable func weekPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage { try await reviewPage(.week, context) }
    @Sendable func monthPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage { try await reviewPage(.month, context) }
    @Sendable func weekCard(_ request: Request, context: SignedInContext) async throws -> Response { try await reviewCard(.week, request, context) }
    @Sendable func monthCard(_ request: Request, context: SignedInContext) async throws -> Response { try await reviewCard(.month, request, context) }
    @Sendable func weekAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<ReviewResponse> { try await reviewAnswer(.week, context) }
    @Sendable func monthAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<ReviewResponse> { try await reviewAnswer(.month, context) }

    func reviewPage(_ kind: ReviewPeriod.Kind, _ context: SignedInContext) async throws -> HTMLPage {
        let open = try await day.diaryReadable(context.base)
        let review = try await journal.review(user: context.user, period: try Self.period(kind, context.base), diaryOpen: open)
        return HTMLPage(JournalViews.review(context: context.base, review: review, diaryOpen: open))
    }

    func reviewCard(_ kind: ReviewPeriod.Kind, _ request: Request, _ context: SignedInContext) async throws -> Response {
        let user = context.user
        let period = try Self.period(kind, context.base)
        let options = Set(["name", "mood", "places", "badge"].filter { request.uri.formQuery.get($0) == "1" })
        // The average rating may come from the moods: only with the diary open.
        let open = options.contains("mood") ? try await day.diaryReadable(context.base) : false
        let review = try await journal.review(user: user, period: period, diaryOpen: open)
        let svg = shareCards.shareCardSVG(JournalViews.reviewCard(review: review, options: options, name: user.displayName, language: context.language),
                                          language: context.language)
        // The drawing itself on request (format=svg): what the browser test measures, box by box.
        if request.uri.formQuery.get("format") == "svg" {
            return FileResponse.attachment(Data(svg.utf8), contentType: "image/svg+xml", filename: "hibi-\(kind.rawValue)-\(period.slug).svg")
        }
        let png = try await shareCards.shareCardPNG(svg: svg)
        return FileResponse.attachment(png, contentType: "image/png", filename: "hibi-\(kind.rawValue)-\(period.slug).png")
    }

    func reviewAnswer(_ kind: ReviewPeriod.Kind, _ context: SignedInContext) async throws -> JSONBody<ReviewResponse> {
        let open = try await day.diaryReadable(context.base)
        return JSONBody(ReviewResponse(try await journal.review(user: context.user, period: try Self.period(kind, context.base), diaryOpen: open),
                                       diaryOpen: open))
    }

    static func period(_ kind: ReviewPeriod.Kind, _ context: HibiRequestContext) throws -> ReviewPeriod {
        guard let period = ReviewPeriod(kind: kind, slug: try context.parameters.require("period")) else {
            throw RequestError.invalidParameter("period", kind == .week
                ? Text(en: "an ISO week as YYYY-Www, such as 2026-W47", ja: "2026-W47 のような YYYY-Www 形式の ISO 週")
                : Text(en: "a month as YYYY-MM, such as 2026-11", ja: "2026-11 のような YYYY-MM 形式の月"))
        }
        return period
    }

    @Sendable func insightsPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let open = try await day.diaryReadable(context.base)
        return HTMLPage(JournalViews.insights(context: context.base, insights: try await journal.insights(user: context.user, diaryOpen: open, now: context.now),
                                              diaryOpen: open))
    }

    @Sendable func insightsAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<InsightsResponse> {
        let open = try await day.diaryReadable(context.base)
        return JSONBody(InsightsResponse(try await journal.insights(user: context.user, diaryOpen: open, now: context.now), moodsUsed: open,
                                         language: context.language))
    }

    static func text(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let trimmed = String(raw.trimmingCharacters(in: .whitespaces).prefix(100))
        return trimmed.isEmpty ? nil : trimmed
    }

    static func tomorrow(_ user: User, _ context: HibiRequestContext, day: JournalRoutes) -> DayKey {
        day.today(user, context).adding(days: 1, in: TimeZone(identifier: user.timeZone) ?? .gmt)
    }
}

struct DaySummaryResponse: Codable, Sendable {
    let date: String
    /// The ISO week and the month the day falls in, as the review paths take them (`2026-W47`, `2026-11`).
    let week: String
    let month: String
    /// Absent when the diary is locked for this caller.
    let diaryEntries: Int?
    let moods: [String]?
    let rating: Int?
    let ratingSource: JournalService.Rating.Source?
    let healthRecords: Int
    let steps: Double?
    let sleepHours: Double?
    let workouts: Int
    let workoutMinutes: Double
    let visits: Int
    let places: [String]
    let labels: [String]
    let videosWatched: Int
    let videoHours: Double

    init(_ day: DaySummary, diaryOpen: Bool) {
        date = day.key.description
        week = ReviewPeriod.week(containing: day.key).slug
        month = ReviewPeriod.month(containing: day.key).slug
        diaryEntries = diaryOpen ? day.diaryEntries : nil
        moods = diaryOpen ? day.moods.map(\.rawValue) : nil
        rating = day.rating?.rawValue
        ratingSource = day.rating == nil ? nil : (day.ratingChosen ? .chosen : .moods)
        healthRecords = day.healthRecords
        steps = day.steps
        sleepHours = day.sleepHours
        workouts = day.workouts
        workoutMinutes = day.workoutMinutes
        visits = day.visits
        places = day.places
        labels = day.labels
        videosWatched = day.videos
        videoHours = day.videoHours
    }
}

struct TimelineResponse: Codable, Sendable {
    let days: [DaySummaryResponse]
    /// Pass as `before` for the next page; absent on the last page.
    let next: String?

    init(_ page: TimelinePaging.Page, diaryOpen: Bool) {
        days = page.days.map { DaySummaryResponse($0, diaryOpen: diaryOpen) }
        next = page.next?.description
    }
}
