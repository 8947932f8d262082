import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// Health Auto Export's REST API automation posting to `POST /api/v1/health/auto-export` (issue 32),
/// through the real router: the app's payloads, re-posts, tokens, bad values and bad bodies.
@Suite(.serialized) struct HealthAutoExportTests {
    static let path = "/api/v1/health/auto-export"

    static func post(_ api: APIClient, _ body: Data) async throws -> Browser.Page {
        try await api.call(.post, path, body: body, contentType: "application/json")
    }

    static func kind(_ response: AutoExportResponse, _ name: String) -> ImportReport.Kind? { response.report.kinds.first { $0.kind == name } }

    @Test func theAppsPayloadsAreStoredAndARepostAddsNothing() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            let v2 = try HealthAutoExportParseTests.fixture("v2-night-and-run.json")
            let first = try await Self.post(api, v2)
            #expect(first.status == .ok, "\(first.body)")
            let answer = try APIClient.decode(AutoExportResponse.self, first)
            #expect(Self.kind(answer, "sleep_analysis")?.added == 6)
            #expect(Self.kind(answer, "step_count")?.added == 2)
            #expect(Self.kind(answer, "heart_rate")?.added == 2)
            #expect(Self.kind(answer, "Workout")?.added == 1)
            #expect(Self.kind(answer, "Location")?.added == 2)
            #expect(Self.kind(answer, HealthAutoExport.workoutHeartRateKind)?.added == 2)
            #expect(answer.skipped == 0)
            #expect(answer.summary.contains { $0.hasPrefix("sleep_analysis: 6 added") })

            // The app sends the same range again (and again): nothing more, all of it reported as already there.
            let again = try APIClient.decode(AutoExportResponse.self, try await Self.post(api, v2))
            #expect(again.added == 0)
            #expect(again.duplicates == answer.added)
            #expect(Self.kind(again, "sleep_analysis")?.duplicates == 6)
            let steps = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records?type=steps"))
            #expect(steps.map(\.value).sorted() == [1200, 3400])
            let weight = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records?type=weight"))
            #expect(weight.count == 1 && abs((weight.first?.value ?? 0) - 68.04) < 0.01)

            // Sleep by night: 6.5 h asleep (the stages overlap across two sources; their sum is 8 h), on the date it ended.
            let sleep = try APIClient.decode(TrendResponse.self,
                                             try await api.call(.get, "/api/v1/health/trends?type=sleep&from=2024-02-01&to=2024-02-10"))
            #expect(sleep.points.map(\.value) == [6.5])
            #expect(sleep.points.first.map { DayKey($0.date, timeZone: .gmt).description } == "2024-02-06")
            #expect(sleep.insights.first?.title == "6.5 h asleep a night")
            let hrv = try APIClient.decode(TrendResponse.self,
                                           try await api.call(.get, "/api/v1/health/trends?type=heartRateVariability&from=2024-02-01&to=2024-02-10"))
            #expect(hrv.unit == "ms" && hrv.points.map(\.value) == [48.2])
            let resting = try APIClient.decode(TrendResponse.self,
                                               try await api.call(.get, "/api/v1/health/trends?type=restingHeartRate&from=2024-02-01&to=2024-02-10"))
            #expect(resting.points.map(\.value) == [56])

            // The day page draws the night, once per stage, and says the hours asleep.
            let day = try await browser.get(JournalPaths.day("2024-02-06"))
            #expect(day.body.contains("id=\"day-sleep\""))
            #expect(day.body.contains("6.5 h asleep"))
            #expect(day.body.contains("class=\"sleep-chart\""))
            #expect(day.body.components(separatedBy: "class=\"stage-deep\"").count - 1 == 1)

