import Foundation
import Testing
@testable import HibiApp

struct HealthUnitTests {
    @Test func poundsMilesAndKilojoulesAreStoredInCanonicalUnits() throws {
        #expect(abs(try HealthUnits.normalize(150, unit: "lb", type: .weight) - 68.0388555) < 1e-6)
        #expect(abs(try HealthUnits.normalize(1, unit: "mi", type: .walkingRunningDistance) - 1.609344) < 1e-9)
        #expect(abs(try HealthUnits.normalize(4184, unit: "kJ", type: .activeCalories) - 1000) < 1e-9)
        #expect(try HealthUnits.normalize(90, unit: "min", type: .sleep) == 1.5)
        #expect(throws: HealthError.unknownUnit(unit: "kg", type: "steps")) { try HealthUnits.normalize(3, unit: "kg", type: .steps) }
    }

    @Test func valuesAreShownInTheUsersChoice() {
        let imperial = UnitPreferences(weight: .lb, distance: .mi, energy: .kJ)
        #expect(HealthFormat.value(68.0388555, type: "weight", preferences: imperial, language: .en) == "150 lb")
        #expect(HealthFormat.value(1.609344, type: "walkingRunningDistance", preferences: imperial, language: .en) == "1 mi")
        #expect(HealthFormat.value(1000, type: "activeCalories", preferences: imperial, language: .en) == "4,184 kJ")
        #expect(HealthFormat.value(64.26, type: "weight", preferences: .init(), language: .en) == "64.3 kg")
        #expect(HealthFormat.value(8123, type: "steps", preferences: .init(), language: .en) == "8,123")
    }

    @Test func manualEntryRejectsImplausibleValuesWithBilingualMessages() {
        let now = Date(timeIntervalSince1970: 1_717_200_000)
        #expect(throws: HealthError.self) { try HealthRules.validate(type: "steps", value: -5, unit: nil, start: now, end: nil, now: now) }
        let error = #expect(throws: HealthError.self) {
            try HealthRules.validate(type: "weight", value: 900, unit: "kg", start: now, end: nil, now: now)
        }
        #expect(error?.message(.en) == "Weight must be between 1 and 500 kg.")
        #expect(error?.message(.ja) == "体重は 1〜500 kg の範囲で入力してください。")
        #expect(throws: HealthError.futureDate) {
            try HealthRules.validate(type: "weight", value: 60, unit: "kg", start: now.addingTimeInterval(86400), end: nil, now: now)
        }
        #expect(throws: HealthError.endBeforeStart) {
            try HealthRules.validate(type: "sleep", value: 7, unit: "h", start: now, end: now.addingTimeInterval(-60), now: now)
        }
        #expect(throws: HealthError.unknownType("mood")) { try HealthRules.validate(type: "mood", value: 1, unit: nil, start: now, end: nil, now: now) }
        let ok = try? HealthRules.validate(type: "weight", value: 132.3, unit: "lb", start: now, end: nil, now: now)
        #expect(ok.map { abs($0.value - 60.01) < 0.01 } == true)
    }
}

struct StreakTests {
    func instant(_ text: String) -> Int64 { AppleHealthMapping.parseDate(text)! }

    @Test func severalRecordsADayCountOnceAndGapsBreakTheStreak() {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let instants = ["2024-05-01 08:00:00 +0900", "2024-05-01 21:00:00 +0900", "2024-05-02 07:00:00 +0900",
                        "2024-05-03 12:00:00 +0900", "2024-05-05 12:00:00 +0900", "2024-05-06 12:00:00 +0900"].map(instant)
        let days = StreakCalculator.localDays(instants, timeZone: tokyo)
        #expect(days.count == 5)
        #expect(StreakCalculator.longestStreak(days: days) == 3)
        let today = StreakCalculator.today(now: Date(timeIntervalSince1970: TimeInterval(instant("2024-05-07 09:00:00 +0900"))), timeZone: tokyo)
        #expect(StreakCalculator.currentStreak(days: days, today: today) == 2)
        #expect(StreakCalculator.currentStreak(days: days, today: today + 1) == 0)
    }

