import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

struct JournalOverviewLogicTests {
    func key(_ text: String) throws -> DayKey { try #require(DayKey(text)) }

    @Test func healthIsBucketedByLocalDayWhereTheZoneAllowsItElseByHourOrQuarterHour() throws {
        let from = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let to = from.addingTimeInterval(365 * 86400)
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(LocalDays.bucketing(tokyo, from: from, to: to) == (86400, 9 * 3600))
        let kathmandu = try #require(TimeZone(identifier: "Asia/Kathmandu"))
        #expect(LocalDays.bucketing(kathmandu, from: from, to: to) == (86400, 5 * 3600 + 45 * 60), "a fixed offset, even 5:45, is a day")
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(LocalDays.bucketing(newYork, from: from, to: to).bucket == 3600)
        // A winter month in New York has no change: whole days again.
        #expect(LocalDays.bucketing(newYork, from: from, to: from.addingTimeInterval(31 * 86400)) == (86400, -5 * 3600))
        let adelaide = try #require(TimeZone(identifier: "Australia/Adelaide"))
        #expect(LocalDays.bucketing(adelaide, from: from, to: to).bucket == 900, "+9:30 and +10:30 need quarter hours")
    }

    @Test func aVisitAtHalfPastElevenInTokyoBelongsToThatTokyoDay() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        // 2026-11-23 23:30 in Tokyo is 14:30 UTC the same day; 00:30 on the 24th is 15:30 UTC on the 23rd.
        let late = VisitMark(id: "a", at: Date(timeIntervalSince1970: 1_795_444_200), name: "Izakaya", latitude: 35.68, longitude: 139.76)
        let after = VisitMark(id: "b", at: Date(timeIntervalSince1970: 1_795_447_800), name: "Ramen", latitude: 35.69, longitude: 139.70)
        let span = DaySpan(timeZone: tokyo, first: try key("2026-11-22"), last: try key("2026-11-25"))
        let days = DaySummaries.combine([VisitMark.figures([late, after], newPlaces: [], span: span)], chosen: [:], span: span)
        #expect(days[try key("2026-11-23")]?.places == ["Izakaya"])
        #expect(days[try key("2026-11-24")]?.places == ["Ramen"])
    }

    @Test func summariesCountEachDomainAndTakeTheRatingFromTheMoodsUnlessChosen() throws {
        let utc = TimeZone.gmt
        let day = try key("2026-05-01")
        let noon = day.interval(in: utc).start.addingTimeInterval(12 * 3600)
        let start = Int64(day.interval(in: utc).start.timeIntervalSince1970)
        // Each feature's figures, as its `OverviewOffer` makes them from what it read, added up by Journal.
        let span = DaySpan(timeZone: utc, first: day, last: try key("2026-05-02"))
        let days = DaySummaries.combine([
            DiaryFeature.figures([MoodPoint(date: noon, mood: .happiness), MoodPoint(date: noon, mood: nil)], span: span),
            HealthFeature.figures([.init(type: "steps", start: start, sum: 8400, count: 12), .init(type: "sleep", start: start, sum: 7.5, count: 3),
                                   .init(type: "workout", start: start, sum: 45, count: 1), .init(type: "heartRate", start: start, sum: 700, count: 10)],
                                  span: span),
            VisitMark.figures([VisitMark(id: "v", at: noon, name: "Park", latitude: 1, longitude: 2, labels: ["outdoors"])], newPlaces: ["v"], span: span),
            VideosFeature.figures([(at: noon, seconds: 5400)], span: span),
        ], chosen: [try key("2026-05-02"): .awful], span: span)
        let first = try #require(days[day])
        #expect(first.diaryEntries == 2 && first.moods == [.happiness] && first.rating == .good && !first.ratingChosen)
        #expect(first.steps == 8400 && first.sleepHours == 7.5 && first.workouts == 1 && first.workoutMinutes == 45 && first.healthRecords == 26)
        #expect(first.visits == 1 && first.newPlaces == 1 && first.labels == ["outdoors"] && first.videos == 1 && first.videoHours == 1.5)
        #expect(first.domains == [.diary, .health, .visits, .videos])
        let second = try #require(days[try key("2026-05-02")])
        #expect(second.rating == .awful && second.ratingChosen && second.domains.isEmpty)
    }

