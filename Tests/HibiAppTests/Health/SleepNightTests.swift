import Foundation
import Testing
@testable import HibiApp

/// Nights from sleep samples, on nights whose answer is worked out by hand.
@Suite struct SleepNightTests {
    static let tokyo = TimeZone(identifier: "Asia/Tokyo") ?? .gmt
    /// 2024-02-05 00:00 in Tokyo, in Unix seconds.
    static let feb5 = Int64(AppleHealthMapping.parseDate("2024-02-05 00:00:00 +0900") ?? 0)

    static func at(_ hours: Double) -> Int64 { feb5 + Int64(hours * 3600) }
    static func stage(_ stage: SleepNights.Stage, _ from: Double, _ to: Double) -> SleepNights.Sample {
        SleepNights.Sample(start: at(from), end: at(to), stage: stage, hours: Double(at(to) - at(from)) / 3600, isTotal: false)
    }

    @Test func overlappingStagesFromTwoSourcesAreCountedOnce() {
        // The fixture's night (v2-night-and-run.json): a watch's stages, a phone's time in bed, another app's "asleep".
        let samples = [
            Self.stage(.core, 23, 25), Self.stage(.deep, 24.5, 25.5), Self.stage(.awake, 25.5, 26), Self.stage(.rem, 26, 30),
            Self.stage(.inBed, 22.75, 30.25), Self.stage(.asleep, 24, 25),
        ]
        let nights = SleepNights.nights(samples, timeZone: Self.tokyo)
        #expect(nights.count == 1)
        let night = try? #require(nights.first)
        // Asleep: 23:00–01:30 (core, deep and the other app's hour overlap) and 02:00–06:00 = 6.5 h, not the 8 h the samples add up to.
        #expect(night?.asleepHours == 6.5)
        #expect(night?.inBedHours == 7.5)
        #expect(night?.stageHours[.core] == 2 && night?.stageHours[.deep] == 1 && night?.stageHours[.rem] == 4)
        #expect(night?.stageHours[.awake] == 0.5)
        // Ends at 06:15 on 6 February (Tokyo): the night is the 6th's, the date it ends on.
        #expect(night?.day == Int(DayKey("2024-02-06")?.daysSince1970 ?? 0))
        #expect(night?.fromTotals == false)
    }

    @Test func theSameStageFromTwoSourcesIsTheUnionNotTheSum() {
        let night = SleepNights.nights([Self.stage(.core, 23, 27), Self.stage(.core, 24, 28)], timeZone: Self.tokyo).first
        #expect(night?.asleepHours == 5)
        #expect(night?.stageHours[.core] == 5)
        #expect(night?.intervals[.core] == [Self.at(23)...Self.at(28)])
    }

    @Test func aNightBeforeMidnightAndAfterIsOneNightOnTheWakeUpDate() {
        // Samples that end before midnight belong to the night that ends the next morning, not to the evening's date.
        let night = SleepNights.nights([Self.stage(.core, 22, 23.9), Self.stage(.deep, 24.2, 31)], timeZone: Self.tokyo)
        #expect(night.count == 1)
        #expect(night.first?.day == Int(DayKey("2024-02-06")?.daysSince1970 ?? 0))
        #expect(abs((night.first?.asleepHours ?? 0) - 8.7) < 1e-9)
    }

    @Test func aNapHoursLaterIsItsOwnSleep() {
        let nights = SleepNights.nights([Self.stage(.core, 23, 30), Self.stage(.asleep, 38, 39)], timeZone: Self.tokyo)
        #expect(nights.map(\.asleepHours) == [7, 1])
        #expect(Set(nights.map(\.day)).count == 1)
    }

    @Test func totalsCountOnlyWithoutStagesAndTheLargestWins() {
        // The app re-sends a summarized night with a later capture: two totals for one stage are one night, not two.
        let first = SleepNights.Sample(start: Self.at(23), end: Self.at(29), stage: .asleep, hours: 5.5, isTotal: true)
        let again = SleepNights.Sample(start: Self.at(23), end: Self.at(30), stage: .asleep, hours: 6.1, isTotal: true)
        let deep = SleepNights.Sample(start: Self.at(23), end: Self.at(30), stage: .deep, hours: 1, isTotal: true)
        let night = SleepNights.nights([first, again, deep], timeZone: Self.tokyo).first
        #expect(abs((night?.asleepHours ?? 0) - 7.1) < 1e-9)
        #expect(night?.fromTotals == true)
        // Once stage samples exist for the night, totals do not add to them.
        let mixed = SleepNights.nights([first, Self.stage(.core, 23, 29)], timeZone: Self.tokyo).first
        #expect(mixed?.asleepHours == 6)
    }