    @Test func daysFollowTheUsersTimeZone() {
        // 23:30 and 00:30 Tokyo time are two days in Tokyo but one day (14:30, 15:30 UTC) in London.
        let instants = [instant("2024-05-01 23:30:00 +0900"), instant("2024-05-02 00:30:00 +0900")]
        #expect(StreakCalculator.longestStreak(days: StreakCalculator.localDays(instants, timeZone: TimeZone(identifier: "Asia/Tokyo")!)) == 2)
        #expect(StreakCalculator.localDays(instants, timeZone: TimeZone(identifier: "Europe/London")!).count == 1)
        // Quarter-hour rounding, as the store does it, keeps days right in a +05:45 zone.
        let kathmandu = TimeZone(identifier: "Asia/Kathmandu")!
        let late = instant("2024-05-01 23:50:00 +0545")
        let rounded = late / 900 * 900
        #expect(StreakCalculator.localDays([late], timeZone: kathmandu) == StreakCalculator.localDays([rounded], timeZone: kathmandu))
    }
}

struct BadgeRuleTests {
    @Test func theSeedsDefaultBadgesComeFirstWithTheirTierColours() {
        #expect(Array(BadgeRules.all.prefix(3).map { $0.name.ja }) == ["はじめの一歩", "継続は力なり", "健康マスター"])
        #expect(BadgeRules.all[0].tier.colors == BadgeColorScheme(primary: "#CD7F32", secondary: "#8B4513", accent: "#FFD700"))
        #expect(BadgeRules.all[1].tier == .silver && BadgeRules.all[2].tier == .gold)
        #expect(BadgeTier.platinum.colors.primary == "#E5E4E2")
        #expect(Set(BadgeRules.all.map(\.requirement.type)).count == 5)
    }

    @Test func badgesAreAwardedOnceWhenTheirRequirementIsMet() {
        var facts = BadgeFacts(totalRecords: 1, longestStreakDays: 1)
        #expect(BadgeRules.newlyEarned(facts: facts, alreadyEarned: []).map(\.key) == ["first-step"])
        facts.longestStreakDays = 7
        #expect(BadgeRules.newlyEarned(facts: facts, alreadyEarned: ["first-step"]).map(\.key) == ["streak-7"])
        facts.longestStreakDays = 6
        #expect(BadgeRules.newlyEarned(facts: facts, alreadyEarned: ["first-step"]).isEmpty)
        facts = BadgeFacts(totalRecords: 5, goalsAchieved: 1, weightLossKg: 3.2, stepsTotal: 120_000)
        #expect(Set(BadgeRules.newlyEarned(facts: facts, alreadyEarned: ["first-step"]).map(\.key)) == ["goal-1", "weight-loss-3", "steps-100k"])
        #expect(BadgeRules.progress(BadgeRules.definition("steps-1m")!.requirement, facts: facts) == 0.12)
    }

    @Test func badgeImagesShowEarnedAndLockedStates() {
        let d = BadgeRules.all[0]
        let earned = HealthGraphics.badge(d, earned: true, language: .ja)
        let locked = HealthGraphics.badge(d, earned: false, language: .ja)
        #expect(earned.contains("#CD7F32") && earned.contains("はじめの一歩"))
        #expect(!earned.contains("(locked)") && locked.contains("(locked)"))
        #expect(locked.contains("opacity=\"0.3\""))
    }
}

struct GoalRuleTests {
    let now = Date(timeIntervalSince1970: 1_717_200_000)

    func goal(_ type: HealthDataType, target: Double, start: Double? = nil, deadlineIn days: Double = 10) -> Goal {
        Goal(id: "g", type: type, targetValue: target, deadline: now.addingTimeInterval(days * 86400), createdAt: now.addingTimeInterval(-86400 * 5),
             startValue: start, achievedAt: nil)
    }

    @Test func weightGoalsMeasureHowFarFromTheStartTowardsTheTarget() {
        let g = goal(.weight, target: 65, start: 70)
        let p = GoalRules.progress(goal: g, total: 0, latest: 68, now: now)
        #expect(abs(p.fraction - 0.4) < 1e-9 && p.status == .active)
        #expect(GoalRules.progress(goal: g, total: 0, latest: 64.9, now: now).status == .achieved)
        let gain = goal(.weight, target: 55, start: 50)
        #expect(abs(GoalRules.progress(goal: gain, total: 0, latest: 52.5, now: now).fraction - 0.5) < 1e-9)
    }

