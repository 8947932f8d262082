import Foundation
import SQLKit

public struct HealthProfileStore: Sendable {
    let database: Database
    let box: SealedBoxService

    public func get(userID: String) async throws -> HealthProfile {
        guard let row = try await database.sql.select().column("*").from("health_profiles").where("user_id", .equal, userID)
            .first(decoding: HealthProfileRow.self) else {
            return HealthProfile()
        }
        let name = try row.nameSealed.map { try box.openString($0, context: "health-profile-name:\(userID)") }
        return row.profile(name: name)
    }

    public func save(_ profile: HealthProfile, userID: String, now: Date) async throws {
        // The name is personal; it is sealed and bound to its owner.
        let sealed = try profile.name.flatMap { $0.isEmpty ? nil : try box.sealString($0, context: "health-profile-name:\(userID)") }
        try await database.sql.insert(into: "health_profiles")
                .columns("user_id", "name_sealed", "birth_date", "height_cm", "target_weight_kg", "weight_unit", "distance_unit", "energy_unit", "updated_at")
                .values(SQLBind(userID), SQLBind(sealed), SQLBind(profile.birthDate), SQLBind(profile.heightCm), SQLBind(profile.targetWeightKg),
                        SQLBind(profile.units.weight.rawValue), SQLBind(profile.units.distance.rawValue), SQLBind(profile.units.energy.rawValue),
                        SQLBind(Int64(saturating: now.timeIntervalSince1970)))
                .onConflict(with: ["user_id"]) { conflict in
                    ["name_sealed", "birth_date", "height_cm", "target_weight_kg", "weight_unit", "distance_unit", "energy_unit", "updated_at"]
                        .reduce(conflict) { $0.set(excludedValueOf: $1) }
                }
                .run()
    }
}

public struct HealthGoalStore: Sendable {
    let database: Database

    public func list(userID: String) async throws -> [Goal] {
        try await database.sql.select().column("*").from("health_goals").where("user_id", .equal, userID)
            .orderBy("deadline").orderBy("id").all().map(Self.decode)
    }

    public func find(id: String, userID: String) async throws -> Goal? {
        try await database.sql.select().column("*").from("health_goals").where("id", .equal, id).where("user_id", .equal, userID)
            .first().map(Self.decode)
    }

    public func insert(_ goal: Goal, userID: String) async throws {
        try await database.sql.insert(into: "health_goals")
            .columns("id", "user_id", "type", "target_value", "deadline", "created_at", "start_value", "achieved_at")
            .values(SQLBind(goal.id), SQLBind(userID), SQLBind(goal.type.rawValue), SQLBind(goal.targetValue),
                    SQLBind(goal.deadline.map { Int64(saturating: $0.timeIntervalSince1970) }), SQLBind(Int64(saturating: goal.createdAt.timeIntervalSince1970)),
                    SQLBind(goal.startValue), SQLBind(goal.achievedAt.map { Int64(saturating: $0.timeIntervalSince1970) }))
            .run()
    }

    public func markAchieved(id: String, userID: String, at: Date) async throws {
        try await database.sql.update("health_goals").set("achieved_at", to: Int64(saturating: at.timeIntervalSince1970))
            .where("id", .equal, id).where("user_id", .equal, userID).where("achieved_at", .is, SQLLiteral.null).run()
    }

    public func delete(id: String, userID: String) async throws -> Bool {
        !(try await database.sql.delete(from: "health_goals").where("id", .equal, id).where("user_id", .equal, userID).returning("id").all()).isEmpty
    }

    public func achievedCount(userID: String) async throws -> Int {
        try await database.sql.select().column("id").from("health_goals").where("user_id", .equal, userID)
            .where("achieved_at", .isNot, SQLLiteral.null).all().count
    }

    static func decode(_ row: any SQLRow) throws -> Goal {
        try row.decode(model: HealthGoalRow.self).goal
    }
}

public struct HealthBadgeStore: Sendable {
    let database: Database

    public func earned(userID: String) async throws -> [EarnedBadge] {
        try await database.sql.select().column("badge_key").column("earned_at").from("health_badges").where("user_id", .equal, userID)
            .orderBy("earned_at").all(decoding: HealthBadgeRow.self).map(\.badge)
    }

