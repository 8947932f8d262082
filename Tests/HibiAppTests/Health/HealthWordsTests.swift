import Foundation
import Testing
@testable import HibiApp

/// Issue 33, item 4: values, units, activities, import kinds and metadata in words, in both languages.
struct HealthWordsTests {
    let units = UnitPreferences()

    @Test func valuesAreGroupedAndUnitsReadAsWords() {
        #expect(HealthFormat.value(72, type: "heartRate", preferences: units, language: .ja) == "72 拍/分")
        #expect(HealthFormat.value(72, type: "heartRate", preferences: units, language: .en) == "72 bpm")
        #expect(HealthFormat.value(8432, type: "steps", preferences: units, language: .en) == "8,432")
        #expect(HealthFormat.value(8432, type: "steps", preferences: units, language: .ja) == "8,432")
        #expect(HealthFormat.value(30.5, type: "workout", preferences: units, language: .ja) == "30.5分")
        #expect(HealthFormat.value(30.5, type: "workout", preferences: units, language: .en) == "30.5 min")
        #expect(HealthFormat.value(7.25, type: "sleep", preferences: units, language: .ja) == "7.2時間" || HealthFormat.value(7.25, type: "sleep", preferences: units, language: .ja) == "7.3時間")
        #expect(HealthFormat.value(1234.5, type: "activeCalories", preferences: units, language: .en) == "1,234.5 kcal")
        // A form field keeps the plain number it can read back.
        #expect(HealthFormat.number(8432) == "8432")
    }

    @Test func workoutActivitiesAndSleepStagesHaveNames() {
        #expect(AppleTypeNames.category("Running")(.ja) == "ランニング")
        #expect(AppleTypeNames.category("HighIntensityIntervalTraining")(.en) == "High-intensity interval training")
        #expect(AppleTypeNames.category("AsleepREM")(.ja) == "レム睡眠")
        #expect(HealthDataType.title(of: "HKWorkoutActivityTypeYoga")(.ja) == "ヨガ")
        // An activity Hibi has no name for reads in words, not as an identifier.
        #expect(AppleTypeNames.category("UnderwaterDiving")(.en) == "Underwater diving")
    }

    @Test func importKindsAreNamedInBothLanguages() {
        var report = ImportReport()
        report.count("Record", added: 5, duplicates: 0)
        report.count("ActivitySummary", added: 1, duplicates: 2)
        report.count("Location", added: 1, duplicates: 1)
        #expect(report.lines(.en) == ["Health records: 5 added", "Activity rings: 1 added, 2 already there",
                                      "Workout route points: 1 added, 1 already there"])
        #expect(report.lines(.ja) == ["健康の記録: 5 件追加", "アクティビティリング: 1 件追加、2 件は取り込み済み",
                                      "ワークアウトの経路の地点: 1 件追加、1 件は取り込み済み"])
        // The report's codes stay as they were for API clients.
        #expect(report.kinds.map(\.kind) == ["Record", "ActivitySummary", "Location"])
    }

    @Test func metadataReadsAsLabelledValues() {
        #expect(HealthDetails.labelled(#"{"HKMetadataKeyHeartRateMotionContext":"1"}"#, language: .ja) == ["計測時の状態: 安静時"])
        #expect(HealthDetails.labelled(#"{"HKIndoorWorkout":"0","totalDistance":"5.1","totalDistanceUnit":"km"}"#, language: .en)
                == ["Where: outdoors", "Distance: 5.1 km"])
        #expect(HealthDetails.labelled(#"{"appleExerciseTime":"35","appleStandHours":"11"}"#, language: .ja) == ["エクササイズ: 35分", "スタンド: 11時間"])
        #expect(HealthDetails.labelled(#"{"HKMetadataKeySomethingNew":"x"}"#, language: .en) == ["Something new: x"])
        #expect(HealthDetails.labelled("not json", language: .en).isEmpty)
        #expect(HealthDetails.labelled(nil, language: .en).isEmpty)
    }
}