            // The other fixtures: version 1 metrics, a version 1 workout with its route, a summarized night.
            for name in ["metrics-v1.json", "workout-v1.json", "sleep-aggregated-v1.json"] {
                let page = try await Self.post(api, try HealthAutoExportParseTests.fixture(name))
                #expect(page.status == .ok, "\(name): \(page.body)")
                let report = try APIClient.decode(AutoExportResponse.self, page)
                #expect(report.added > 0 && report.skipped == 0, "\(name): \(report.summary)")
                #expect(try APIClient.decode(AutoExportResponse.self, try await Self.post(api, try HealthAutoExportParseTests.fixture(name))).added == 0)
            }
            let summarized = try APIClient.decode(TrendResponse.self,
                                                  try await api.call(.get, "/api/v1/health/trends?type=sleep&from=2021-12-17&to=2021-12-19"))
            #expect(summarized.points.count == 1 && abs((summarized.points.first?.value ?? 0) - 6.108333333333333) < 1e-9)
        }
    }

    @Test func tokensWithoutWriteAndCallersWithoutATokenAreRefused() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let body = try HealthAutoExportParseTests.fixture("metrics-v1.json")
            let readOnly = APIClient(browser: browser, token: try await browser.createToken(name: "read", scopes: [.read]))
            let refused = try await Self.post(readOnly, body)
            #expect(refused.status == .forbidden)
            #expect(refused.body.contains("token_scope_missing"))
            // The diary scope is not the write scope.
            let diary = APIClient(browser: browser, token: try await browser.createToken(name: "diary", scopes: [.read, .diary]))
            #expect(try await Self.post(diary, body).status == .forbidden)
            #expect(try await Self.post(APIClient(browser: browser, token: nil), body).status == .unauthorized)
            #expect(try await Self.post(APIClient(browser: browser, token: "hibi_not-a-token"), body).status == .unauthorized)
            let writer = APIClient(browser: browser, token: try await browser.createToken(name: "app", scopes: [.read, .write]))
            let records = try APIClient.decode([HealthRecordResponse].self, try await writer.call(.get, "/api/v1/health/records"))
            #expect(records.isEmpty)
        }
    }

    @Test func badValuesAreSkippedWithAReasonAndTheRestIsKept() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            let body = """
            {"data": {"metrics": [
              42,
              {"name": "heart_rate", "units": "count/min", "data": [
                {"date": "2024-03-01 08:00:00 +0900", "Min": 60, "Avg": 900, "Max": 1000},
                {"date": "2024-03-01 08:01:00 +0900", "Min": 60, "Avg": 64, "Max": 70}]},
              {"name": "step_count", "units": "count", "data": [
                {"date": "2024-03-01 09:00:00 +0900", "qty": "many"},
                {"date": "yesterday", "qty": 10},
                {"date": "2024-03-01 10:00:00 +0900", "qty": 1e19},
                {"date": "2024-03-01 11:00:00 +0900", "qty": 250}]},
              {"name": "weight_body_mass", "units": "furlongs", "data": [{"date": "2024-03-01 07:00:00 +0900", "qty": 60}]},
              {"name": "resting_heart_rate", "units": "bpm", "data": "broken"}
            ]}}
            """
            let page = try await Self.post(api, Data(body.utf8))
            #expect(page.status == .ok, "\(page.body)")
            let answer = try APIClient.decode(AutoExportResponse.self, page)
            #expect(Self.kind(answer, "heart_rate")?.added == 1)
            #expect(Self.kind(answer, "heart_rate")?.skipped.map(\.reason) == [.implausibleValue])
            #expect(Self.kind(answer, "heart_rate")?.skipped.first?.firstAt == "data.metrics[1].data[0]")
            #expect(Self.kind(answer, "step_count")?.added == 1)
            #expect(Self.kind(answer, "step_count")?.skipped.map(\.reason) == [.missingValue, .unparseableDate, .implausibleValue])
            #expect(Self.kind(answer, "weight_body_mass")?.skipped.map(\.reason) == [.unknownUnit])
            #expect(Self.kind(answer, "metrics")?.skipped.map(\.reason) == [.missingValue])
            #expect(Self.kind(answer, "resting_heart_rate")?.skipped.map(\.reason) == [.missingValue])
            #expect(answer.added == 2 && answer.skipped == 7)
            let heart = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records?type=heartRate"))
            #expect(heart.map(\.value) == [64])
        }
    }

    @Test func bodiesThatAreNotThePayloadGetA4xx() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            let notJSON = try await Self.post(api, Data("metrics=1".utf8))
            #expect(notJSON.status == .unprocessableContent)
            #expect(notJSON.body.contains("invalid_payload"))
            #expect(try await Self.post(api, Data(#"{"metrics": []}"#.utf8)).status == .unprocessableContent)
            #expect(try await Self.post(api, Data(#"{"data": {"workouts": "x"}}"#.utf8)).status == .unprocessableContent)
            let records = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records"))
            #expect(records.isEmpty)
        }
    }

    /// `count` minutes of heart rate from 2024-01-01 00:00 UTC, one point a minute, about 100 bytes each.
    static func heartRate(minutes count: Int, name: String = "heart_rate") -> String {
        var out = #"{"name": ""# + name + #"", "units": "count/min", "data": ["#
        let start = Date(timeIntervalSince1970: 1_704_067_200)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = .gmt
        format.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        for minute in 0..<count {
            let stamp = format.string(from: start.addingTimeInterval(TimeInterval(minute * 60)))
            out += (minute == 0 ? "" : ",\n") + #"{"date": "\#(stamp)", "Min": \#(50 + minute % 20), "Avg": \#(60 + minute % 30), "Max": 99, "source": "Apple Watch"}"#
        }
        return out + "]}"
    }

    static func document(_ metrics: [String]) -> Data {
        Data((#"{"data": {"metrics": ["# + metrics.joined(separator: ",\n") + "]}}").utf8)
    }

    static func heartRecords(_ api: APIClient, minute: Int) async throws -> [HealthRecordResponse] {
        let at = Date(timeIntervalSince1970: TimeInterval(1_704_067_200 + minute * 60)).ISO8601Format()
        return try APIClient.decode([HealthRecordResponse].self,
                                    try await api.call(.get, "/api/v1/health/records?type=heartRate&from=\(at)&to=\(at)"))
    }

    @Test func aPushLargerThanTheOldEightMegabyteCapIsStoredWholeAndOnce() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            // 90,000 minutes (two months) of heart rate, the points before the metric's name in the second one,
            // as the app may write them.
            let minutes = 90_000
            let late = Self.heartRate(minutes: 3, name: "resting_heart_rate").replacingOccurrences(of: #""name": "resting_heart_rate", "units": "count/min", "#, with: "")
                .dropLast() + #", "units": "count/min", "name": "resting_heart_rate"}"#
            let body = Self.document([Self.heartRate(minutes: minutes), String(late)])
            #expect(body.count > 8 * 1_048_576)
            let page = try await Self.post(api, body)
            #expect(page.status == .ok, "\(page.body.prefix(300))")
            let answer = try APIClient.decode(AutoExportResponse.self, page)
            #expect(Self.kind(answer, "heart_rate")?.added == minutes)
            #expect(Self.kind(answer, "resting_heart_rate")?.added == 3)
            #expect(answer.added == minutes + 3 && answer.skipped == 0)
            // The last minute is there with its value and range.
            let last = try await Self.heartRecords(api, minute: minutes - 1)
            #expect(last.map(\.value) == [Double(60 + (minutes - 1) % 30)])
            // Sent again: everything is already there, nothing doubles.
            let again = try APIClient.decode(AutoExportResponse.self, try await Self.post(api, body))
            #expect(again.added == 0 && again.duplicates == minutes + 3)
        }
    }

    @Test func aBodyThatGoesWrongHalfwayStoresNothingAndItsRetryAddsEverything() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            let minutes = 20_000
            let good = Self.document([Self.heartRate(minutes: minutes)])
            // Well past the writer's first batch (8,000 records), one point is broken JSON; another body breaks off.
            let text = String(decoding: good, as: UTF8.self)
            let broken = text.replacingOccurrences(of: #"{"date": "2024-01-12 00:00:00 +0000""#, with: #"{"date": "2024-01-12 00:00:00 +0000", "qty": ,"#)
            #expect(broken != text)
            let cut = good.prefix(good.count * 3 / 4)
            for body in [Data(broken.utf8), Data(cut), good + Data(" }".utf8)] {
                let page = try await Self.post(api, body)
                #expect(page.status == .unprocessableContent)
                #expect(page.body.contains("invalid_payload"))
                #expect(try await Self.heartRecords(api, minute: 0).isEmpty)
            }
            let retry = try APIClient.decode(AutoExportResponse.self, try await Self.post(api, good))
            #expect(retry.added == minutes && retry.duplicates == 0)
        }
    }

    @Test func aBodyPastTheLimitGets413AndACallerWithoutATokenGets401BeforeItIsRead() async throws {
        var config = try await TestApp.config()
        config.healthAutoExportMaxBytes = 1_048_576
        let spools = (config.dataDirectory as NSString).appendingPathComponent("health-auto-export")
        try await TestApp.run(config: config) { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            var big = Data("{\"data\": {\"metrics\": [".utf8)
            big.append(Data(repeating: 0x20, count: 2 * 1_048_576))
            // Past the limit: 413 before anything is parsed or stored, and the spool is gone.
            let tooLarge = try await Self.post(api, big)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.body.contains("body_too_large"))
            // Without a token the same body is refused as unauthenticated: the token is checked before the body is read.
            #expect(try await Self.post(APIClient(browser: browser, token: nil), big).status == .unauthorized)
            #expect(try await Self.post(APIClient(browser: browser, token: "hibi_not-a-token"), big).status == .unauthorized)
            // Under the limit it is read, and nothing is left behind in the spool folder.
            #expect(try await Self.post(api, Self.document([Self.heartRate(minutes: 10)])).status == .ok)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: spools)) ?? []).isEmpty)
        }
    }
}

