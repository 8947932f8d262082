import Foundation
import SQLKit

// The Health tables' rows as they are stored, decoded by SQLKit (`decode(model:)`) rather than column by
// column: the column names are written once (the CodingKeys), times are the whole Unix seconds every
// table stores (`UnixTime`), and each row maps to the model the feature works with in one place.

/// A `health_records` row.
struct HealthRecordRow: Codable, Sendable {
    var id: String
    var type: String
    var value: Double
    var category: String
    var unit: String
    var startAt: Int64
    var endAt: Int64
    var source: String
    var device: String
    var details: String?
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, type, value, category, unit, source, device, details
        case startAt = "start_at", endAt = "end_at", createdAt = "created_at"
    }

    var record: HealthRecord {
        HealthRecord(id: id, type: type, value: value, category: category, unit: unit, start: UnixTime(seconds: startAt).date,
                     end: UnixTime(seconds: endAt).date, source: DataSource(rawValue: source) ?? .manual, device: device, details: details,
                     createdAt: UnixTime(seconds: createdAt).date)
    }

    /// The two columns trends and goals read, many thousand records at a time: the whole row would bring each
    /// record's details and device along.
    struct Sample: Decodable, Sendable {
        static let columns: [SQLIdentifier] = [CodingKeys.startAt, .value].map { SQLIdentifier($0.stringValue) }
        var sample: TrendAnalyzer.Sample

        init(from decoder: any Decoder) throws {
            let row = try decoder.container(keyedBy: CodingKeys.self)
            sample = TrendAnalyzer.Sample(instant: try row.decode(Int64.self, forKey: .startAt), value: try row.decode(Double.self, forKey: .value))
        }
    }
}

/// A `health_workouts` row (the columns the feature reads).
struct HealthWorkoutRow: Codable, Sendable {
    var id: String
    var activity: String
    var startAt: Int64
    var endAt: Int64
    var durationMin: Double
    var distanceKm: Double?
    var energyKcal: Double?
    var device: String
    var details: String?

    enum CodingKeys: String, CodingKey {
        case id, activity, device, details
        case startAt = "start_at", endAt = "end_at", durationMin = "duration_min", distanceKm = "distance_km", energyKcal = "energy_kcal"
    }

    var workout: HealthWorkout {
        HealthWorkout(id: id, activity: activity, start: UnixTime(seconds: startAt).date, end: UnixTime(seconds: endAt).date,
                      durationMinutes: durationMin, distanceKm: distanceKm, energyKcal: energyKcal, device: device, details: details)
    }
}

/// A `health_workout_route_points` row (the columns a route is drawn from; the workout's id and owner are what it is
/// found by).
struct HealthWorkoutRoutePointRow: Codable, Sendable {
    var t: Int64
    var lat: Double
    var lon: Double
    var ele: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case t, lat, lon, ele
    }

    var point: WorkoutRoutePoint { WorkoutRoutePoint(t: t, lat: lat, lon: lon, ele: ele) }
}

/// A `health_profiles` row. The name stays sealed here: the store opens it with the context that binds it to its owner.
struct HealthProfileRow: Codable, Sendable {
    var nameSealed: Data?
    var birthDate: String?
    var heightCm: Double?
    var targetWeightKg: Double?
    var weightUnit: String
    var distanceUnit: String
    var energyUnit: String

    enum CodingKeys: String, CodingKey {
        case nameSealed = "name_sealed", birthDate = "birth_date", heightCm = "height_cm", targetWeightKg = "target_weight_kg",
             weightUnit = "weight_unit", distanceUnit = "distance_unit", energyUnit = "energy_unit"
    }

    /// The profile with its name as `name` (the opened `nameSealed`).
    func profile(name: String?) -> HealthProfile {
        HealthProfile(name: name, birthDate: birthDate, heightCm: heightCm, targetWeightKg: targetWeightKg,
                      units: UnitPreferences(weight: .init(rawValue: weightUnit) ?? .kg, distance: .init(rawValue: distanceUnit) ?? .km,
                                             energy: .init(rawValue: energyUnit) ?? .kcal))
    }
}

/// A `health_goals` row.
struct HealthGoalRow: Codable, Sendable {
    var id: String
    var type: String
    var targetValue: Double
    var deadline: Int64?
    var createdAt: Int64
    var startValue: Double?
    var achievedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, type, deadline
        case targetValue = "target_value", createdAt = "created_at", startValue = "start_value", achievedAt = "achieved_at"
    }

    var goal: Goal {
        Goal(id: id, type: HealthDataType(rawValue: type) ?? .steps, targetValue: targetValue, deadline: deadline.map { UnixTime(seconds: $0).date },
             createdAt: UnixTime(seconds: createdAt).date, startValue: startValue, achievedAt: achievedAt.map { UnixTime(seconds: $0).date })
    }
}

/// A `health_badges` row.
struct HealthBadgeRow: Codable, Sendable {
    var badgeKey: String
    var earnedAt: Int64

    enum CodingKeys: String, CodingKey {
        case badgeKey = "badge_key", earnedAt = "earned_at"
    }

    var badge: EarnedBadge { EarnedBadge(key: badgeKey, earnedAt: UnixTime(seconds: earnedAt).date) }
}

/// A `health_reminders` row.
struct HealthReminderRow: Codable, Sendable {
    var id: String
    var minuteOfDay: Int64
    var weekdays: String
    var message: String
    var webhookURL: String?
    var lastSentSlot: Int64?
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, weekdays, message
        case minuteOfDay = "minute_of_day", webhookURL = "webhook_url", lastSentSlot = "last_sent_slot", createdAt = "created_at"
    }

    var reminder: Reminder {
        Reminder(id: id, minuteOfDay: Int(minuteOfDay), weekdays: Set(weekdays.split(separator: ",").compactMap { Int($0) }), message: message,
                 webhookURL: webhookURL, lastSentSlot: lastSentSlot, createdAt: UnixTime(seconds: createdAt).date)
    }
}

/// A `health_import_jobs` row.
struct HealthImportJobRow: Codable, Sendable {
    var id: String
    var userID: String
    var kind: String
    var state: String
    var fileName: String
    var totalBytes: Int64
    var bytesDone: Int64
    var checkpoint: Int64
    var inserted: Int64
    var duplicates: Int64
    var errorEn: String?
    var errorJa: String?
    var createdAt: Int64
    var finishedAt: Int64?
    var uploadPath: String?
    var attempts: Int64
    var report: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, state, checkpoint, inserted, duplicates, attempts, report
        case userID = "user_id", fileName = "file_name", totalBytes = "total_bytes", bytesDone = "bytes_done", errorEn = "error_en",
             errorJa = "error_ja", createdAt = "created_at", finishedAt = "finished_at", uploadPath = "upload_path"
    }

    var job: ImportJob {
        ImportJob(id: id, userID: userID, kind: kind, state: ImportState(rawValue: state) ?? .failed, fileName: fileName, totalBytes: totalBytes,
                  bytesDone: bytesDone, checkpoint: checkpoint, inserted: inserted, duplicates: duplicates,
                  errorMessage: errorEn.map { Text(en: $0, ja: errorJa ?? $0) }, createdAt: UnixTime(seconds: createdAt).date,
                  finishedAt: finishedAt.map { UnixTime(seconds: $0).date }, uploadPath: uploadPath, attempts: attempts,
                  report: ImportJobStore.decodeReport(report))
    }
}