    @Test func aPlaceIsNewOnlyOnItsFirstVisit() {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let visits = [
            VisitMark(id: "2", at: base.addingTimeInterval(3600), name: "Cafe", latitude: 35.0001, longitude: 139.0001),
            VisitMark(id: "1", at: base, name: "Cafe", latitude: 35.0, longitude: 139.0),
            VisitMark(id: "3", at: base.addingTimeInterval(7200), name: "Cafe", latitude: 36.0, longitude: 139.0),
            VisitMark(id: "4", at: base.addingTimeInterval(9000), name: "Library", latitude: 35.0, longitude: 139.0),
        ]
        #expect(VisitMark.newPlaceVisits(visits) == ["1", "3", "4"], "a chain's other branch far away is another place")
    }

    /// Twelve days with gaps: the pages are the newest days before the cursor, the cursor is the last day shown.
    @Test func keysetPagesFollowTheCursorAndEndWhenTheDataDoes() throws {
        var days: [DayKey: DaySummary] = [:]
        for d in [1, 2, 3, 5, 8, 9, 10, 15, 20, 21, 27, 30] {
            var summary = DaySummary(key: try key(String(format: "2026-06-%02d", d)))
            summary.visits = 1
            summary.labels = d % 2 == 0 ? ["work"] : []
            if d % 3 == 0 { summary.healthRecords = 1 }
            summary.rating = d == 9 ? .great : nil
            days[summary.key] = summary
        }
        let all = TimelineFilter()
        let first = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-01"), limit: 5, filter: all,
                                        tagged: nil, exhausted: true)
        #expect(first.complete && first.page.days.map(\.key.day) == [30, 27, 21, 20, 15] && first.page.next?.description == "2026-06-15")
        let second = TimelinePaging.page(days, before: try key("2026-06-15"), windowStart: try key("2026-06-01"), limit: 5, filter: all,
                                         tagged: nil, exhausted: true)
        #expect(second.page.days.map(\.key.day) == [10, 9, 8, 5, 3] && second.page.next?.description == "2026-06-03")
        let last = TimelinePaging.page(days, before: try key("2026-06-03"), windowStart: try key("2026-06-01"), limit: 5, filter: all,
                                       tagged: nil, exhausted: true)
        #expect(last.page.days.map(\.key.day) == [2, 1] && last.page.next == nil, "a short page at the oldest data is the end")
        // A window that does not yet reach the oldest data asks for a wider one instead of ending early.
        let partial = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-25"), limit: 5, filter: all,
                                          tagged: nil, exhausted: false)
        #expect(!partial.complete)
        // A new day written above the cursor does not shift the next page (OFFSET paging would repeat a day).
        var grown = days
        var newest = DaySummary(key: try key("2026-06-29"))
        newest.visits = 1
        grown[newest.key] = newest
        let after = TimelinePaging.page(grown, before: try key("2026-06-15"), windowStart: try key("2026-06-01"), limit: 5, filter: all,
                                        tagged: nil, exhausted: true)
        #expect(after.page.days.map(\.key.day) == [10, 9, 8, 5, 3])
        // Filters: by domain, label, rating and tag.
        let health = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-01"), limit: 10,
                                         filter: TimelineFilter(domain: .health), tagged: nil, exhausted: true)
        #expect(health.page.days.map(\.key.day) == [30, 27, 21, 15, 9, 3])
        let work = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-01"), limit: 3,
                                       filter: TimelineFilter(label: "WORK"), tagged: nil, exhausted: true)
        #expect(work.page.days.map(\.key.day) == [30, 20, 10])
        let great = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-01"), limit: 3,
                                        filter: TimelineFilter(rating: .great), tagged: nil, exhausted: true)
        #expect(great.page.days.map(\.key.day) == [9] && great.page.next == nil)
        let tagged = TimelinePaging.page(days, before: try key("2026-07-01"), windowStart: try key("2026-06-01"), limit: 3,
                                         filter: TimelineFilter(tag: "walk"), tagged: [try key("2026-06-05")], exhausted: true)
        #expect(tagged.page.days.map(\.key.day) == [5])
    }

    @Test func reviewPeriodsAreISOWeeksAndCalendarMonths() throws {
        let week = try #require(ReviewPeriod(kind: .week, slug: "2026-W47"))
        #expect(week.first.description == "2026-11-16" && week.last.description == "2026-11-22")
        #expect(week.previous.slug == "2026-W46" && week.next.slug == "2026-W48")
        #expect(ReviewPeriod.week(containing: try key("2027-01-01")).slug == "2026-W53", "2026 has 53 ISO weeks")
        #expect(ReviewPeriod(kind: .week, slug: "2025-W53") == nil && ReviewPeriod(kind: .week, slug: "2026-W5") == nil)
        let month = try #require(ReviewPeriod(kind: .month, slug: "2024-02"))
        #expect(month.last.description == "2024-02-29" && month.previous.slug == "2024-01" && month.next.slug == "2024-03")
        for bad in ["2024-13", "2024-2", "24-02", "", "2024-02-01"] { #expect(ReviewPeriod(kind: .month, slug: bad) == nil, "\(bad)") }
    }

    @Test func aMonthStartsOnMonday() throws {
        let november = MonthCalendar.frame(year: 2026, month: 11)  // 1 November 2026 is a Sunday
        #expect(november.leadingBlanks == 6 && november.last.description == "2026-11-30")
        #expect(MonthCalendar.frame(year: 2026, month: 6).leadingBlanks == 0, "1 June 2026 is a Monday")
    }
}

