import Foundation

public struct HealthRecordResponse: Codable, Sendable {
    public let id: String
    public let type: String
    public let value: Double
    public let unit: String
    public let displayValue: String
    public let category: String
    public let start: Date
    public let end: Date
    public let source: String
    public let device: String

    init(_ r: HealthRecord, units: UnitPreferences, language: Language) {
        id = r.id; type = r.type; value = r.value; unit = r.unit; category = r.category
        displayValue = HealthFormat.value(r.value, type: r.type, preferences: units, language: language)
        start = r.start; end = r.end; source = r.source.rawValue; device = r.device
    }
}

public struct HealthRecordRequest: Codable, Sendable {
    public var type: String
    public var value: Double
    public var unit: String?
    public var start: Date
    public var end: Date?
}

public struct CreatedRecordResponse: Codable, Sendable {
    public let record: HealthRecordResponse
    public let newBadges: [String]
}

public struct ImportJobResponse: Codable, Sendable {
    public let id: String
    public let state: String
    public let fileName: String
    public let totalBytes: Int64
    public let bytesDone: Int64
    public let progress: Double
    public let inserted: Int64
    public let duplicates: Int64
    public let error: String?
    /// Per kind of element: added, duplicates, skipped with a reason code.
    public let report: ImportReport
    /// The report in the request's language, one line per kind.
    public let summary: [String]

    init(_ job: ImportJob, language: Language) {
        id = job.id; state = job.state.rawValue; fileName = job.fileName; totalBytes = job.totalBytes; bytesDone = job.bytesDone
        progress = job.state == .done ? 1 : (job.totalBytes > 0 ? min(1, Double(job.bytesDone) / Double(job.totalBytes)) : 0)
        inserted = job.inserted; duplicates = job.duplicates; error = job.errorMessage?(language)
        report = job.report; summary = job.report.lines(language)
    }
}

public struct CSVImportResponse: Codable, Sendable {
    public let inserted: Int
    public let duplicates: Int
}

public struct HealthProfileBody: Codable, Sendable {
    public var name: String?
    public var birthDate: String?
    public var heightCm: Double?
    public var targetWeightKg: Double?
    public var weightUnit: String?
    public var distanceUnit: String?
    public var energyUnit: String?

    init(_ p: HealthProfile) {
        name = p.name; birthDate = p.birthDate; heightCm = p.heightCm; targetWeightKg = p.targetWeightKg
        weightUnit = p.units.weight.rawValue; distanceUnit = p.units.distance.rawValue; energyUnit = p.units.energy.rawValue
    }
}

public struct GoalResponse: Codable, Sendable {
    public let id: String
    public let type: String
    public let targetValue: Double
    public let deadline: Date?
    public let createdAt: Date
    public let currentValue: Double?
    public let progress: Double
    public let status: String
    public let achievedAt: Date?

    init(_ goal: Goal, _ progress: GoalProgress) {
        id = goal.id; type = goal.type.rawValue; targetValue = goal.targetValue; deadline = goal.deadline; createdAt = goal.createdAt
        currentValue = progress.currentValue; self.progress = progress.fraction; status = progress.status.rawValue; achievedAt = goal.achievedAt
    }
}

public struct GoalRequest: Codable, Sendable {
    public var type: String
    public var targetValue: Double
    /// Absent or null: no deadline.
    public var deadline: Date?
}

public struct BadgeResponse: Codable, Sendable {
    public struct Colors: Codable, Sendable { public let primary: String; public let secondary: String; public let accent: String }
    public let key: String
    public let name: String
    public let description: String
    public let type: String
    public let tier: String
    public let colors: Colors
    public let requirementType: String
    public let requirementValue: Double
    public let earned: Bool
    public let earnedAt: Date?
    public let progress: Double
    public let imageURL: String

    init(_ d: BadgeDefinition, earned: EarnedBadge?, facts: BadgeFacts, language: Language) {
        key = d.key; name = d.name(language); description = d.description(language); type = d.type.rawValue; tier = d.tier.rawValue
        let c = d.tier.colors
        colors = Colors(primary: c.primary, secondary: c.secondary, accent: c.accent)
        requirementType = d.requirement.type.rawValue; requirementValue = d.requirement.value
        self.earned = earned != nil; earnedAt = earned?.earnedAt
        progress = earned != nil ? 1 : BadgeRules.progress(d.requirement, facts: facts)
        imageURL = HealthPaths.badgeImage(key: d.key)
    }
}

public struct TrendResponse: Codable, Sendable {
    public struct Insight: Codable, Sendable { public let title: String; public let description: String; public let type: String; public let confidence: Double? }
    public let type: String
    public let range: String
    public let unit: String
    public let points: [TrendPoint]
    public let insights: [Insight]
    public let slopePerDay: Double?
    public let rSquared: Double?
    /// The window's first and last day (YYYY-MM-DD, both included) and its bucket: day, week or month.
    public let from: String
    public let to: String
    public let bucket: String
    /// The first and last day with records of this type, absent without any.
    public let dataFrom: String?
    public let dataTo: String?
}

public struct ReminderResponse: Codable, Sendable {
    public let id: String
    public let time: String
    public let weekdays: [Int]
    public let message: String
    public let webhookURL: String?
    public let nextAt: Date?
}

public struct ReminderRequest: Codable, Sendable {
    public var time: String
    public var weekdays: [Int]?
    public var message: String
    public var webhookURL: String?
}