    @Test func cumulativeGoalsSumAndMissAfterTheDeadline() {
        let g = goal(.steps, target: 100_000)
        #expect(GoalRules.progress(goal: g, total: 25_000, latest: nil, now: now).fraction == 0.25)
        #expect(GoalRules.progress(goal: g, total: 100_000, latest: nil, now: now).status == .achieved)
        let late = goal(.steps, target: 100_000, deadlineIn: -1)
        #expect(GoalRules.progress(goal: late, total: 99_999, latest: nil, now: now).status == .missed)
        var done = late
        done.achievedAt = now.addingTimeInterval(-86400 * 3)
        #expect(GoalRules.progress(goal: done, total: 10, latest: nil, now: now).status == .achieved)
    }
}

struct TrendTests {
    @Test func movingAverageIsTrailingAndUsesWhatIsAvailableAtTheStart() {
        #expect(TrendAnalyzer.movingAverage([2, 4, 6, 8, 10], window: 3) == [2, 3, 4, 6, 8])
        #expect(TrendAnalyzer.movingAverage([], window: 7).isEmpty)
    }

    @Test func confidenceComesFromFitAndSampleSize() {
        let line = (0..<30).map { (Double($0), 70 - 0.1 * Double($0)) }
        let fit = TrendAnalyzer.linearFit(line)!
        #expect(abs(fit.slope + 0.1) < 1e-9 && abs(fit.r2 - 1) < 1e-9)
        #expect(TrendAnalyzer.confidence(r2: 1, count: 30) > TrendAnalyzer.confidence(r2: 1, count: 5))
        #expect(TrendAnalyzer.confidence(r2: 0.2, count: 30) < TrendAnalyzer.confidence(r2: 0.9, count: 30))
        #expect(TrendAnalyzer.confidence(r2: 1, count: 2) == 0)
        #expect(TrendAnalyzer.linearFit([(1, 1), (2, 2)]) == nil)
    }

    @Test func fallingWeightIsPositiveRisingRestingHeartRateIsAWarning() {
        let zone = TimeZone(identifier: "Asia/Tokyo")!
        let now = Date(timeIntervalSince1970: TimeInterval(AppleHealthMapping.parseDate("2024-05-30 21:00:00 +0900")!))
        let weights = (1...30).map { TrendAnalyzer.Sample(instant: AppleHealthMapping.parseDate(String(format: "2024-05-%02d 07:00:00 +0900", $0))!, value: 70 - Double($0) * 0.1) }
        let analysis = TrendAnalyzer.analyze(samples: weights, type: .weight, range: .month, now: now, timeZone: zone)
        #expect(analysis.trendPoints.count == 30)
        #expect(analysis.insights.first?.type == .positive)
        #expect((analysis.insights.first?.confidence ?? 0) > 0.8)
        #expect(analysis.insights.first!.title.ja == "体重が減っています")
        let hr = weights.map { TrendAnalyzer.Sample(instant: $0.instant, value: 140 - $0.value) }
        #expect(TrendAnalyzer.analyze(samples: hr, type: .restingHeartRate, range: .month, now: now, timeZone: zone).insights.first?.type == .warning)
        // Noisy data: low confidence.
        let noisy = weights.enumerated().map { TrendAnalyzer.Sample(instant: $0.element.instant, value: 60 + ($0.offset % 2 == 0 ? 5 : -5) + Double($0.offset) * 0.05) }
        let noisyInsight = TrendAnalyzer.analyze(samples: noisy, type: .weight, range: .month, now: now, timeZone: zone).insights.first!
        // Noise around a flat line: no rising or falling claim, just "steady".
        #expect(noisyInsight.type == .neutral && noisyInsight.title.en == "Weight is steady")
        // Steps are summed per day.
        let steps = [TrendAnalyzer.Sample(instant: weights[0].instant, value: 100), TrendAnalyzer.Sample(instant: weights[0].instant + 60, value: 50)]
        #expect(TrendAnalyzer.analyze(samples: steps, type: .steps, range: .month, now: now, timeZone: zone).trendPoints.first?.value == 150)
    }
}