    @Test func onlyInBedIsNotHoursAsleep() {
        let nights = SleepNights.nights([Self.stage(.inBed, 22, 30)], timeZone: Self.tokyo)
        #expect(nights.first?.asleepHours == 0 && nights.first?.inBedHours == 8)
        #expect(SleepNights.trendSamples(nights).isEmpty)
        #expect(SleepNights.averageInsight(nights) == nil)
    }

    @Test func theAverageInsightNamesTheNights() throws {
        let nights = SleepNights.nights([Self.stage(.core, 23, 30), Self.stage(.core, 47, 53)], timeZone: Self.tokyo)
        let insight = try #require(SleepNights.averageInsight(nights))
        #expect(insight.title.en == "6.5 h asleep a night")
        #expect(insight.description.en.contains("2 nights"))
        #expect(insight.title.ja.contains("6.5"))
    }

    @Test func theChartDrawsEachStageOnceAndEscapesNothingItDidNotWrite() throws {
        let night = try #require(SleepNights.nights([Self.stage(.core, 23, 27), Self.stage(.core, 24, 28), Self.stage(.rem, 28, 30)],
                                                    timeZone: Self.tokyo).first)
        let svg = try #require(HealthGraphics.sleepChart(night, timeZone: Self.tokyo, language: .ja))
        #expect(svg.components(separatedBy: "class=\"stage-core\"").count - 1 == 1)
        #expect(svg.components(separatedBy: "class=\"stage-rem\"").count - 1 == 1)
        #expect(svg.contains("コア睡眠") && svg.contains(">0:00<"))
    }
}

