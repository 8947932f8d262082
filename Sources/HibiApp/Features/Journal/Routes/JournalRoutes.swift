import Foundation
import Hummingbird

/// `/day/:date` and `GET /api/v1/days/:date`; `/search?q=` and `GET /api/v1/search?q=`.
struct JournalRoutes: Sendable {
    let journal: JournalService
    let lock: any DiaryOpenCheck

    func register(web: some RouterMethods<SignedInContext>, api: some RouterMethods<SignedInContext>) {
        web.get(RouterPath(JournalPaths.dayPicker), use: pickDay)
        web.get(RouterPath(JournalPaths.day(":date")), use: dayPage)
        web.post(RouterPath(JournalPaths.rating(":date")), use: rateFromForm)
        web.get(RouterPath(JournalPaths.search), use: searchPage)
        api.get(RouterPath(JournalAPIPaths.day(":date")), use: dayAnswer)
        api.put(RouterPath(JournalAPIPaths.rating(":date")), use: putRating)
        api.delete(RouterPath(JournalAPIPaths.rating(":date")), use: deleteRating)
        api.get(RouterPath(JournalAPIPaths.search), use: searchAnswer)
    }

    /// The date picker's form: an unreadable date shows today rather than an error page.
    @Sendable func pickDay(_ request: Request, context: SignedInContext) async throws -> Response {
        let key = request.uri.formQuery.get("date").flatMap(DayKey.init) ?? today(context.user, context.base)
        return Response.redirect(to: JournalPaths.day(key), type: .found)
    }

    @Sendable func dayPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        try await page(user: context.user, key: try dayKey(context.base), context: context.base)
    }

    @Sendable func dayAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<JSONFields> {
        let day = try await journal.day(user: context.user, key: try dayKey(context.base), diaryOpen: try await diaryReadable(context.base),
                                        language: context.language)
        return JSONBody(Self.dayResponse(day))
    }

    @Sendable func rateFromForm(_ request: Request, context: SignedInContext) async throws -> Response {
        let key = try dayKey(context.base)
        var request = request
        let form = try await request.form()
        try await journal.rate(user: context.user, key: key, rating: try Self.rating(form["rating"]), now: context.now)
        return Response.redirect(to: JournalPaths.day(key) + "#day-rating", type: .found)
    }

    @Sendable func putRating(_ request: Request, context: SignedInContext) async throws -> JSONBody<RatingResponse> {
        let key = try dayKey(context.base)
        var request = request
        let body = try await request.json(RatingRequest.self, limit: 1024)
        guard let rating = DayRating(rawValue: body.rating) else {
            throw RequestError.invalidField("rating", Text(en: "a whole number from 1 (awful) to 5 (great)", ja: "1(最悪)〜5(最高)の整数"))
        }
        try await journal.rate(user: context.user, key: key, rating: rating, now: context.now)
        return JSONBody(RatingResponse(rating: rating.rawValue, source: .chosen))
    }

    @Sendable func deleteRating(_ request: Request, context: SignedInContext) async throws -> Response {
        try await journal.rate(user: context.user, key: try dayKey(context.base), rating: nil, now: context.now)
        return Response(status: .noContent)
    }

    @Sendable func searchPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let query = request.uri.formQuery.get("q") ?? ""
        let open = try await diaryReadable(context.base)
        return HTMLPage(JournalViews.search(context: context.base, query: query,
                                            hits: try await journal.search(user: context.user, query: query, diaryOpen: open, language: context.language),
                                            diaryOpen: open))
    }

    @Sendable func searchAnswer(_ request: Request, context: SignedInContext) async throws -> JSONBody<SearchResponse> {
        guard let query = request.uri.formQuery.get("q"), !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RequestError.missingField("q")
        }
        guard query.count <= 200 else { throw RequestError.invalidParameter("q", Text(en: "at most 200 characters", ja: "200文字以内")) }
        let open = try await diaryReadable(context.base)
        return JSONBody(SearchResponse(query: query, diarySearched: open,
                                       results: try await journal.search(user: context.user, query: query, diaryOpen: open, language: context.language)))
    }

    /// A day's page with its month calendar; `/` is today's, with the greeting and checklist above.
    func page(user: User, key: DayKey, context: HibiRequestContext, home: JournalViews.Home? = nil) async throws -> HTMLPage {
        let open = try await diaryReadable(context)
        // The day and its month are read side by side.
        async let day = journal.day(user: user, key: key, diaryOpen: open, language: context.language)
        async let month = journal.month(user: user, containing: key, diaryOpen: open)
        return HTMLPage(JournalViews.day(context: context, user: user, day: try await day,
                                         month: try await month, today: today(user, context), home: home))
    }

    /// The form's choice: 1-5, or empty to go back to the default from the moods.
    static func rating(_ raw: String?) throws -> DayRating? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let value = Int(raw), let rating = DayRating(rawValue: value) else {
            throw RequestError.invalidField("rating", Text(en: "a whole number from 1 (awful) to 5 (great)", ja: "1(最悪)〜5(最高)の整数"))
        }
        return rating
    }

    func dayKey(_ context: HibiRequestContext) throws -> DayKey {
        let raw = try context.parameters.require("date")
        guard let key = DayKey(raw) else {
            throw RequestError.invalidParameter("date", DayKey.invalidReason)
        }
        return key
    }

    func today(_ user: User, _ context: HibiRequestContext) -> DayKey {
        DayKey(context.now, timeZone: TimeZone(identifier: user.timeZone) ?? .gmt)
    }

    /// The day's API answer: its date and neighbours, the rating, "on this day", and every feature's keys (the diary's
    /// `diary` is absent when the diary is locked for this caller).
    static func dayResponse(_ day: JournalService.Day) -> JSONFields {
        var fields: [String: any Encodable & Sendable] = [
            "date": day.key.description, "previous": day.previous.description, "next": day.next.description,
            "onThisDay": day.onThisDay.map { memory in
                JSONFields(memory.fields.merging(["date": memory.key.description, "yearsAgo": memory.yearsAgo]) { _, journal in journal })
            },
        ]
        if let rating = day.rating { fields["rating"] = RatingResponse(rating: rating.value.rawValue, source: rating.source) }
        for part in day.parts { fields.merge(part.fields) { first, _ in first } }
        return JSONFields(fields)
    }

    /// Diary text only for a session whose diary is open, or a token with the diary scope.
    func diaryReadable(_ context: HibiRequestContext) async throws -> Bool {
        if case let .apiToken(_, scopes) = context.identity?.credential { return scopes.contains(.diary) }
        return try await lock.isUnlocked(context, now: context.now)
    }
}

struct RatingRequest: Codable, Sendable {
    let rating: Int
}

struct RatingResponse: Codable, Sendable {
    let rating: Int
    let source: JournalService.Rating.Source
}

struct SearchResponse: Codable, Sendable {
    let query: String
    /// False when diary text was not searched (the diary is locked, or the token lacks the diary scope).
    let diarySearched: Bool
    let results: [SearchHit]
}