    public func revoke(_ keys: [String], userID: String) async throws {
        guard !keys.isEmpty else { return }
        try await database.sql.delete(from: "health_badges").where("user_id", .equal, userID).where("badge_key", .in, keys).run()
    }

    public func award(_ keys: [String], userID: String, at: Date) async throws {
        guard !keys.isEmpty else { return }
        let builder = database.sql.insert(into: "health_badges").columns("user_id", "badge_key", "earned_at")
        for key in keys { builder.values(SQLBind(userID), SQLBind(key), SQLBind(Int64(saturating: at.timeIntervalSince1970))) }
        try await builder.ignoringConflicts(with: ["user_id", "badge_key"]).run()
    }
}

public struct HealthReminderStore: Sendable {
    let database: Database

    public func list(userID: String) async throws -> [Reminder] {
        try await database.sql.select().column("*").from("health_reminders").where("user_id", .equal, userID)
            .orderBy("minute_of_day").orderBy("id").all().map(Self.decode)
    }

    /// Every reminder with a webhook, with its owner's time zone, for the sender.
    public func withWebhooks() async throws -> [(reminder: Reminder, timeZone: String)] {
        // The reminder's row, and one column of its owner's (`users` is Accounts' table, read here for this one value).
        try await database.sql.raw("""
            SELECT r.*, u.time_zone FROM health_reminders r JOIN users u ON u.id = r.user_id
            WHERE r.webhook_url IS NOT NULL AND u.disabled = \(bind: false)
            """).all().map { (try Self.decode($0), try $0.decode(column: "time_zone", as: String.self)) }
    }

    public func insert(_ reminder: Reminder, userID: String) async throws {
        try await database.sql.insert(into: "health_reminders")
            .columns("id", "user_id", "minute_of_day", "weekdays", "message", "webhook_url", "last_sent_slot", "created_at")
            .values(SQLBind(reminder.id), SQLBind(userID), SQLBind(Int64(reminder.minuteOfDay)),
                    SQLBind(reminder.weekdays.sorted().map(String.init).joined(separator: ",")), SQLBind(reminder.message),
                    SQLBind(reminder.webhookURL), SQLBind(reminder.lastSentSlot), SQLBind(Int64(saturating: reminder.createdAt.timeIntervalSince1970)))
            .run()
    }

    public func delete(id: String, userID: String) async throws -> Bool {
        !(try await database.sql.delete(from: "health_reminders").where("id", .equal, id).where("user_id", .equal, userID).returning("id").all()).isEmpty
    }

    /// Claims a slot before sending: only one claimer wins, and a claimed slot is never sent again,
    /// even across restarts or with two servers on one database.
    public func claim(id: String, slot: Int64) async throws -> Bool {
        let rows = try await database.sql.raw("""
            UPDATE health_reminders SET last_sent_slot = \(bind: slot)
            WHERE id = \(bind: id) AND (last_sent_slot IS NULL OR last_sent_slot < \(bind: slot)) RETURNING id
            """).all()
        return !rows.isEmpty
    }

    static func decode(_ row: any SQLRow) throws -> Reminder {
        try row.decode(model: HealthReminderRow.self).reminder
    }
}

public struct ImportJobStore: Sendable {
    let database: Database

    public func create(userID: String, kind: String, fileName: String, fingerprint: String, totalBytes: Int64,
                       uploadPath: String?, now: Date) async throws -> ImportJob {
        let id = UUID().uuidString
        try await database.sql.insert(into: "health_import_jobs")
            .columns("id", "user_id", "kind", "state", "file_name", "fingerprint", "total_bytes", "bytes_done", "checkpoint", "inserted",
                     "duplicates", "upload_path", "created_at")
            .values(SQLBind(id), SQLBind(userID), SQLBind(kind), SQLBind(ImportState.queued.rawValue), SQLBind(fileName), SQLBind(fingerprint),
                    SQLBind(totalBytes), SQLBind(Int64(0)), SQLBind(Int64(0)), SQLBind(Int64(0)), SQLBind(Int64(0)), SQLBind(uploadPath),
                    SQLBind(Int64(saturating: now.timeIntervalSince1970)))
            .run()
        guard let job = try await find(id: id, userID: userID) else { throw HealthError.jobNotFound }
        return job
    }