/// Health Auto Export payloads read into records, without a server.
@Suite struct HealthAutoExportParseTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/health-auto-export/\(name)"))
    }

    @Test func version1MetricsAreConvertedLikeTheExport() throws {
        let payload = try HealthAutoExport.parse(try Self.fixture("metrics-v1.json"))
        #expect(payload.records.map(\.kind) == ["active_energy", "active_energy"])
        let first = try #require(payload.records.first?.draft)
        #expect(first.type == "activeCalories" && first.unit == "kcal")
        #expect(abs(first.value - 0.76856774374845116 / 4.184) < 1e-12)
        #expect(first.start == AppleHealthMapping.parseDate("2021-12-24 00:04:00 +0800"))
        #expect(payload.skips.isEmpty)
    }

    @Test func version1WorkoutKeepsRouteHeartRateStepsAndEnergy() throws {
        let payload = try HealthAutoExport.parse(try Self.fixture("workout-v1.json"))
        let workout = try #require(payload.workouts.first)
        #expect(workout.activity == "Walking")
        #expect(abs(workout.durationMinutes - 19.1666666) < 1e-5)
        #expect(abs((workout.energyKcal ?? 0) - 226.21122641832523 / 4.184) < 1e-9)
        #expect(workout.points == [WorkoutRoutePoint(t: AppleHealthMapping.parseDate("2021-12-24 08:04:45 +0800") ?? 0, lat: 38.8951, lon: -77.0364,
                                                     ele: 8.0276222229003906)])
        #expect(workout.record.details?.contains("\"stepCount\":\"908\"") == true)
        #expect(workout.record.details?.contains("\"elevationAscentM\":\"16.36\"") == true)
        #expect(payload.records.map(\.kind) == [HealthAutoExport.workoutHeartRateKind])
        #expect(payload.records.first?.draft.type == "heartRate" && payload.records.first?.draft.value == 108)
    }

    @Test func version2RunAndStagesUseTheExportsNames() throws {
        let payload = try HealthAutoExport.parse(try Self.fixture("v2-night-and-run.json"))
        let run = try #require(payload.workouts.first)
        #expect(run.activity == "Running" && run.durationMinutes == 45 && run.distanceKm == 5.2 && run.energyKcal == 450)
        #expect(run.points.count == 2)
        let sleep = payload.records.filter { $0.kind == "sleep_analysis" }.map(\.draft)
        #expect(sleep.map(\.category) == ["AsleepCore", "AsleepDeep", "Awake", "AsleepREM", "InBed", "Asleep"])
        #expect(sleep.allSatisfy { $0.type == "sleep" && $0.unit == "h" })
        let hrv = payload.records.first { $0.kind == "heart_rate_variability" }?.draft
        #expect(hrv?.type == "heartRateVariability" && hrv?.value == 48.2 && hrv?.unit == "ms")
        let weight = payload.records.first { $0.kind == "weight_body_mass" }?.draft
        #expect(abs((weight?.value ?? 0) - 68.0388555) < 1e-6 && weight?.unit == "kg")
        let heart = payload.records.filter { $0.kind == "heart_rate" }.map(\.draft)
        #expect(heart.map(\.value) == [72, 70.5])
        #expect(heart.first?.details == #"{"max":"85","min":"65"}"#)
    }

    @Test func summarizedSleepIsMarkedAsTotals() throws {
        let payload = try HealthAutoExport.parse(try Self.fixture("sleep-aggregated-v1.json"))
        let drafts = payload.records.map(\.draft)
        #expect(drafts.map(\.category) == ["Asleep", "InBed"])
        #expect(drafts.map(\.device) == ["Irvin’s Apple Watch", "iPhone"])
        #expect(drafts.allSatisfy { $0.details?.contains(HealthAutoExport.aggregatedMarker) == true })
    }

    @Test func notThePayloadIsRefusedAndOtherListsAreReported() {
        #expect(throws: HealthAutoExport.Failure.notJSON) { try HealthAutoExport.parse(Data("{".utf8)) }
        #expect(throws: HealthAutoExport.Failure.self) { try HealthAutoExport.parse(Data(#"{"metrics": []}"#.utf8)) }
        #expect(throws: HealthAutoExport.Failure.self) { try HealthAutoExport.parse(Data(#"{"data": {"metrics": {}}}"#.utf8)) }
        let payload = try? HealthAutoExport.parse(Data(#"{"data": {"symptoms": [{}, {}]}}"#.utf8))
        #expect(payload?.skips.map(\.reason) == [.unsupported, .unsupported])
    }
}

/// Sleep goals count hours asleep per night (issue 32): stages and sources that overlap once, a night on
/// the day it ends, a nap beside it. Summing the records counted one night two or three times.
@Suite(.serialized) struct SleepGoalTests {
    @Test func hoursAsleepInTheWindowCountEachNightOnce() {
        let t = SleepNightTests.self
        // Yesterday's night (ends 5 Feb 07:00), last night across midnight with overlapping stages, an afternoon nap.
        let samples = [
            t.stage(.core, -1, 7),
            t.stage(.inBed, 23, 30.75), t.stage(.core, 23.5, 27), t.stage(.deep, 25, 26), t.stage(.rem, 27, 29), t.stage(.core, 29, 30.5),
            t.stage(.awake, 30.5, 30.75), t.stage(.asleep, 24, 28),
            t.stage(.asleep, 38, 38.75),
        ]
        let nights = SleepNights.nights(samples, timeZone: SleepNightTests.tokyo)
        let sixth = t.at(24)...t.at(48) - 1
        // 23:30–06:30 asleep (7 h; the samples add up to 13.5 h) and the 45-minute nap.
        #expect(SleepNights.asleepHours(nights, endingIn: sixth) == 7.75)
        #expect(SleepNights.asleepHours(nights, endingIn: t.at(0)...t.at(24) - 1) == 8)
        #expect(SleepNights.asleepHours(nights, endingIn: t.at(48)...t.at(72)) == 0)
    }

    static func stage(_ value: String, _ from: String, _ to: String, source: String = "Apple Watch") -> String {
        #"{"startDate": "2024-02-\#(from) +0900", "endDate": "2024-02-\#(to) +0900", "qty": 1, "value": "\#(value)", "source": "\#(source)"}"#
    }

    @Test func aDailySleepGoalCountsLastNightAndTheNapOnceThroughTheRouter() async throws {
        // 20:00 on 6 February in Tokyo, the person's time zone.
        let now = Date(timeIntervalSince1970: TimeInterval(AppleHealthMapping.parseDate("2024-02-06 20:00:00 +0900") ?? 0))
        try await TestApp.run(clock: WallClock { now }) { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken(scopes: [.read, .write]))
            let night = [
                Self.stage("Core", "04 23:00:00", "05 07:00:00"),  // the night before: not today's
                Self.stage("In Bed", "05 23:00:00", "06 06:45:00", source: "iPhone"), Self.stage("Core", "05 23:30:00", "06 03:00:00"),
                Self.stage("Deep", "06 01:00:00", "06 02:00:00"), Self.stage("REM", "06 03:00:00", "06 05:00:00"),
                Self.stage("Core", "06 05:00:00", "06 06:30:00"), Self.stage("Awake", "06 06:30:00", "06 06:45:00"),
                Self.stage("Asleep", "06 00:00:00", "06 04:00:00", source: "AutoSleep"),
            ]
            func push(_ samples: [String]) async throws {
                let body = #"{"data": {"metrics": [{"name": "sleep_analysis", "units": "hr", "data": ["# + samples.joined(separator: ",") + "]}]}}"
                let page = try await HealthAutoExportTests.post(api, Data(body.utf8))
                #expect(page.status == .ok, "\(page.body.prefix(300))")
            }
            try await push(night)
            let created = try await api.call(.post, "/api/v1/health/goals", json: #"{"type": "sleep", "targetValue": 7.5}"#)
            #expect(created.status == .created, "\(created.body)")
            // 23:30–06:30 asleep is 7 h; today's records add up to 20 h, which read the goal as reached.
            var goal = try APIClient.decode(GoalResponse.self, created)
            #expect(goal.currentValue == 7)
            #expect(goal.status == "active" && goal.achievedAt == nil)
            func goalBadge() async throws -> Bool? {
                try APIClient.decode([BadgeResponse].self, try await api.call(.get, "/api/v1/health/badges")).first { $0.key == "goal-1" }?.earned
            }
            #expect(try await goalBadge() == false)
            // A 45-minute nap in the afternoon is sleep of the same day: 7.75 h reaches the goal.
            try await push([Self.stage("Asleep", "06 14:00:00", "06 14:45:00")])
            goal = try #require(try APIClient.decode([GoalResponse].self, try await api.call(.get, "/api/v1/health/goals")).first)
            #expect(goal.currentValue == 7.75)
            #expect(goal.status == "achieved")
            #expect(try await goalBadge() == true)
        }
    }
}

/// The streamed reading of a Health Auto Export body: the same payload whatever the chunks, the keys in any
/// order, and the mistakes only the stream sees.
@Suite struct HealthAutoExportStreamTests {
    static func streamed(_ data: Data, chunk: Int) throws -> HealthAutoExport.Payload {
        var outline = HealthAutoExport.Outline()
        var offset = 0
        while offset < data.count {
            try outline.feed(data.subdata(in: offset..<min(data.count, offset + chunk)))
            offset += chunk
        }
        var reader = HealthAutoExport.Reader(try outline.finish())
        var payload = HealthAutoExport.Payload()
        offset = 0
        while offset < data.count {
            try reader.feed(data.subdata(in: offset..<min(data.count, offset + chunk)), into: &payload)
            offset += chunk
        }
        reader.finish(into: &payload)
        return payload
    }

    static func summary(_ payload: HealthAutoExport.Payload) -> [String] {
        payload.records.map { "\($0.kind) \($0.draft.type) \($0.draft.value) \($0.draft.start) \($0.draft.category)" }
            + payload.workouts.map { "workout \($0.activity) \($0.points.count)" }
            + payload.skips.map { "skip \($0.kind) \($0.reason) \($0.at)" }
    }

    @Test func anyChunkSizeReadsTheSamePayload() throws {
        for name in ["metrics-v1.json", "workout-v1.json", "v2-night-and-run.json", "sleep-aggregated-v1.json"] {
            let data = try HealthAutoExportParseTests.fixture(name)
            let whole = Self.summary(try HealthAutoExport.parse(data))
            #expect(!whole.isEmpty)
            for chunk in [1, 7, 4096] { #expect(Self.summary(try Self.streamed(data, chunk: chunk)) == whole, "\(name) in chunks of \(chunk)") }
        }
    }

    @Test func pointsBeforeTheMetricsNameAndUnitsAreReadWithThem() throws {
        let body = #"{"data": {"metrics": [{"data": [{"date": "2024-03-01 08:00:00 +0900", "qty": 2.5}], "units": "km", "name": "walking_running_distance"}, "#
            + #"42, {"name": "heart_rate", "data": "broken"}], "symptoms": [{}, {"a": [1]}], "workouts": []}}"#
        let payload = try HealthAutoExport.parse(Data(body.utf8))
        #expect(payload.records.map(\.kind) == ["walking_running_distance"])
        #expect(payload.records.first?.draft.value == 2.5)
        #expect(payload.skips.map { "\($0.kind) \($0.at)" }
            == ["metrics data.metrics[1]", "heart_rate data.metrics[2].data", "symptoms data.symptoms[0]", "symptoms data.symptoms[1]"])
    }

    @Test func mistakesAnywhereInTheBodyAreNotJSON() {
        let good = #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "2024-03-01 08:00:00 +0900", "qty": 1}]}]}}"#
        #expect((try? HealthAutoExport.parse(Data(good.utf8)))?.records.count == 1)
        for bad in [good.replacingOccurrences(of: #""qty": 1}"#, with: #""qty": 1},,"#), good.replacingOccurrences(of: #""qty": 1}"#, with: #""qty": 1},"#),
                    good.replacingOccurrences(of: #""qty": 1"#, with: #""qty": "#), good + "}", good + " x", String(good.dropLast(3)),
                    good.replacingOccurrences(of: #"}]}]}}"#, with: #"}]]}}"#)] {
            #expect(throws: HealthAutoExport.Failure.notJSON, "\(bad)") { try HealthAutoExport.parse(Data(bad.utf8)) }
        }
    }
}