@Suite(.serialized) struct JournalOverviewAPITests {
    @Test func theTimelinePagesByCursorAndShowsNothingOfAnotherPerson() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            for (day, text) in [("2024-05-01", "Picnic"), ("2024-05-03", "Museum"), ("2024-05-07", "Rain")] {
                let made = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"\#(day)T03:00:00Z","text":"\#(text)","tags":["walk"]}"#)
                #expect(made.status == .created)
            }
            // Sleep from 23:00 to 06:30 Tokyo time belongs to the morning it ends on.
            let sleep = try await api.call(.post, "/api/v1/health/records",
                                           json: #"{"type":"sleep","value":7.5,"unit":"h","start":"2024-05-04T14:00:00Z","end":"2024-05-04T21:30:00Z"}"#)
            #expect(sleep.status == .created, "\(sleep.body)")
            // Someone else's day in between must not appear.
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(password: "kens password!"))
            #expect(try await kenAPI.call(.post, "/api/v1/diary/entries", json: #"{"date":"2024-05-02T03:00:00Z","text":"Ken's day"}"#).status == .created)

            let first = try await api.call(.get, "/api/v1/timeline?before=2024-06-01&limit=2")
            #expect(first.status == .ok, "\(first.body)")
            let page = try #require(try JSONSerialization.jsonObject(with: first.data) as? [String: Any])
            let days = try #require(page["days"] as? [[String: Any]])
            #expect(days.map { $0["date"] as? String } == ["2024-05-07", "2024-05-05"])
            #expect(days[1]["sleepHours"] as? Double == 7.5)
            #expect(page["next"] as? String == "2024-05-05")
            // Each day names its ISO week (Monday to Sunday) and month as the review paths take them, so a client
            // (and the OpenAPI links schemathesis follows) goes from a day to its review without working weeks out.
            #expect(days.map { $0["week"] as? String } == ["2024-W19", "2024-W18"])
            #expect(days.map { $0["month"] as? String } == ["2024-05", "2024-05"])
            let week = try await api.call(.get, "/api/v1/reviews/week/\(try #require(days[0]["week"] as? String))")
            #expect(week.status == .ok && week.body.contains(#""from":"2024-05-06""#) && week.body.contains(#""date":"2024-05-07""#), "\(week.body)")
            let second = try #require(try JSONSerialization.jsonObject(with: try await api.call(.get, "/api/v1/timeline?before=2024-05-05&limit=2").data)
                as? [String: Any])
            #expect((second["days"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2024-05-03", "2024-05-01"])
            let third = try await api.call(.get, "/api/v1/timeline?before=2024-05-01&limit=2")
            #expect(third.body.contains(#""days":[]"#) && !third.body.contains("next"))
            let health = try await api.call(.get, "/api/v1/timeline?before=2024-06-01&domain=health")
            #expect(health.body.contains("2024-05-05") && !health.body.contains("2024-05-07"))
            #expect(try await api.call(.get, "/api/v1/timeline?tag=walk&before=2024-05-04").body.contains("2024-05-03"))
            #expect(try await api.call(.get, "/api/v1/timeline?domain=email").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/timeline?limit=100000").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/timeline?before=2024-02-30").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/timeline?mood=6").status == .badRequest)
            #expect(!(try await api.call(.get, "/api/v1/timeline?before=2024-06-01&limit=100")).body.contains("2024-05-02"))
            // A filter that matches nothing over a long history (schemathesis's records reach back to 1970): one request
            // reads two years at most and hands back a cursor, so no request scans fifty years.
            #expect(try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":5,"unit":"count","start":"1975-01-01T03:00:00Z"}"#).status == .created)
            let far = try #require(try JSONSerialization.jsonObject(with: try await api.call(.get, "/api/v1/timeline?before=2024-06-01&label=nothing").data)
                as? [String: Any])
            #expect((far["days"] as? [Any])?.isEmpty == true)
            #expect(far["next"] as? String == DayKey("2024-06-01")?.adding(days: -730, in: .gmt).description)

            // The pages: the timeline with its load-more link, `/` as today's page with the calendar. A locked diary
            // leaves its days out of the timeline.
            let locked = try await browser.get("/timeline?before=2024-06-01")
            #expect(locked.body.contains(#"data-day="2024-05-05""#) && !locked.body.contains(#"data-day="2024-05-07""#))
            try await browser.unlockDiary()
            let web = try await browser.get("/timeline?before=2024-06-01&limit=2")
            #expect(web.status == .ok && web.body.contains(#"id="timeline-more""#) && web.body.contains("before=2024-05-05"))
            #expect(web.body.contains("/static/timeline.js") && !web.body.contains("<script>"))
            #expect(try await browser.get("/timeline?before=nonsense&limit=-5&mood=9").status == .ok, "a hand-edited link still shows a page")
            let home = try await browser.get("/")
            #expect(home.body.contains("Hello, Aiko") && home.body.contains(#"id="day-calendar""#) && home.body.contains(#"id="getting-started""#))
            // Insights: too few days to say anything, and the page says so in both languages.
            let insights = try await api.call(.get, "/api/v1/insights")
            #expect(insights.status == .ok && insights.body.contains(#""insights":[]"#) && insights.body.contains(#""minimumDays":30"#))
            #expect(try await browser.get("/insights").body.contains(#"id="insights-none""#))
            browser.acceptLanguage = "ja"
            #expect(try await browser.get("/insights").body.contains("まだ言えることはありません"))
            browser.acceptLanguage = "en"
            let may = try await browser.get("/day/2024-05-07")
            #expect(may.body.contains(#"data-day="2024-05-05""#) && may.body.contains(#"aria-current="date""#))
        }
    }
}

