import Foundation

/// The record types Hibi understands by name, each with one canonical unit it is stored in.
/// Imported Apple Health types Hibi does not know keep their own identifier as the type.
public enum HealthDataType: String, CaseIterable, Codable, Sendable {
    case weight
    case steps
    case activeCalories
    case heartRate
    case restingHeartRate
    /// Heart rate variability as Apple Health measures it: SDNN, in milliseconds.
    case heartRateVariability
    case bodyFat
    case walkingRunningDistance
    case sleep
    case bloodPressureSystolic
    case bloodPressureDiastolic
    case workout
    case activitySummary

    /// Types a person enters by hand (workouts and summaries come from Apple Health only).
    public static var manual: [HealthDataType] {
        [.weight, .steps, .activeCalories, .heartRate, .restingHeartRate, .bodyFat, .walkingRunningDistance, .sleep,
         .bloodPressureSystolic, .bloodPressureDiastolic]
    }

    public var canonicalUnit: String {
        switch self {
        case .weight: "kg"
        case .steps: "count"
        case .activeCalories, .activitySummary: "kcal"
        case .heartRate, .restingHeartRate: "count/min"
        case .heartRateVariability: "ms"
        case .bodyFat: "%"
        case .walkingRunningDistance: "km"
        case .sleep: "h"
        case .bloodPressureSystolic, .bloodPressureDiastolic: "mmHg"
        case .workout: "min"
        }
    }

    /// Summed per day (steps) rather than averaged (weight).
    public var isCumulative: Bool {
        switch self {
        case .steps, .activeCalories, .walkingRunningDistance, .sleep, .workout, .activitySummary: true
        default: false
        }
    }

    /// Which way is better, for insights; nil where neither direction is good news by itself.
    public var higherIsBetter: Bool? {
        switch self {
        // A higher SDNN at rest goes with recovery and fitness; a falling one is what people watch for.
        case .steps, .activeCalories, .walkingRunningDistance, .workout, .activitySummary, .heartRateVariability: true
        case .weight, .bodyFat, .restingHeartRate, .bloodPressureSystolic, .bloodPressureDiastolic: false
        case .heartRate, .sleep: nil
        }
    }

    public var title: Text {
        switch self {
        case .weight: Text(en: "Weight", ja: "体重")
        case .steps: Text(en: "Steps", ja: "歩数")
        case .activeCalories: Text(en: "Active energy", ja: "消費カロリー")
        case .heartRate: Text(en: "Heart rate", ja: "心拍数")
        case .restingHeartRate: Text(en: "Resting heart rate", ja: "安静時心拍数")
        case .heartRateVariability: Text(en: "Heart rate variability (SDNN)", ja: "心拍変動(SDNN)")
        case .bodyFat: Text(en: "Body fat", ja: "体脂肪率")
        case .walkingRunningDistance: Text(en: "Walking + running distance", ja: "歩行・走行距離")
        case .sleep: Text(en: "Sleep", ja: "睡眠")
        case .bloodPressureSystolic: Text(en: "Blood pressure (systolic)", ja: "血圧(最高)")
        case .bloodPressureDiastolic: Text(en: "Blood pressure (diastolic)", ja: "血圧(最低)")
        case .workout: Text(en: "Workout", ja: "ワークアウト")
        case .activitySummary: Text(en: "Activity rings", ja: "アクティビティ")
        }
    }

    public static func title(of type: String) -> Text {
        if let known = HealthDataType(rawValue: type) { return known.title }
        return AppleTypeNames.title(type)
    }
}

public enum DataSource: String, Codable, Sendable, CaseIterable {
    case manual
    case appleHealth
    case csv

    public var title: Text {
        switch self {
        case .manual: Text(en: "Manual", ja: "手入力")
        case .appleHealth: Text(en: "Apple Health", ja: "Apple ヘルスケア")
        case .csv: Text(en: "CSV", ja: "CSV")
        }
    }
}

/// One measurement. `value` is in the type's canonical unit for known types, else as imported.
public struct HealthRecord: Sendable, Equatable, Codable {
    public var id: String
    public var type: String
    public var value: Double
    /// Category values (sleep stage, workout kind) kept as text beside the number.
    public var category: String
    public var unit: String
    public var start: Date
    public var end: Date
    public var source: DataSource
    /// Originating device or app ("Apple Watch", "Health"); empty for manual entries.
    public var device: String
    /// Remaining attributes and metadata of an imported element as JSON, so nothing is lost.
    public var details: String?
    public var createdAt: Date
}