/// Migration 28: heart rate variability an export stored under Apple's identifier becomes the known type.
@Suite(.serialized) struct HeartRateVariabilityMigrationTests {
    @Test func storedSDNNRecordsTakeTheKnownTypeAndAReimportFindsThem() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        var failure: (any Error)?
        do {
            _ = try await Migrator(database: database, migrations: Schema.all.filter { $0.version < 28 }, logger: TestApp.quietLogger).migrate()
            try await database.sql.raw("""
                INSERT INTO users (id, username, display_name, password_hash, is_admin, disabled, time_zone, created_at, password_changed_at) \
                VALUES ('u1', 'aiko', 'Aiko', 'x', \(bind: false), \(bind: false), 'UTC', 0, 0)
                """).run()
            let old = HealthRecordDraft(type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", value: 41.5, unit: "ms", start: 1_700_000_000,
                                        end: 1_700_000_000, device: "Apple Watch")
            let store = HealthRecordStore(database: database)
            #expect(try await store.insert([old], userID: "u1", source: .appleHealth, now: Date()) == 1)
            #expect(try await Migrator(database: database, logger: TestApp.quietLogger).migrate().contains(28))
            #expect(try await store.list(userID: "u1", filter: .init(type: "heartRateVariability")).map(\.value) == [41.5])
            var again = old
            again.type = "heartRateVariability"
            #expect(try await store.insert([again], userID: "u1", source: .appleHealth, now: Date()) == 0)
        } catch {
            failure = error
        }
        await database.shutdown()
        if let failure { throw failure }
    }
}

