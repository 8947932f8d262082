import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
@testable import HibiApp

/// Issue 28, item 1: one imported step count of 1e19 stopped the server on every page that showed it, for good.
struct ExtremeValueLogicTests {
    static let cases: [(Double, Int64)] = [
        (1e19, Int64.max), (-1e19, Int64.min), (Double.greatestFiniteMagnitude, Int64.max), (-Double.greatestFiniteMagnitude, Int64.min),
        (Double.infinity, Int64.max), (-Double.infinity, Int64.min), (Double.nan, 0), (9.223372036854775807e18, Int64.max),
        (-9.223372036854775808e18, Int64.min), (12.7, 12), (-12.7, -12), (0, 0),
    ]

    @Test(arguments: cases)
    func aFloatingValueSaturatesInsteadOfTrapping(value: Double, expected: Int64) {
        #expect(Int64(saturating: value) == expected)
    }

    @Test func roundingAndNarrowTypesSaturateToo() {
        #expect(Int(saturating: 12.5, rounding: .toNearestOrAwayFromZero) == 13)
        #expect(Int(saturating: 12.2, rounding: .up) == 13)
        #expect(Int32(saturating: 3e9) == Int32.max)
        #expect(UInt64(saturating: -1) == 0)
        #expect(UInt64(saturating: 1e30) == UInt64.max)
        #expect(UInt8(saturating: 255.4) == 255)
    }

    @Test func sumsOfStoredValuesStayFinite() {
        #expect([Double.greatestFiniteMagnitude, .greatestFiniteMagnitude].finiteSum == .greatestFiniteMagnitude)
        #expect([-Double.greatestFiniteMagnitude, -1e308].finiteSum == -.greatestFiniteMagnitude)
        #expect([1.0, .nan, 2, .infinity].finiteSum == 3)
        #expect([2.0, 4, .nan].finiteMean == 3)
        #expect([Double.nan].finiteMean == nil)
    }

    @Test func everyImportPathUsesTheManualEntryRange() {
        #expect(HealthRules.isPlausible(type: "steps", value: 10000))
        #expect(!HealthRules.isPlausible(type: "steps", value: 1e19))
        #expect(!HealthRules.isPlausible(type: "steps", value: -1))
        #expect(!HealthRules.isPlausible(type: "weight", value: 600))
        #expect(!HealthRules.isPlausible(type: "sleep", value: 30))
        #expect(!HealthRules.isPlausible(type: "workout", value: 1e19))
        #expect(!HealthRules.isPlausible(type: "activitySummary", value: .greatestFiniteMagnitude))
        #expect(HealthRules.isPlausible(type: "HKQuantityTypeIdentifierFlightsClimbed", value: 12))
        #expect(!HealthRules.isPlausible(type: "HKQuantityTypeIdentifierFlightsClimbed", value: 1e19))
        #expect(!HealthRules.isPlausible(type: "steps", value: .nan))
        // Manual entry refuses the same value with the same range in its message.
        #expect(throws: HealthError.outOfRange(type: "steps", min: 0, max: 200_000, unit: "count")) {
            _ = try HealthRules.validate(type: "steps", value: 1e19, unit: "count", start: Date(), end: nil, now: Date())
        }
    }

    @Test func theIssuesRecordIsSkippedWithItsReason() {
        let attributes = [XMLAttribute("type", "HKQuantityTypeIdentifierStepCount"), XMLAttribute("unit", "count"),
                          XMLAttribute("value", "10000000000000000000"),
                          XMLAttribute("startDate", "2026-11-24 08:00:00 +0900"), XMLAttribute("endDate", "2026-11-24 09:00:00 +0900")]
        #expect(AppleHealthMapping.recordProblem(attributes) == .implausibleValue)
        #expect(ImportSkipReason.implausibleValue.text.ja.contains("範囲外"))
    }

    @Test func aCSVLineOutsideTheRangeIsRefusedWithItsLine() {
        #expect(throws: HealthError.self) {
            _ = try HealthCSV.parse("HKQuantityTypeIdentifierFlightsClimbed,1e19,count,2024-05-01T07:00:00Z", now: Date())
        }
        #expect(throws: HealthError.self) { _ = try HealthCSV.parse("steps,1e19,count,2024-05-01T07:00:00Z", now: Date()) }
    }
}

