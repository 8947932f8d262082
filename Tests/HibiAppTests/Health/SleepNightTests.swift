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