/// A record about to be stored (no id yet).
public struct HealthRecordDraft: Sendable, Equatable {
    public var type: String
    public var value: Double
    public var category: String = ""
    public var unit: String
    public var start: Int64
    public var end: Int64
    public var device: String = ""
    public var details: String?

    public init(type: String, value: Double, category: String = "", unit: String, start: Int64, end: Int64,
                device: String = "", details: String? = nil) {
        self.type = type
        self.value = value
        self.category = category
        self.unit = unit
        self.start = start
        self.end = end
        self.device = device
        self.details = details
    }
}

public struct UnitPreferences: Sendable, Equatable, Codable {
    public enum Weight: String, Codable, Sendable, CaseIterable { case kg, lb }
    public enum Distance: String, Codable, Sendable, CaseIterable { case km, mi }
    public enum Energy: String, Codable, Sendable, CaseIterable { case kcal, kJ }
    public var weight: Weight
    public var distance: Distance
    public var energy: Energy

    public init(weight: Weight = .kg, distance: Distance = .km, energy: Energy = .kcal) {
        self.weight = weight
        self.distance = distance
        self.energy = energy
    }
}

public struct HealthProfile: Sendable, Equatable {
    public var name: String?
    public var birthDate: String?
    public var heightCm: Double?
    public var targetWeightKg: Double?
    public var units: UnitPreferences

    public init(name: String? = nil, birthDate: String? = nil, heightCm: Double? = nil, targetWeightKg: Double? = nil,
                units: UnitPreferences = .init()) {
        self.name = name
        self.birthDate = birthDate
        self.heightCm = heightCm
        self.targetWeightKg = targetWeightKg
        self.units = units
    }
}

public enum GoalStatus: String, Codable, Sendable {
    case active
    case achieved
    case missed
}

public struct Goal: Sendable, Equatable {
    public let id: String
    public var type: HealthDataType
    public var targetValue: Double
    /// nil: no deadline. A cumulative goal without one is a daily goal ("10,000 steps a day"); a level goal
    /// without one is reached whenever the value gets there.
    public var deadline: Date?
    public var createdAt: Date
    /// The latest value when the goal was set, for level goals (weight down from 70 to 65).
    public var startValue: Double?
    public var achievedAt: Date?
}

public struct GoalProgress: Sendable, Equatable {
    public let currentValue: Double?
    /// 0...1
    public let fraction: Double
    public let status: GoalStatus
}

public enum BadgeType: String, Codable, Sendable {
    case streak, milestone, achievement, special

    public var title: Text {
        switch self {
        case .streak: Text(en: "Streak", ja: "継続")
        case .milestone: Text(en: "Milestone", ja: "マイルストーン")
        case .achievement: Text(en: "Achievement", ja: "達成")
        case .special: Text(en: "Special", ja: "特別")
        }
    }
}

public struct BadgeRequirement: Codable, Sendable, Equatable {
    public enum RequirementType: String, Codable, Sendable {
        case consecutiveDays, totalRecords, goalAchievement, weightLoss, stepsTotal
    }
    public let type: RequirementType
    public let value: Double
    public let duration: Int?
}

public enum BadgeTier: String, Codable, Sendable, CaseIterable {
    case bronze, silver, gold, platinum

    public var colors: BadgeColorScheme {
        switch self {
        case .bronze: .bronze
        case .silver: .silver
        case .gold: .gold
        case .platinum: .platinum
        }
    }
}

/// The seed's colours, one scheme per tier.
public struct BadgeColorScheme: Codable, Sendable, Equatable {
    public let primary: String
    public let secondary: String
    public let accent: String

    public static let bronze = BadgeColorScheme(primary: "#CD7F32", secondary: "#8B4513", accent: "#FFD700")
    public static let silver = BadgeColorScheme(primary: "#C0C0C0", secondary: "#808080", accent: "#FFFFFF")
    public static let gold = BadgeColorScheme(primary: "#FFD700", secondary: "#FFA500", accent: "#FFFF00")
    public static let platinum = BadgeColorScheme(primary: "#E5E4E2", secondary: "#BCC6CC", accent: "#FFFFFF")
}