/// The same attack through the real router, and every value a database can hold shown on every page.
@Suite(.serialized) struct ExtremeValueRouterTests {
    /// Like `TestApp.run`, with the core at hand to write rows no request could.
    static func run(_ body: @escaping @Sendable (AppCore, Browser) async throws -> Void) async throws {
        let logger = ProcessInfo.processInfo.environment["HIBI_TEST_LOG"] != nil ? makeLogger(level: .error) : TestApp.quietLogger
        let core = try await AppCore.open(try await TestApp.config(), logger: logger, face: .given(analyzer: nil, moods: FakeMoodEstimator()),
                                          clock: .system)
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in try await body(core, Browser(client: client)) }
    }

    static func dayKey(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// The week and month review addresses of `date` (ISO week).
    static func reviews(_ date: Date) -> [String] {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = .current
        let c = iso.dateComponents([.yearForWeekOfYear, .weekOfYear, .year, .month], from: date)
        return [JournalPaths.review("week", String(format: "%04d-W%02d", c.yearForWeekOfYear ?? 0, c.weekOfYear ?? 0)),
                JournalPaths.review("month", String(format: "%04d-%02d", c.year ?? 0, c.month ?? 0))]
    }

    static func appleHealthStepsFile(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let start = formatter.string(from: date), end = formatter.string(from: date.addingTimeInterval(600))
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="10000000000000000000"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="4200"/>
        </HealthData>
        """
    }

    @Test func theIssuesAppleHealthFileImportsAndEveryPageStillAnswers() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let twoDaysAgo = Date().addingTimeInterval(-2 * 86400)
            let headers: HTTPFields = [.authorization: "Bearer \(api.token ?? "")", .contentType: "application/octet-stream"]
            let response = try await browser.client.executeRequest(uri: "/api/v1/health/imports?name=export.xml", method: .post, headers: headers,
                                                                  body: ByteBuffer(string: Self.appleHealthStepsFile(at: twoDaysAgo)))
            #expect(response.status == .accepted)
            var job = try JSONCoding.decoder.decode(ImportJobResponse.self, from: Data(buffer: response.body))
            for _ in 0..<200 where job.state != "done" && job.state != "failed" {
                try await Task.sleep(for: .milliseconds(50))
                job = try APIClient.decode(ImportJobResponse.self, try await api.call(.get, "/api/v1/health/imports/\(job.id)"))
            }
            #expect(job.state == "done")
            #expect(job.inserted == 1)
            let skips = job.report.kinds.flatMap(\.skipped)
            #expect(skips.map(\.reason) == [.implausibleValue] && skips.first?.count == 1, "\(job.report)")
            #expect(job.summary.joined().contains("outside the range"), "\(job.summary)")

            let day = Self.dayKey(twoDaysAgo)
            for page in [JournalPaths.timeline, JournalPaths.day(day), JournalPaths.insights, HealthPaths.overview] + Self.reviews(twoDaysAgo) {
                let answer = try await browser.get(page)
                #expect(answer.status == .ok, "\(page): \(answer.status)")
            }
            // The kept record is there with its own value.
            let records = try await api.call(.get, "/api/v1/health/records?type=steps")
            #expect(records.body.contains("4200") && !records.body.contains("1e+19") && !records.body.contains("10000000000000000000"))
        }
    }

    static let huge = String(repeating: "長", count: 350_000)  // about 1 MB of UTF-8

    /// Rows no request could write: the largest and smallest doubles, ±1e19, zero and negative durations, the ends of
    /// the date range Hibi accepts and of Int64, and 1 MB strings, in every health, journal and video table a page reads.
    static func plant(_ sql: any SQLDatabase, userID: String, around date: Date) async throws {
        let at = Int64(saturating: date.timeIntervalSince1970)
        let values: [Double] = [1e19, -1e19, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0]
        let starts: [Int64] = [at, -2_208_988_800, 7_258_118_399, at - 86400 * 6]
        let types = HealthDataType.allCases.map(\.rawValue) + ["HKQuantityTypeIdentifierFlightsClimbed", "HKCategoryTypeIdentifierMindfulSession"]
        var n = 0
        for type in types {
            for value in values {
                for start in starts {
                    for end in [start, start - 3600, start + 7200] {
                        n += 1
                        try await sql.raw("""
                            INSERT INTO health_records (id, user_id, type, value, category, unit, start_at, end_at, source, device, details, created_at)
                            VALUES (\(bind: "x\(n)"), \(bind: userID), \(bind: type), \(bind: value), '', 'count', \(bind: start), \(bind: end),
                                    'appleHealth', \(bind: "d\(n)"), NULL, \(bind: at))
                            """).run()
                    }
                }
            }
        }
        try await sql.raw("""
            INSERT INTO health_records (id, user_id, type, value, category, unit, start_at, end_at, source, device, details, created_at)
            VALUES ('big', \(bind: userID), 'steps', 12, 'long', \(bind: huge), \(bind: at), \(bind: at), 'appleHealth', 'long', \(bind: huge), \(bind: at))
            """).run()
        for (i, (value, start, end)) in [(1e19, at, at - 600), (-1e19, at, at), (Double.greatestFiniteMagnitude, -2_208_988_800, 7_258_118_399),
                                         (0, 7_258_118_399, -2_208_988_800)].enumerated() {
            try await sql.raw("""
                INSERT INTO health_workouts (id, user_id, activity, start_at, end_at, duration_min, distance_km, energy_kcal, device, details, created_at)
                VALUES (\(bind: "w\(i)"), \(bind: userID), \(bind: i == 0 ? huge : "Running"), \(bind: start), \(bind: end), \(bind: value), \(bind: value),
                        \(bind: -value), \(bind: i == 1 ? huge : "Watch"), NULL, \(bind: at))
                """).run()
            try await sql.raw("""
                INSERT INTO health_workout_route_points (user_id, workout_id, t, lat, lon, ele)
                VALUES (\(bind: userID), \(bind: "w\(i)"), \(bind: start), \(bind: value), \(bind: -value), \(bind: value))
                """).run()
        }
        for (i, type) in ["steps", "weight", "sleep", "heartRate"].enumerated() {
            try await sql.raw("""
                INSERT INTO health_goals (id, user_id, type, target_value, deadline, created_at, start_value, achieved_at)
                VALUES (\(bind: "g\(i)"), \(bind: userID), \(bind: type), \(bind: values[i]), \(bind: starts[i]), \(bind: starts[(i + 1) % 4]),
                        \(bind: values[(i + 2) % 5]), NULL)
                """).run()
        }
        try await sql.raw("""
            INSERT INTO health_profiles (user_id, name_sealed, birth_date, height_cm, target_weight_kg, weight_unit, distance_unit, energy_unit, updated_at)
            VALUES (\(bind: userID), NULL, '0001-01-01', 1e19, \(bind: -Double.greatestFiniteMagnitude), 'kg', 'km', 'kcal', \(bind: at))
            """).run()
        // Category, device and day are in unique indexes, where PostgreSQL refuses 1 MB (so no request could store one).
        for day in ["0001-01-01", "9999-12-31", dayKey(date), String(repeating: "9", count: 2000)] {
            try await sql.raw("INSERT INTO day_ratings (user_id, day, rating, updated_at) VALUES (\(bind: userID), \(bind: day), 5, \(bind: Int64.max))").run()
        }
        for (i, big) in [Int64.max, Int64.min, 0].enumerated() {
            try await sql.raw("""
                INSERT INTO videos (id, owner_id, source, file_path, original_name, size_bytes, modified_ms, duration_ms, container, video_codec,
                                    audio_codec, width, height, has_thumbnail, has_captions, created_at)
                VALUES (\(bind: "v\(i)"), \(bind: userID), 'upload', \(bind: "x/\(i).mp4"), \(bind: i == 0 ? huge : "clip.mp4"), \(bind: big), \(bind: big),
                        \(bind: big), 'mp4', 'h264', 'aac', \(bind: big), \(bind: big), \(bind: false), \(bind: false), \(bind: big))
                """).run()
            try await sql.raw("""
                INSERT INTO video_user_data (user_id, video_id, title, favorite, rating, tags, last_played_at, position_ms, play_count, played,
                                             hidden_from_continue)
                VALUES (\(bind: userID), \(bind: "v\(i)"), \(bind: i == 1 ? huge : "t"), \(bind: true), 5, '', \(bind: big), \(bind: max(0, big)),
                        \(bind: max(0, big)), \(bind: false), \(bind: false))
                """).run()
        }
    }

    /// Migration 33's CHECKs refuse most of the planted values now. The pages must still hold if a database has
    /// them (one edited by hand, or a check a later version loosens), so they go in with the checks off:
    /// SQLite's per-connection pragma on one connection, PostgreSQL's constraints dropped from this test's database.
    static func withChecksOff<T: Sendable>(_ core: AppCore, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = core.database.sql
        guard core.database.engine == .sqlite else {
            let checks = try await sql.raw("""
                SELECT conrelid::regclass::text AS t, conname AS c FROM pg_constraint
                WHERE contype = 'c' AND connamespace = current_schema()::regnamespace
                """).all()
            for check in checks {
                let (table, name) = (try check.decode(column: "t", as: String.self), try check.decode(column: "c", as: String.self))
                try await sql.raw(SQLQueryString("ALTER TABLE \(unsafeRaw: table) DROP CONSTRAINT \"\(unsafeRaw: name)\"")).run()
            }
            return try await body(sql)
        }
        return try await sql.withSession { connection in
            try await connection.raw("PRAGMA ignore_check_constraints = ON").run()
            do {
                let result = try await body(connection)
                try await connection.raw("PRAGMA ignore_check_constraints = OFF").run()
                return result
            } catch {
                try? await connection.raw("PRAGMA ignore_check_constraints = OFF").run()
                throw error
            }
        }
    }

    @Test func extremeStoredValuesCrashNoPageOrRoute() async throws {
        try await Self.run { core, browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let userID = try await core.database.sql.raw("SELECT id FROM users WHERE username = 'aiko'").first(decoding: IDRow.self)?.id ?? ""
            let twoDaysAgo = Date().addingTimeInterval(-2 * 86400)
            let visits = try await Self.withChecksOff(core) { sql in
                try await Self.plant(sql, userID: userID, around: twoDaysAgo)
                return try await Self.plantPlaces(sql, userID: userID, around: twoDaysAgo)
            }
            let entries = try await Self.plantDiary(core, userID: userID, around: twoDaysAgo)

            var failures: [String] = []
            // Every page a person can reach by following links from the first one.
            var queue = ["/"], seen = Set(["/"]), parsed = Set<String>()
            var asked = 0
            while !queue.isEmpty, asked < EveryLinkAnswersTests.pageLimit {
                let link = queue.removeFirst()
                let page = try await browser.get(link)
                asked += 1
                if page.status.code >= 500 { failures.append("\(link): \(page.status.code)") }
                let path = String(link.split(separator: "?", maxSplits: 1).first ?? "")
                guard page.headers[.contentType]?.hasPrefix("text/html") == true, parsed.insert(path).inserted else { continue }
                for found in EveryLinkAnswersTests.links(in: page.body) where seen.insert(found).inserted {
                    if found.contains("logout") || found.contains("sign-out") { continue }
                    queue.append(found)
                }
            }
            // Pages and API routes a walk from the first page may not reach with these rows, named outright.
            var pages = [JournalPaths.timeline, JournalPaths.day(Self.dayKey(twoDaysAgo)), JournalPaths.insights, "/health/trends?range=year",
                         "/health/goals", "/health/badges", "/health/share", "/health/share/card.svg", "/health/share/card.png", "/videos",
                         "/videos/history", "/videos/v0", "/videos/v1", "/videos/v2"] + Self.reviews(twoDaysAgo)
            pages += [DiaryPaths.list, DiaryPaths.list + "?page=2", DiaryPaths.list(tag: "t2"), DiaryPaths.list(from: "0001-01-01", to: "9999-12-31"),
                      DiaryPaths.stats, DiaryPaths.stats + "?period=all", DiaryPaths.stats + "?period=year", DiaryPaths.calendar,
                      DiaryPaths.calendar(year: 1, month: 1), DiaryPaths.calendar(year: 9999, month: 12), DiaryPaths.data,
                      VisitPaths.list, VisitPaths.places, VisitPaths.verify, VisitPaths.stays, VisitPaths.staySettings, VisitPaths.transfer,
                      "/locations", "/locations/stays", "/locations/settings"]
            pages += entries.flatMap { [DiaryPaths.entry($0), DiaryPaths.edit($0), DiaryPaths.firstPhoto($0)] }
                + ["xp0", "xp1", "xp2"].enumerated().flatMap { i, photo in [DiaryPaths.photo(entries[i % 3], photo), DiaryPaths.thumbnail(entries[i % 3], photo)] }
            pages += visits.flatMap { [VisitPaths.visit($0), VisitPaths.edit($0)] }
            for type in HealthDataType.allCases {
                for range in ["week", "month", "year"] { pages.append("/health/trends?type=\(type.rawValue)&range=\(range)") }
            }
            for page in pages {
                let answer = try await browser.get(page)
                if answer.status.code >= 500 { failures.append("\(page): \(answer.status.code)") }
            }
            var routes = ["health/records", "health/records?type=steps", "health/export.csv", "health/goals", "health/badges", "health/profile",
                          "health/workouts/routes", "health/imports", "insights", "timeline", "days/\(Self.dayKey(twoDaysAgo))", "search?q=x",
                          "me", "me/export", "videos", "videos/v0", "videos/v1", "videos/continue-watching", "videos/history", "playlists",
                          "diary/statistics", "diary/trend", "visits/stats", "visits/map",
                          "diary/entries", "diary/entries?page=2", "diary/entries?from=0001-01-01&to=9999-12-31", "diary/entries?mood=happiness",
                          "diary/statistics?from=0001-01-01&to=9999-12-31", "diary/trend?period=week", "diary/trend?period=year",
                          "diary/export", "diary/export?format=dayone", "visits", "visits?limit=1000", "visits/verify", "visits/chain",
                          "visits/export", "visits/export?format=gpx", "visits/export?format=csv", "visits/webhook",
                          "locations/stays", "locations/stays?status=all", "locations/stays?status=confirmed", "locations/settings"]
            routes += entries.flatMap { ["diary/entries/\($0)", "diary/entries/\($0)/photo"] } + ["diary/entries/xd0/photos/xp0"]
            routes += visits.flatMap { ["visits/\($0)", "visits/\($0)/history", "visits/\($0)/photos/p0"] }
            routes += ["reviews/week/", "reviews/month/"].enumerated().map { i, r in r + (Self.reviews(twoDaysAgo)[i].split(separator: "/").last.map(String.init) ?? "") }
            for type in HealthDataType.allCases {
                for range in ["week", "month", "year"] { routes.append("health/trends?type=\(type.rawValue)&range=\(range)") }
            }
            for route in routes {
                let answer = try await api.call(.get, "/api/v1/" + route)
                if answer.status.code >= 500 { failures.append("/api/v1/\(route): \(answer.status.code)") }
            }
            #expect(asked > 40, "the walk reached only \(asked) addresses")
            #expect(failures.isEmpty, "server errors: \(failures)")
            // Still serving.
            #expect(try await browser.get("/").status == .ok)
        }
    }

    struct IDRow: Decodable { let id: String }
}