/// Sleep stages from an Apple Health export (HKCategoryTypeIdentifierSleepAnalysis records, two sources
/// over one night) counted once in the trend, the journal's day and the day page.
@Suite(.serialized) struct ExportSleepNightTests {
    static func record(_ source: String, _ value: String, _ start: String, _ end: String) -> String {
        #"<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="\#(source)" value="HKCategoryValueSleepAnalysis\#(value)" "#
            + #"startDate="\#(start) +0900" endDate="\#(end) +0900"/>"#
    }

    @Test func aNightFromTwoSourcesCountsSixHoursNotNineAndAHalf() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let xml = "<?xml version=\"1.0\"?>\n<HealthData locale=\"ja_JP\">\n" + [
                Self.record("iPhone", "InBed", "2024-05-04 22:30:00", "2024-05-05 05:30:00"),
                Self.record("Apple Watch", "AsleepCore", "2024-05-04 23:00:00", "2024-05-05 01:00:00"),
                Self.record("Apple Watch", "AsleepDeep", "2024-05-05 01:00:00", "2024-05-05 02:00:00"),
                Self.record("Apple Watch", "AsleepREM", "2024-05-05 02:00:00", "2024-05-05 05:00:00"),
                Self.record("Apple Watch", "Awake", "2024-05-05 05:00:00", "2024-05-05 05:15:00"),
                Self.record("AutoSleep", "Asleep", "2024-05-04 23:30:00", "2024-05-05 03:00:00"),
            ].joined(separator: "\n") + "\n</HealthData>\n"
            let upload = try await api.call(.post, "/api/v1/health/imports?name=export.xml", body: Data(xml.utf8), contentType: "application/octet-stream")
            #expect(upload.status == .accepted, "\(upload.body)")
            var job = try APIClient.decode(ImportJobResponse.self, upload)
            for _ in 0..<200 where job.state != "done" && job.state != "failed" {
                try await Task.sleep(for: .milliseconds(50))
                job = try APIClient.decode(ImportJobResponse.self, try await api.call(.get, "/api/v1/health/imports/\(job.id)"))
            }
            #expect(job.state == "done" && job.inserted == 6)
            // Asleep 23:00–05:00 (the app's "asleep" lies inside the watch's stages); the records add up to 9.5 h.
            let trend = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=sleep&from=2024-05-01&to=2024-05-10"))
            #expect(trend.points.map(\.value) == [6])
            let timeline = try await api.call(.get, "/api/v1/timeline?before=2024-06-01&limit=5")
            let days = try #require((try JSONSerialization.jsonObject(with: timeline.data) as? [String: Any])?["days"] as? [[String: Any]])
            #expect(days.map { $0["date"] as? String } == ["2024-05-05"])
            #expect(days.first?["sleepHours"] as? Double == 6)
            let page = try await browser.get(JournalPaths.day("2024-05-05"))
            #expect(page.body.contains("6 h asleep"))
            #expect(page.body.contains("data-stage=\"inBed\"") && page.body.contains("class=\"stage-rem\""))
            // The evening it started on has no night of its own.
            #expect(!(try await browser.get(JournalPaths.day("2024-05-04"))).body.contains("id=\"day-sleep\""))
        }
    }
}