public struct BadgeDefinition: Sendable, Equatable {
    public let key: String
    public let name: Text
    public let description: Text
    public let type: BadgeType
    public let requirement: BadgeRequirement
    public let icon: BadgeIcon
    public let tier: BadgeTier
}

public enum BadgeIcon: String, Sendable {
    case star, flame, crown, footprints, target, feather, medal, hundred
}

public struct EarnedBadge: Sendable, Equatable {
    public let key: String
    public let earnedAt: Date
}

/// What badge rules look at; gathered by the service, judged by pure logic.
public struct BadgeFacts: Sendable, Equatable {
    public var totalRecords: Int
    public var longestStreakDays: Int
    public var goalsAchieved: Int
    public var weightLossKg: Double
    public var stepsTotal: Double

    public init(totalRecords: Int = 0, longestStreakDays: Int = 0, goalsAchieved: Int = 0, weightLossKg: Double = 0, stepsTotal: Double = 0) {
        self.totalRecords = totalRecords
        self.longestStreakDays = longestStreakDays
        self.goalsAchieved = goalsAchieved
        self.weightLossKg = weightLossKg
        self.stepsTotal = stepsTotal
    }
}

public enum TrendRange: String, Codable, Sendable, CaseIterable {
    case week, month, year

    public var title: Text {
        switch self {
        case .week: Text(en: "Week", ja: "週")
        case .month: Text(en: "Month", ja: "月")
        case .year: Text(en: "Year", ja: "年")
        }
    }
}

/// What a trends request asks for: a range back from today, everything recorded, or the days between two dates.
public enum TrendSelection: Sendable, Equatable {
    case range(TrendRange)
    case all
    case days(DayKey, DayKey)

    /// "week", "month", "year", "all" or "custom", as the API answers it.
    public var name: String {
        switch self {
        case let .range(range): range.rawValue
        case .all: "all"
        case .days: "custom"
        }
    }
}

public struct TrendResult: Sendable {
    public let window: TrendWindow
    public let analysis: TrendAnalysis
    /// The first and last local day with records of the type, whatever the window.
    public let dataSpan: TrendWindow?
}

public struct TrendPoint: Sendable, Equatable, Codable {
    public let date: Date
    public let value: Double
    public let movingAverage: Double
}

public enum InsightType: String, Codable, Sendable {
    case positive, neutral, warning
}

public struct HealthInsight: Sendable, Equatable {
    public let title: Text
    public let description: Text
    public let type: InsightType
    /// 0...1, from the data: the regression's R² weighted by how many points it rests on; nil for notes
    /// that are not a measured trend ("Few records", "steady").
    public let confidence: Double?
}

public struct TrendAnalysis: Sendable, Equatable {
    public let trendPoints: [TrendPoint]
    public let insights: [HealthInsight]
    /// Change per day of the fitted line, in the stored unit.
    public let slopePerDay: Double?
    public let rSquared: Double?
}

public struct Reminder: Sendable, Equatable {
    public let id: String
    /// Minutes after local midnight.
    public var minuteOfDay: Int
    /// Weekdays as Calendar numbers 1 (Sunday) ... 7 (Saturday).
    public var weekdays: Set<Int>
    public var message: String
    public var webhookURL: String?
    public var lastSentSlot: Int64?
    public var createdAt: Date
}

public enum ImportState: String, Codable, Sendable {
    case queued, running, done, failed
}

public struct ImportJob: Sendable, Equatable {
    public let id: String
    public let userID: String
    public var kind: String
    public var state: ImportState
    public var fileName: String
    public var totalBytes: Int64
    public var bytesDone: Int64
    /// Records parsed and committed so far; a resumed run skips this many before writing again.
    public var checkpoint: Int64
    public var inserted: Int64
    public var duplicates: Int64
    public var errorMessage: Text?
    public var createdAt: Date
    public var finishedAt: Date?
    /// Where the uploaded file waits (web uploads), so a restarted server can finish the job.
    public var uploadPath: String?
    /// Runs started; a job still "running" at start-up with two or more stopped the process each time.
    public var attempts: Int64 = 0
    /// What the import did so far, per kind of element (added, duplicates, skipped with a reason).
    public var report = ImportReport()
}