struct ReviewLogicTests {
    @Test func totalsAddUpTheDaysAndChangesNeedSomethingBefore() throws {
        var monday = DaySummary(key: try #require(DayKey("2026-11-16")))
        monday.steps = 8000
        monday.sleepHours = 7
        monday.rating = .good
        monday.moods = [.happiness, .happiness]
        monday.diaryEntries = 2
        monday.visits = 2
        monday.places = ["Cafe", "Park"]
        var tuesday = DaySummary(key: try #require(DayKey("2026-11-17")))
        tuesday.steps = 4000
        tuesday.sleepHours = 6
        tuesday.rating = .meh
        tuesday.visits = 1
        tuesday.newPlaces = 1
        tuesday.places = ["Cafe"]
        let empty = DaySummary(key: try #require(DayKey("2026-11-18")))
        let totals = ReviewTotals.of([monday, tuesday, empty])
        #expect(totals.daysRecorded == 2 && totals.steps == 12000 && totals.averageSleepHours == 6.5 && totals.averageRating == 3.5)
        #expect(totals.moods == ["happiness": 2] && totals.visits == 3 && totals.newPlaces == 1 && totals.diaryEntries == 2)
        #expect(ReviewTotals.places([monday, tuesday]).map(\.name) == ["Cafe", "Park"])
        #expect(ReviewTotals.change(12000, from: 8000) == 50 && ReviewTotals.change(5, from: 0) == nil)
    }
}

@Suite struct ReviewWatchTimeTests {
    @Test func watchTimeUnderAnHourIsInMinutes() {
        #expect(JournalViews.watchTime(hours: 20.0 / 60, language: .en) == "20 min")
        #expect(JournalViews.watchTime(hours: 20.0 / 60, language: .ja) == "20分")
        #expect(JournalViews.watchTime(hours: 1.5, language: .en) == "1.5 h")
        #expect(JournalViews.watchTime(hours: 12, language: .ja) == "12時間")
        #expect(JournalViews.watchTime(hours: .nan, language: .en) == "—")
    }
}

@Suite(.serialized) struct JournalReviewAPITests {
    @Test func aWeekAndAMonthAddUpEveryDomainAndTheCardCarriesNothingPersonalUnlessAsked() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            // Tokyo: 2026-11-16 is the Monday of ISO week 47.
            #expect(try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-11-16T03:00:00Z","text":"Secret walk","confirmedMood":"happiness"}"#).status == .created)
            #expect(try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":9000,"unit":"count","start":"2026-11-17T03:00:00Z"}"#).status == .created)
            #expect(try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":3000,"unit":"count","start":"2026-11-10T03:00:00Z"}"#).status == .created)
            _ = try await VisitTestApp.create(api)
            let week = try await api.call(.get, "/api/v1/reviews/week/2026-W47")
            #expect(week.status == .ok, "\(week.body)")
            let json = try #require(try JSONSerialization.jsonObject(with: week.data) as? [String: Any])
            let totals = try #require(json["totals"] as? [String: Any])
            #expect(totals["steps"] as? Double == 9000 && totals["diaryEntries"] as? Int == 1 && (totals["moods"] as? [String: Int])?["happiness"] == 1)
            #expect((json["previousTotals"] as? [String: Any])?["steps"] as? Double == 3000)
            #expect(json["from"] as? String == "2026-11-16" && json["to"] as? String == "2026-11-22" && json["previous"] as? String == "2026-W46")
            #expect(try await api.call(.get, "/api/v1/reviews/week/2026-W54").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/reviews/month/2026-11").status == .ok)
            #expect(try await api.call(.get, "/api/v1/reviews/month/2026-13").status == .badRequest)

            let page = try await browser.get("/review/week/2026-W47")
            #expect(page.status == .ok && page.body.contains(#"id="figure-steps""#) && page.body.contains("+200%"))
            #expect(page.body.contains("@media print") || page.body.contains("/static/journal.css"))
            browser.acceptLanguage = "ja"
            #expect(try await browser.get("/review/month/2026-11").body.contains("月のふりかえり"))
            browser.acceptLanguage = "en"

            let card = try await browser.get("/review/week/2026-W47/card.png")
            #expect(card.status == .ok && card.headers[.contentType] == "image/png")
            #expect(card.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            // The card's drawing (the same one the PNG is made from) holds the name only when asked for.
            var day = DaySummary(key: try #require(DayKey("2026-11-16")))
            day.steps = 9000
            day.rating = .good
            day.places = ["Tokyo Station"]
            let review = JournalService.Review(period: try #require(ReviewPeriod(kind: .week, slug: "2026-W47")), totals: .of([day]), previous: .init(),
                                               places: ReviewTotals.places([day]), badges: [], days: [day])
            let plain = HealthShareCards().shareCardSVG(JournalViews.reviewCard(review: review, options: [], name: "Aiko", language: .en), language: .en)
            #expect(!plain.contains("Aiko") && !plain.contains("Tokyo Station") && !plain.contains("/ 5") && plain.contains("9,000"))
            let chosen = HealthShareCards().shareCardSVG(JournalViews.reviewCard(review: review, options: ["name", "places", "mood"], name: "Aiko", language: .en),
                                                         language: .en)
            #expect(chosen.contains("Aiko") && chosen.contains("Tokyo Station") && chosen.contains("/ 5"))
        }
    }
}

/// Search everywhere reaches health: a record's notes (imported metadata), its category and where it came from.
@Suite(.serialized) struct JournalHealthSearchTests {
    @Test func healthNotesAndSourcesAreFoundAndOnlyTheOwners() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let start: Int64 = 1_714_539_600  // 2024-05-01 05:00 UTC
            let records = core.features.health.service.records
            _ = try await records.insert([HealthRecordDraft(type: "workout", value: 40, category: "Hiking", unit: "min", start: start, end: start + 2400,
                                                            device: "Aiko's Watch", details: #"{"note":"ginkgo avenue loop"}"#)],
                                         userID: aiko.id, source: .appleHealth, now: Date())
            _ = try await records.insert([HealthRecordDraft(type: "workout", value: 30, category: "Hiking", unit: "min", start: start, end: start + 1800,
                                                            device: "Ken's Watch", details: #"{"note":"ginkgo too"}"#)],
                                         userID: ken.id, source: .appleHealth, now: Date())
            let journal = core.features.journal.service
            let byNote = try await journal.search(user: aiko, query: "GINKGO", diaryOpen: true, language: .en)
            #expect(byNote.count == 1 && byNote.first?.domain == .health && byNote.first?.snippet.contains("Aiko's Watch") == true)
            #expect(byNote.first?.path.hasPrefix("/day/2024-05-01") == true)
            // Issue 33: the metadata as labelled values in words, never the stored JSON.
            #expect(byNote.first?.snippet.contains("Workout · Hiking · Aiko's Watch · Apple Health — Note: ginkgo avenue loop") == true)
            #expect(byNote.first?.snippet.contains("{") == false)
            let inJapanese = try await journal.search(user: aiko, query: "GINKGO", diaryOpen: true, language: .ja)
            #expect(inJapanese.first?.snippet.hasPrefix("ワークアウト · ハイキング · Aiko's Watch · Apple ヘルスケア") == true)
            #expect(try await journal.search(user: aiko, query: "hiking watch", diaryOpen: true, language: .en).count == 1, "every word, across fields")
            #expect(try await journal.search(user: aiko, query: "applehealth", diaryOpen: true, language: .en).count == 1, "the source")
            #expect(try await journal.search(user: aiko, query: "100%_", diaryOpen: true, language: .en).isEmpty, "LIKE wildcards are literal")
            #expect(try await journal.search(user: aiko, query: "Ken's", diaryOpen: true, language: .en).isEmpty)
        }
    }
}

struct DayKeyArithmeticTests {
    /// The arithmetic day numbers agree with Foundation's calendar over two centuries, in zones either side of UTC.
    @Test func dayNumbersAgreeWithTheCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        for zoneName in ["UTC", "Asia/Tokyo", "America/Los_Angeles", "Asia/Kathmandu"] {
            let zone = try #require(TimeZone(identifier: zoneName))
            calendar.timeZone = zone
            var instant = -86_400.0 * 365 * 2
            while instant < 86_400.0 * 365 * 200 {
                let date = Date(timeIntervalSince1970: instant)
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                let key = DayKey(date, timeZone: zone)
                #expect(key.year == parts.year && key.month == parts.month && key.day == parts.day, "\(zoneName) \(instant)")
                instant += 86_400 * 37 + 3_637
            }
        }
        let leap = try #require(DayKey("2024-02-28"))
        #expect(leap.adding(days: 1, in: .gmt).description == "2024-02-29" && leap.adding(days: 2, in: .gmt).description == "2024-03-01")
        #expect(try #require(DayKey("2000-01-01")).adding(days: -1, in: .gmt).description == "1999-12-31")
        let known = try #require(DayKey("2026-11-23"))
        #expect(DayKey(daysSince1970: 0).description == "1970-01-01" && known.daysSince1970 == 20_780)
    }
}