    public func find(id: String, userID: String) async throws -> ImportJob? {
        try await database.sql.select().column("*").from("health_import_jobs").where("id", .equal, id).where("user_id", .equal, userID)
            .first().map(Self.decode)
    }

    public func list(userID: String) async throws -> [ImportJob] {
        try await database.sql.select().column("*").from("health_import_jobs").where("user_id", .equal, userID)
            .orderBy("created_at", .descending).limit(10).all().map(Self.decode)
    }

    /// An unfinished import of the same file, to resume rather than start over.
    public func unfinished(userID: String, fingerprint: String) async throws -> ImportJob? {
        try await database.sql.select().column("*").from("health_import_jobs").where("user_id", .equal, userID)
            .where("fingerprint", .equal, fingerprint).where("state", .in, [ImportState.queued.rawValue, ImportState.running.rawValue])
            .orderBy("created_at", .descending).first().map(Self.decode)
    }

    /// Jobs a stopped server left behind with their upload still on disk.
    public func interruptedUploads() async throws -> [ImportJob] {
        try await database.sql.select().column("*").from("health_import_jobs")
            .where("state", .in, [ImportState.queued.rawValue, ImportState.running.rawValue]).where("upload_path", .isNot, SQLLiteral.null)
            .all().map(Self.decode)
    }

    /// The job as it is now, if it is still one `interruptedUploads` would list.
    public func interruptedUpload(id: String) async throws -> ImportJob? {
        try await database.sql.select().column("*").from("health_import_jobs").where("id", .equal, id)
            .where("state", .in, [ImportState.queued.rawValue, ImportState.running.rawValue]).where("upload_path", .isNot, SQLLiteral.null)
            .first().map(Self.decode)
    }

    /// Marks the job running and counts the run, in one statement.
    public func startAttempt(_ id: String) async throws {
        try await database.sql.raw("""
            UPDATE health_import_jobs SET state = \(bind: ImportState.running.rawValue), attempts = attempts + 1 WHERE id = \(bind: id)
            """).run()
    }

    /// A job of this person that is queued or running (one import at a time each).
    public func active(userID: String) async throws -> ImportJob? {
        try await database.sql.select().column("*").from("health_import_jobs").where("user_id", .equal, userID)
            .where("state", .in, [ImportState.queued.rawValue, ImportState.running.rawValue]).first().map(Self.decode)
    }

    public func setState(_ id: String, _ state: ImportState, error: Text? = nil, now: Date) async throws {
        let update = database.sql.update("health_import_jobs").set("state", to: state.rawValue)
            .set("error_en", to: error?.en).set("error_ja", to: error?.ja)
        if state == .done || state == .failed { update.set("finished_at", to: Int64(saturating: now.timeIntervalSince1970)) }
        try await update.where("id", .equal, id).run()
    }

    /// Written in the same transaction as the batch it describes, so the checkpoint never runs ahead of the data.
    static func advance(_ id: String, checkpoint: Int64, bytesDone: Int64, inserted: Int, duplicates: Int, report: ImportReport? = nil,
                        on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            UPDATE health_import_jobs SET checkpoint = \(bind: checkpoint), bytes_done = \(bind: bytesDone),
            inserted = inserted + \(bind: Int64(inserted)), duplicates = duplicates + \(bind: Int64(duplicates)), state = \(bind: ImportState.running.rawValue)
            WHERE id = \(bind: id)
            """).run()
        if let report { try await saveReport(id, report, on: sql) }
    }

    /// The report as JSON beside the counters, written with the batch it describes.
    static func saveReport(_ id: String, _ report: ImportReport, on sql: any SQLDatabase) async throws {
        let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        try await sql.update("health_import_jobs").set("report", to: text).where("id", .equal, id).run()
    }

    static func decodeReport(_ text: String?) -> ImportReport {
        guard let text, let report = try? JSONDecoder().decode(ImportReport.self, from: Data(text.utf8)) else { return ImportReport() }
        return report
    }

    static func decode(_ row: any SQLRow) throws -> ImportJob {
        try row.decode(model: HealthImportJobRow.self).job
    }
}
