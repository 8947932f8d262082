import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

struct JournalLogicTests {
    @Test func dayKeysParseOnlyRealDays() {
        #expect(DayKey("2026-11-23")?.description == "2026-11-23")
        for bad in ["2026-02-30", "1969-12-31", "2026-1-1", "10000-01-01", "2026-13-01", "yesterday", "", "2026-11-23T00:00"] {
            #expect(DayKey(bad) == nil, "\(bad)")
        }
        #expect(DayKey("2024-02-29") != nil)
    }

    @Test func aDayRunsFromLocalMidnightToLocalMidnightAcrossDaylightSaving() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let spring = try #require(DayKey("2026-03-08")).interval(in: newYork)
        #expect(spring.duration == 23 * 3600)
        #expect(try #require(DayKey("2026-03-08")).adding(days: 1, in: newYork).description == "2026-03-09")
        #expect(try #require(DayKey("2026-01-01")).adding(days: -1, in: newYork).description == "2025-12-31")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        // 2026-11-22 20:00 UTC is already the 23rd in Tokyo.
        #expect(DayKey(Date(timeIntervalSince1970: 1_795_377_600), timeZone: tokyo).description == "2026-11-23")
    }

    @Test func healthAddsUpTotalsAveragesRatesAndKeepsTheLatestState() {
        func record(_ type: String, _ value: Double, _ hour: Double, unit: String = "") -> HealthRecord {
            HealthRecord(id: UUID().uuidString, type: type, value: value, category: "", unit: unit, start: Date(timeIntervalSince1970: hour * 3600),
                         end: Date(timeIntervalSince1970: hour * 3600), source: .manual, device: "", details: nil, createdAt: Date())
        }
        let lines = HealthDay.summarize([
            record("steps", 1200, 8), record("steps", 3400, 12), record("weight", 61.2, 7), record("weight", 60.8, 21),
            record("heartRate", 60, 9), record("heartRate", 80, 10), record("HKQuantityTypeIdentifierDietaryFatTotal", 21.37, 12, unit: "g"),
        ])
        #expect(lines.map(\.type) == ["weight", "steps", "heartRate", "HKQuantityTypeIdentifierDietaryFatTotal"])
        #expect(lines[0] == HealthDayLine(type: "weight", kind: .latest, value: 60.8, unit: "kg", records: 2))
        #expect(lines[1] == HealthDayLine(type: "steps", kind: .total, value: 4600, unit: "count", records: 2))
        #expect(lines[2] == HealthDayLine(type: "heartRate", kind: .average, value: 70, unit: "count/min", records: 2))
        #expect(lines[3].unit == "g" && lines[3].value == 21.37)
    }

    @Test func aDayRatingDefaultsFromTheMoodsValenceAndLeavesTheEndsToThePerson() {
        #expect(DayRating.fromMoods([]) == nil)
        #expect(DayRating.fromMoods([.happiness]) == .good)
        #expect(DayRating.fromMoods([.happiness, .happiness]) == .good, "never great by itself")
        #expect(DayRating.fromMoods([.sadness, .fear]) == .bad, "never awful by itself")
        #expect(DayRating.fromMoods([.happiness, .sadness]) == .meh)
        #expect(DayRating.fromMoods([.happiness, .neutral]) == .good, "3.5 rounds half up")
        #expect(DayRating.fromMoods([.surprise, .neutral, .anger]) == .meh, "2.67 rounds to 3")
    }

    @Test func searchNeedsEveryWordInAnyCaseAndWidth() {
        #expect(SearchGrouping.matches("tokyo STATION", ["Tokyo Station Hotel", nil]))
        #expect(SearchGrouping.matches("ｔｏｋｙｏ", ["Tokyo"]))
        #expect(!SearchGrouping.matches("tokyo kyoto", ["Tokyo Station"]))
        #expect(!SearchGrouping.matches("   ", ["anything"]))
    }
}

@Suite(.serialized) struct JournalAPITests {
    @Test func aDayGathersEveryDomainAndTheDiaryOnlyForWhoMayReadIt() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let noDiary = APIClient(browser: browser, token: try await browser.createToken(name: "no diary", scopes: .standard))
            let entry = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2024-05-01T10:00:00Z","text":"Lunch by the station with Ken","tags":["food"]}"#)
            #expect(entry.status == .created)
            let record = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":4200,"unit":"count","start":"2024-05-01T08:00:00Z"}"#)
            #expect(record.status == .created, "\(record.body)")
            _ = try await VisitTestApp.create(api)

            let day = try await api.call(.get, "/api/v1/days/2024-05-01")
            #expect(day.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: day.data) as? [String: Any])
            #expect((json["diary"] as? [[String: Any]])?.first?["text"] as? String == "Lunch by the station with Ken")
            #expect((json["visits"] as? [[String: Any]])?.first?["name"] as? String == "Tokyo Station")
            let steps = (json["health"] as? [[String: Any]])?.first { $0["type"] as? String == "steps" }
            #expect(steps?["value"] as? Double == 4200 && steps?["kind"] as? String == "total")
            #expect(json["previous"] as? String == "2024-04-30" && json["next"] as? String == "2024-05-02")

            // A token without the diary scope sees the rest of the day, never the text.
            let partial = try await noDiary.call(.get, "/api/v1/days/2024-05-01")
            #expect(partial.status == .ok)
            #expect(!partial.body.contains("Lunch by the station"))
            #expect(partial.body.contains("Tokyo Station"))

