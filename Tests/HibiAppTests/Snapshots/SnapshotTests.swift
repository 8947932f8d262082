import Foundation
import Hummingbird
import Logging
import NIOEmbedded
import SnapshotTesting
import Testing
@testable import HibiApp

/// Issue 12, item 7: a few representative pages, images and API answers as reviewed text, so a change to a
/// layout or a format shows up as a diff in `__Snapshots__` instead of passing unseen. Inputs are fixed
/// (dates, ids, the CSRF token), so the output depends only on the code. To accept an intended change,
/// delete the snapshot file and run the test once: it records the new one (and fails that once).
@Suite struct SnapshotTests {
    static let now = Date(timeIntervalSince1970: 1_795_392_000) // 2026-11-23 00:00 UTC

    /// A page's request context without a server: fixed language, clock and CSRF token.
    static func context(_ language: Language = .en, user: User? = nil) -> HibiRequestContext {
        var context = HibiRequestContext(source: .init(channel: EmbeddedChannel(), logger: Logger(label: "snapshot")))
        context.language = language
        context.now = now
        context.csrfToken = "csrf-token-for-snapshots"
        if let user { context.identity = Identity(user: user, credential: .apiToken(id: "t", scopes: .all)) }
        return context
    }

    static let aiko = User(id: "user-1", username: "aiko", displayName: "Aiko", passwordHash: "", isAdmin: true, disabled: false,
                           language: nil, timeZone: "Asia/Tokyo", createdAt: now, passwordChangedAt: now)

    static func entry(_ id: String, _ seconds: TimeInterval, _ text: String, mood: Mood?, photos: Int = 0) -> DiaryEntry {
        DiaryEntry(id: id, userID: aiko.id, date: now.addingTimeInterval(seconds), text: text, tags: photos > 0 ? ["walk"] : [],
                   moodScores: nil, confirmedMood: mood, hasPhoto: photos > 0, createdAt: now, updatedAt: now,
                   photos: (0..<photos).map { DiaryPhoto(id: "\(id)-p\($0)", hasFace: $0 == 0, moodSource: $0 == 0) })
    }

    @Test func theDiaryListGroupedByDay() {
        let entries = [Self.entry("e3", -3_600, "Rain all afternoon. Read by the window.", mood: .neutral),
                       Self.entry("e2", -50_000, "A walk by the river <with> \"friends\" & a dog.", mood: .happiness, photos: 2),
                       Self.entry("e1", -60_000, "", mood: nil, photos: 1)]
        for language in [Language.en, .ja] {
            let page = DiaryViews.list(context: Self.context(language, user: Self.aiko), user: Self.aiko, state: .init(
                entries: entries, total: 3, page: 1, perPage: 20, query: "", mood: nil, tag: "", from: "", to: "",
                allTags: ["walk"], notice: nil))
            assertSnapshot(of: Self.lines(page.render()), as: .lines, named: language.rawValue)
        }
    }

    @Test func theFirstPageOfANewInstance() throws {
        // `/` is today's journal page: the greeting, the getting-started checklist, and an empty day.
        let key = try #require(DayKey("2026-11-23")), yesterday = try #require(DayKey("2026-11-22")), tomorrow = try #require(DayKey("2026-11-24"))
        let query = DayQuery(user: Self.aiko, key: key, timeZone: .gmt, diaryOpen: true, language: .en, dayPath: { JournalPaths.day($0) })
        // Each feature's part of an empty day, as its offer renders it: only the links to record something.
        let parts = [DiaryDayViews.part(entries: [], day: query),
                     HealthDayViews.part(lines: [], night: nil, workouts: [], units: UnitPreferences(), day: query),
                     VisitDayViews.part(visits: [], day: query), VideoDayViews.part(watched: [], day: query)]
        let day = JournalService.Day(key: key, diaryOpen: true, parts: parts, previous: yesterday, next: tomorrow, onThisDay: [], rating: nil)
        let page = JournalViews.day(context: Self.context(user: Self.aiko), user: Self.aiko, day: day, today: key,
                                    home: .init(checklist: GettingStarted(.init(faceEnrolled: true, diaryEntries: 1))))
        assertSnapshot(of: Self.lines(page.render()), as: .lines)
    }

    @Test func aWeightTrendChart() {
        // Ten weeks from 143 to 135 lb: the chart's ticks are round and its labels whole.
        let points = (0..<10).map { week in
            TrendPoint(date: Self.now.addingTimeInterval(Double(week - 9) * 7 * 86_400), value: 64.86 - Double(week) * 0.4, movingAverage: 64.86 - Double(week) * 0.4)
        }
        let svg = HealthGraphics.chart(points: points, unit: "kg", display: { $0 }, language: .en, title: "Weight")
        assertSnapshot(of: Self.lines(svg), as: .lines)
    }

    @Test func visitsAsGPXAndGeoJSON() throws {
        let visits = [
            Visit(id: "v1", userID: Self.aiko.id, fields: VisitFields(visitedAt: Self.now.addingTimeInterval(-7_200), latitude: 35.6586, longitude: 139.7454,
                                                                     name: "Tokyo Tower & café", labels: ["view"], notes: "Windy <but> clear"),
                  photos: [], createdAt: Self.now, updatedAt: Self.now, revision: 1),
            Visit(id: "v2", userID: Self.aiko.id, fields: VisitFields(visitedAt: Self.now.addingTimeInterval(-3_600), latitude: 35.6895, longitude: 139.6917,
                                                                     name: "Shinjuku"),
                  photos: [], createdAt: Self.now, updatedAt: Self.now, revision: 2),
        ]
        assertSnapshot(of: String(decoding: VisitFormats.gpx(visits), as: UTF8.self), as: .lines, named: "gpx")
        assertSnapshot(of: String(decoding: VisitFormats.geoJSON(visits, chain: nil), as: UTF8.self), as: .lines, named: "geojson")
    }

    @Test func aDiaryEntryAsTheAPIAnswersIt() throws {
        var entry = Self.entry("e9", -600, "Exam results came out!", mood: .happiness, photos: 2)
        var values = Dictionary(uniqueKeysWithValues: Mood.allCases.map { ($0, 0.05) })
        values[.happiness] = 0.7
        entry.moodScores = MoodScores(values)
        let encoder = JSONCoding.encoder
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        assertSnapshot(of: String(decoding: try encoder.encode(DiaryEntryResponse(entry)), as: UTF8.self), as: .lines)
    }

    /// One element per line, so a snapshot's diff points at the element that changed.
    static func lines(_ markup: String) -> String {
        markup.replacingOccurrences(of: "><", with: ">\n<")
    }
}