struct ReminderScheduleTests {
    @Test func aDueSlotIsFoundOnlyOnChosenDaysAndWithinGrace() {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        // 2024-05-06 is a Monday (weekday 2).
        let now = Date(timeIntervalSince1970: TimeInterval(AppleHealthMapping.parseDate("2024-05-06 21:05:00 +0900")!))
        let slot = ReminderSchedule.dueSlot(minuteOfDay: 21 * 60, weekdays: [2], timeZone: tokyo, now: now, grace: 900)
        #expect(slot == AppleHealthMapping.parseDate("2024-05-06 21:00:00 +0900"))
        #expect(ReminderSchedule.dueSlot(minuteOfDay: 21 * 60, weekdays: [3], timeZone: tokyo, now: now, grace: 900) == nil)
        #expect(ReminderSchedule.dueSlot(minuteOfDay: 20 * 60, weekdays: [], timeZone: tokyo, now: now, grace: 900) == nil)
        #expect(ReminderSchedule.parseTime("07:30") == 450 && ReminderSchedule.parseTime("25:00") == nil)
    }
}

struct CSVTests {
    @Test func csvRoundTripsAndNamesTheBadLine() throws {
        let now = Date(timeIntervalSince1970: 1_717_200_000)
        let drafts = try HealthCSV.parse("type,value,unit,start,end\nweight,150,lb,2024-05-01T07:00:00+09:00,\nsteps,\"1,000\",count,2024-05-01T08:00:00Z,2024-05-01T09:00:00Z\n", now: now)
        #expect(drafts.count == 2)
        #expect(abs(drafts[0].value - 68.04) < 0.01 && drafts[0].unit == "kg")
        #expect(drafts[1].value == 1000) // "1,000" is a thousand with its grouping comma (issue 29), never 1.0
        #expect(throws: HealthError.self) { try HealthCSV.parse("type,value\nsteps,-3,count,2024-05-01T08:00:00Z", now: now) }
        let error = #expect(throws: HealthError.self) {
            try HealthCSV.parse("type,value,unit,start\nsteps,10,count,2024-05-01T08:00:00Z\nsteps,10,count,yesterday", now: now)
        }
        #expect(error?.message(.en).hasPrefix("CSV line 3:") == true)
        #expect(CSVField.escape("=cmd()") == "'=cmd()")
    }

    /// The old reader split lines before it looked at quotes: an export whose device or category held a
    /// newline could not be imported back.
    @Test func aNewlineInsideAQuotedFieldReadsBackAsWritten() throws {
        let now = Date(timeIntervalSince1970: 1_717_200_000)
        let record = HealthRecord(id: "r1", type: "HKQuantityTypeIdentifierDietaryFatTotal", value: 21.37, category: "lunch\nwith \"friends\", outside",
                                  unit: "g", start: Date(timeIntervalSince1970: 1_714_550_400), end: Date(timeIntervalSince1970: 1_714_550_400),
                                  source: .appleHealth, device: "Aiko's iPhone\r\nsecond line", details: nil, createdAt: now)
        let text = HealthCSV.header + "\n" + HealthCSV.line(record) + "\n" + HealthCSV.line(record) + "\n"
        let drafts = try HealthCSV.parse(text, now: now)
        #expect(drafts.count == 2)
        #expect(drafts.first?.category == "lunch\nwith \"friends\", outside")
        #expect(drafts.first?.device == "Aiko's iPhone\r\nsecond line")
        #expect(drafts.first?.value == 21.37)
        let error = #expect(throws: HealthError.self) { try HealthCSV.parse("type,value,unit,start\nsteps,1\"0,count,2024-05-01T08:00:00Z\n", now: now) }
        #expect(error?.message(.en).contains("quote") == true)
    }
}

struct AppleHealthMappingTests {
    @Test func metadataBecomesJSONThatReadsBackExactly() throws {
        let pairs = [("HKMetadataKeyHeartRateMotionContext", "1"), ("quote", #"say "hi" \ bye"#), ("lines", "a\nb\tc\u{01}"),
                     ("名前", "日々 🏃"), ("quote", "last one wins"), ("path", "a/b")]
        let text = AppleHealthMapping.json(pairs)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(decoded == ["HKMetadataKeyHeartRateMotionContext": "1", "quote": "last one wins", "lines": "a\nb\tc\u{01}",
                            "名前": "日々 🏃", "path": "a/b"])
        #expect(text.hasPrefix(#"{"HKMetadataKeyHeartRateMotionContext":"1","lines":"#))
        #expect(AppleHealthMapping.json([]) == "{}")
    }
}
