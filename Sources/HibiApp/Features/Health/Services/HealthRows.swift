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