            // A year later, the same date remembers both.
            let later = try #require(try JSONSerialization.jsonObject(with: try await api.call(.get, "/api/v1/days/2025-05-01").data) as? [String: Any])
            let memory = try #require((later["onThisDay"] as? [[String: Any]])?.first)
            #expect(memory["yearsAgo"] as? Int == 1 && memory["date"] as? String == "2024-05-01")
            #expect((memory["diary"] as? [[String: Any]])?.count == 1 && (memory["visits"] as? [[String: Any]])?.count == 1)
            #expect(!(try await noDiary.call(.get, "/api/v1/days/2025-05-01")).body.contains("Lunch by the station"))

            // The rating: a default from the confirmed mood, then the person's own choice, then back.
            let happy = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2024-05-03T10:00:00Z","text":"Sunny","confirmedMood":"happiness"}"#)
            #expect(happy.status == .created)
            #expect(try await api.call(.get, "/api/v1/days/2024-05-03").body.contains(#""rating":{"rating":4,"source":"moods"}"#))
            #expect(!(try await noDiary.call(.get, "/api/v1/days/2024-05-03")).body.contains(#""rating""#), "moods are diary data")
            #expect(try await api.call(.put, "/api/v1/days/2024-05-03/rating", json: #"{"rating":5}"#).status == .ok)
            #expect(try await api.call(.get, "/api/v1/days/2024-05-03").body.contains(#""rating":{"rating":5,"source":"chosen"}"#))
            #expect(try await api.call(.put, "/api/v1/days/2024-05-03/rating", json: #"{"rating":9}"#).status == .badRequest)
            #expect(try await api.call(.delete, "/api/v1/days/2024-05-03/rating").status == .noContent)
            #expect(try await api.call(.get, "/api/v1/days/2024-05-03").body.contains(#""source":"moods""#))

            #expect(try await api.call(.get, "/api/v1/days/2024-02-30").status == .badRequest)
            #expect(try await api.call(.get, "/api/v1/days/2024-05-02").body.contains(#""visits":[]"#))

            // Search everywhere: diary text and visit names, the diary only with the diary scope.
            let found = try await api.call(.get, "/api/v1/search?q=station")
            #expect(found.status == .ok)
            #expect(found.body.contains(#""domain":"diary""#) && found.body.contains(#""domain":"visits""#))
            let hidden = try await noDiary.call(.get, "/api/v1/search?q=station")
            #expect(!hidden.body.contains("Lunch") && hidden.body.contains(#""diarySearched":false"#))
            #expect(try await api.call(.get, "/api/v1/search?q=").status == .badRequest)
        }
    }

    @Test func theDayPageShowsALockedDiaryAsLockedAndAnEmptyDayInvitesTheNextStep() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2024-05-01T10:00:00Z","text":"A secret picnic"}"#)
            try await browser.post("/diary/lock", form: [:])
            let locked = try await browser.get("/day/2024-05-01")
            #expect(locked.status == .ok)
            #expect(!locked.body.contains("A secret picnic"))
            // The link returns to this day after unlocking.
            #expect(locked.body.contains(DiaryPaths.unlock(next: "/day/2024-05-01")))
            try await browser.unlockDiary()
            let open = try await browser.get("/day/2024-05-01")
            #expect(open.body.contains("A secret picnic"))
            #expect(open.body.contains(#"href="/day/2024-04-30""#))
            let rated = try await browser.post("/day/2024-05-01/rating", form: ["rating": "2"])
            #expect(rated.status == .found)
            #expect(try await browser.get("/day/2024-05-01").body.contains(#"id="rating-2" checked"#))
            #expect(try await browser.post("/day/2024-05-01/rating", form: ["rating": "0"]).status == .badRequest)
            let empty = try await browser.get("/day/2024-06-01")
            #expect(empty.body.contains(#"id="empty-day""#) && empty.body.contains("/diary/new"))
            #expect(try await browser.get("/day/not-a-day").status == .badRequest)
            // The first page is today's page, with the greeting above it.
            let home = try await browser.get("/")
            #expect(home.body.contains("Hello, Aiko") && home.body.contains(#"id="day-rating""#) && home.body.contains(#"id="day-calendar""#))
            #expect(!home.body.contains("Nothing recorded today yet"), "the first page no longer claims an empty day")
            let picked = try await browser.get("/day?date=2024-05-01")
            #expect(picked.headers[.location] == "/day/2024-05-01")
            browser.acceptLanguage = "ja"
            let japanese = try await browser.get("/search?q=picnic")
            #expect(japanese.body.contains("日記・訪問・動画・健康を検索") && japanese.body.contains("A secret picnic"))
        }
    }
}

/// Another person's day, on the same date and with the same words, never shows.
@Suite(.serialized) struct JournalPrivacyTests {
    @Test func anotherPersonsEntriesVisitsAndRatingsStayTheirs() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let noon = try #require(DayKey("2024-05-01")).interval(in: TimeZone(identifier: aiko.timeZone) ?? .gmt).start.addingTimeInterval(12 * 3600)
            _ = try await core.features.diary.service.create(userID: ken.id, draft: .init(date: noon, text: "Ken's ramen lunch", tags: [],
                                                                                          confirmedMood: .happiness, photo: nil), now: Date())
            _ = try await core.features.visits.service.create(userID: ken.id, fields: VisitFields(visitedAt: noon, latitude: 35, longitude: 139,
                                                                                                  name: "Ramen shop"), now: Date())
            let journal = core.features.journal.service
            try await journal.rate(user: ken, key: try #require(DayKey("2024-05-01")), rating: .great, now: Date())
            let day = try await journal.day(user: aiko, key: try #require(DayKey("2024-05-01")), diaryOpen: true, language: .en)
            #expect(day.isEmpty && day.rating == nil)
            #expect(try await journal.search(user: aiko, query: "ramen", diaryOpen: true, language: .en).isEmpty)
            #expect(try await journal.search(user: ken, query: "ramen", diaryOpen: true, language: .en).count == 2)
        }
    }
}
