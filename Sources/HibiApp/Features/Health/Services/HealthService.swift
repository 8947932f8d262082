import Foundation
import Logging
import SQLKit
import Synchronization

/// The feature's operations that span several stores: entry with badge awards, goals with progress,
/// trends, and the facts badges are judged on.
public struct HealthService: Sendable {
    public let database: Database
    public let records: HealthRecordStore
    public let profiles: HealthProfileStore
    public let goals: HealthGoalStore
    public let badges: HealthBadgeStore
    public let reminders: HealthReminderStore
    public let jobs: ImportJobStore
    public let workoutStore: HealthWorkoutStore
    public let electrocardiograms: HealthECGStore
    let logger: Logger
    /// Checks reminder webhooks before they are saved (the sender checks again at every send).
    let outbound: OutboundHTTP

    public init(database: Database, box: SealedBoxService, outbound: OutboundHTTP = OutboundHTTP(), mediaDirectory: String? = nil, logger: Logger) {
        self.outbound = outbound
        self.database = database
        records = HealthRecordStore(database: database)
        profiles = HealthProfileStore(database: database, box: box)
        goals = HealthGoalStore(database: database)
        badges = HealthBadgeStore(database: database)
        reminders = HealthReminderStore(database: database)
        jobs = ImportJobStore(database: database)
        workoutStore = HealthWorkoutStore(database: database)
        electrocardiograms = HealthECGStore(directory: mediaDirectory.map { ($0 as NSString).appendingPathComponent("health-ecg") })
        self.logger = logger
    }

    public struct NewRecord: Sendable {
        public var type: String
        public var value: Double?
        public var unit: String?
        public var start: Date
        public var end: Date?
        public init(type: String, value: Double?, unit: String?, start: Date, end: Date?) {
            self.type = type
            self.value = value
            self.unit = unit
            self.start = start
            self.end = end
        }
    }

    /// Validates, stores and awards badges; the badges newly earned come back with the record.
    public func add(_ input: NewRecord, user: User, now: Date) async throws -> (HealthRecord, [BadgeDefinition]) {
        let entry = try HealthRules.validate(type: input.type, value: input.value, unit: input.unit, start: input.start, end: input.end, now: now)
        let draft = HealthRecordDraft(type: entry.type.rawValue, value: entry.value, unit: entry.unit,
                                      start: Int64(saturating: entry.start.timeIntervalSince1970), end: Int64(saturating: entry.end.timeIntervalSince1970))
        guard try await records.insert([draft], userID: user.id, source: .manual, now: now) == 1 else { throw HealthError.duplicate }
        let at = Date(timeIntervalSince1970: TimeInterval(draft.start))
        guard let stored = try await records.list(userID: user.id, filter: .init(type: draft.type, from: at, to: at, limit: 50))
            .first(where: { $0.value == draft.value && Int64(saturating: $0.end.timeIntervalSince1970) == draft.end && $0.device.isEmpty }) else {
            throw HealthError.recordNotFound
        }
        let earned = try await awardBadges(user: user, now: now)
        return (stored, earned)
    }

    public func update(id: String, _ input: NewRecord, user: User, now: Date) async throws -> HealthRecord {
        guard var record = try await records.find(id: id, userID: user.id) else { throw HealthError.recordNotFound }
        let entry = try HealthRules.validate(type: input.type, value: input.value, unit: input.unit, start: input.start, end: input.end, now: now)
        record.type = entry.type.rawValue
        record.value = entry.value
        record.unit = entry.unit
        record.start = entry.start
        record.end = entry.end
        try await records.update(record, userID: user.id)
        // Deleted by a request that ran between the write and this read: gone, as a 404 says.
        guard let updated = try await records.find(id: id, userID: user.id) else { throw HealthError.recordNotFound }
        return updated
    }

    public func facts(user: User, now: Date) async throws -> BadgeFacts {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let days = StreakCalculator.localDays(try await records.activeQuarterHours(userID: user.id), timeZone: zone)
        let first = try await records.latest(userID: user.id, type: HealthDataType.weight.rawValue, ascending: true)
        let last = try await records.latest(userID: user.id, type: HealthDataType.weight.rawValue)
        let nowSeconds = Int64(saturating: now.timeIntervalSince1970) + 86400
        _ = try await goalProgress(user: user, now: now)
        return BadgeFacts(
            totalRecords: try await records.count(userID: user.id),
            longestStreakDays: StreakCalculator.longestStreak(days: days),
            goalsAchieved: try await goals.achievedCount(userID: user.id),
            weightLossKg: max(0, (first?.value ?? 0) - (last?.value ?? first?.value ?? 0)),
            stepsTotal: try await records.sum(userID: user.id, type: HealthDataType.steps.rawValue, from: 0, to: nowSeconds))
    }

    @discardableResult
    /// Every record of the user as CSV text (header first), read page by page so a long history never
    /// sits in memory as rows and text at once.
    public func csvExport(userID: String) async throws -> String {
        var text = HealthCSV.header + "\n"
        var offset = 0
        while true {
            let page = try await records.list(userID: userID, filter: .init(limit: 5000, offset: offset))
            for record in page { text += HealthCSV.line(record) + "\n" }
            if page.count < 5000 { break }
            offset += page.count
        }
        return text
    }

    public func awardBadges(user: User, now: Date) async throws -> [BadgeDefinition] {
        let earned = Set(try await badges.earned(userID: user.id).map(\.key))
        guard earned.count < BadgeRules.all.count else { return [] }
        let new = BadgeRules.newlyEarned(facts: try await facts(user: user, now: now), alreadyEarned: earned)
        try await badges.award(new.map(\.key), userID: user.id, at: now)
        return new
    }

    /// Stores a goal and evaluates it at once: a goal already met is reached now, not when the next record arrives.
    /// The badges that earns come back with it.
    public func createGoal(user: User, type rawType: String, target: Double?, deadline: Date?, now: Date) async throws -> (Goal, [BadgeDefinition]) {
        guard let type = HealthDataType(rawValue: rawType), HealthDataType.manual.contains(type) else { throw HealthError.unknownType(rawType) }
        guard let target, target.isFinite, target > 0 else {
            throw HealthError.invalidField("target", Text(en: "must be a positive number", ja: "正の数を入力してください"))
        }
        if let deadline, deadline <= now {
            throw HealthError.invalidField("deadline", Text(en: "must be in the future (or left empty for no deadline)",
                                                            ja: "未来の日付を指定してください(期限なしなら空欄)"))
        }
        let range = HealthUnits.plausibleRange(for: type)
        if !type.isCumulative, !range.contains(target) {
            throw HealthError.outOfRange(type: type.rawValue, min: range.lowerBound, max: range.upperBound, unit: type.canonicalUnit)
        }
        let start = try await records.latest(userID: user.id, type: type.rawValue)?.value
        let goal = Goal(id: UUID().uuidString, type: type, targetValue: target, deadline: deadline, createdAt: now, startValue: start, achievedAt: nil)
        try await goals.insert(goal, userID: user.id)
        let earned = try await awardBadges(user: user, now: now)
        return (try await goals.find(id: goal.id, userID: user.id) ?? goal, earned)
    }

    /// Deletes a goal; a "Goal reached" badge that no remaining goal stands behind goes with it (a goal
    /// of "10,000" once read as 10 earned the badge, and it outlived the goal on the review and its share card).
    public func deleteGoal(id: String, user: User, now: Date) async throws -> Bool {
        guard try await goals.delete(id: id, userID: user.id) else { return false }
        let earned = Set(try await badges.earned(userID: user.id).map(\.key))
        let withdrawn = BadgeRules.withdrawn(facts: try await facts(user: user, now: now), earned: earned)
        try await badges.revoke(withdrawn.map(\.key), userID: user.id)
        return true
    }

    /// Every goal with its progress; a goal reached for the first time is stamped achieved, for good.
    public func goalProgress(user: User, now: Date) async throws -> [(Goal, GoalProgress)] {
        var result: [(Goal, GoalProgress)] = []
        for var goal in try await goals.list(userID: user.id) {
            var from = Int64(saturating: goal.createdAt.timeIntervalSince1970) - 86400
            let to = Int64(saturating: min(goal.deadline ?? now, now).timeIntervalSince1970)
            if GoalRules.isDaily(goal) {
                let zone = TimeZone(identifier: user.timeZone) ?? .gmt
                from = Int64(StreakCalculator.today(now: now, timeZone: zone)) * 86400 - Int64(zone.secondsFromGMT(for: now))
            }
            let total: Double
            if goal.type == .sleep {
                // By night: summing sleep records counted in-bed, stage and second-source records of one night again.
                total = try await sleepHours(user: user, endingFrom: from, to: to)
            } else {
                total = goal.type.isCumulative ? try await records.sum(userID: user.id, type: goal.type.rawValue, from: from, to: to) : 0
            }
            let latest = goal.type.isCumulative ? nil : try await records.latest(userID: user.id, type: goal.type.rawValue)?.value
            let progress = GoalRules.progress(goal: goal, total: total, latest: latest, now: now)
            if progress.status == .achieved, goal.achievedAt == nil {
                try await goals.markAchieved(id: goal.id, userID: user.id, at: now)
                goal.achievedAt = now
            }
            result.append((goal, progress))
        }
        return result
    }

    public func trends(user: User, type: HealthDataType, range: TrendRange, now: Date) async throws -> TrendAnalysis {
        try await trends(user: user, type: type, selection: .range(range), now: now).analysis
    }

    /// The trend over a chosen window, and the days the person has records of this type on (for "your data runs from…").
    public func trends(user: User, type: HealthDataType, selection: TrendSelection, now: Date) async throws -> TrendResult {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let span = try await records.span(userID: user.id, type: type.rawValue).map {
            TrendWindow(firstDay: TrendAnalyzer.localDay($0.first, timeZone: zone), lastDay: TrendAnalyzer.localDay($0.last, timeZone: zone))
        }
        let window: TrendWindow
        switch selection {
        case let .range(range):
            let days = TrendAnalyzer.window(range, now: now, timeZone: zone)
            window = TrendWindow(firstDay: days.firstDay, lastDay: days.lastDay)
        case .all:
            let today = StreakCalculator.today(now: now, timeZone: zone)
            window = span ?? TrendWindow(firstDay: today, lastDay: today)
        case let .days(first, last):
            window = TrendWindow(firstDay: Int(first.daysSince1970), lastDay: Int(last.daysSince1970))
        }
        // A day's instants lie within a day of its UTC midnight whatever the zone; the analyzer keeps only the window's days.
        // Sleep is counted by night (stages and sources overlap; adding records up counted a night several times).
        let nights = type == .sleep ? try await sleepNights(user: user, firstDay: window.firstDay, lastDay: window.lastDay) : []
        let samples = type == .sleep ? SleepNights.trendSamples(nights)
            : try await records.samples(userID: user.id, type: type.rawValue, from: Int64(window.firstDay - 1) * 86400, to: Int64(window.lastDay + 2) * 86400)
        var targetBelow: Bool?
        if type == .weight, let target = try await profiles.get(userID: user.id).targetWeightKg, let last = samples.last {
            targetBelow = target < last.value
        }
        var analysis = TrendAnalyzer.analyze(samples: samples, type: type, window: window, timeZone: zone, targetBelowCurrent: targetBelow)
        if let average = SleepNights.averageInsight(nights) {
            analysis = TrendAnalysis(trendPoints: analysis.trendPoints, insights: [average] + analysis.insights, slopePerDay: analysis.slopePerDay,
                                     rSquared: analysis.rSquared)
        }
        return TrendResult(window: window, analysis: analysis, dataSpan: span)
    }
}

extension HealthService {
    public func createReminder(user: User, time: String, weekdays: [Int], message: String, webhookURL: String?, now: Date) async throws -> Reminder {
        guard let minute = ReminderSchedule.parseTime(time) else {
            throw HealthError.invalidField("time", Text(en: "use HH:MM, e.g. 07:30", ja: "07:30 のように HH:MM で入力してください"))
        }
        guard weekdays.allSatisfy({ (1...7).contains($0) }) else {
            throw HealthError.invalidField("weekdays", Text(en: "days are 1 (Sunday) to 7 (Saturday)", ja: "曜日は 1(日)〜7(土)で指定してください"))
        }
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= 200 else {
            throw HealthError.invalidField("message", Text(en: "write 1 to 200 characters", ja: "1〜200文字で入力してください"))
        }
        var hook: String?
        if let raw = webhookURL?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard raw.count <= 500, let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw HealthError.invalidField("webhookURL", Text(en: "must be an http(s) URL", ja: "http(s) の URL を入力してください"))
            }
            guard await outbound.permittedAddress(for: raw) != nil else {
                throw HealthError.invalidField("webhookURL", Text(
                    en: "points at this server's own network (or cannot be found); webhooks go to addresses on the internet",
                    ja: "このサーバー自身のネットワーク上のアドレス(または見つからないアドレス)です。Webhook はインターネット上のアドレスにのみ送れます"))
            }
            hook = raw
        }
        let reminder = Reminder(id: UUID().uuidString, minuteOfDay: minute, weekdays: Set(weekdays), message: text, webhookURL: hook,
                                lastSentSlot: nil, createdAt: now)
        try await reminders.insert(reminder, userID: user.id)
        return reminder
    }

    public func importCSV(_ text: String, user: User, now: Date) async throws -> CSVImportResponse {
        let drafts = try HealthCSV.parse(text, now: now)
        let inserted = try await records.insert(drafts, userID: user.id, source: .csv, now: now)
        _ = try await awardBadges(user: user, now: now)
        return CSVImportResponse(inserted: inserted, duplicates: drafts.count - inserted)
    }

    public func reminderResponse(_ r: Reminder, user: User, now: Date) -> ReminderResponse {
        ReminderResponse(id: r.id, time: ReminderSchedule.formatTime(r.minuteOfDay), weekdays: r.weekdays.sorted(), message: r.message,
                         webhookURL: r.webhookURL,
                         nextAt: ReminderSchedule.nextSlot(minuteOfDay: r.minuteOfDay, weekdays: r.weekdays,
                                                           timeZone: TimeZone(identifier: user.timeZone) ?? .gmt, now: now))
    }

    public func updateProfile(user: User, body: HealthProfileBody, now: Date) async throws -> HealthProfile {
        var profile = try await profiles.get(userID: user.id)
        if let name = body.name {
            guard name.count <= 100 else { throw HealthError.invalidField("name", Text(en: "at most 100 characters", ja: "100文字以内で入力してください")) }
            profile.name = name.isEmpty ? nil : name
        }
        if let birth = body.birthDate {
            if birth.isEmpty { profile.birthDate = nil } else {
                guard let seconds = AppleHealthMapping.parseDate(birth), birth.count == 10, seconds < Int64(saturating: now.timeIntervalSince1970), seconds > -5_000_000_000 else {
                    throw HealthError.invalidField("birthDate", Text(en: "use a past date as YYYY-MM-DD", ja: "過去の日付を YYYY-MM-DD で入力してください"))
                }
                profile.birthDate = birth
            }
        }
        if let height = body.heightCm {
            guard (30...272).contains(height) else { throw HealthError.invalidField("heightCm", Text(en: "must be between 30 and 272 cm", ja: "30〜272 cm の範囲で入力してください")) }
            profile.heightCm = height
        }
        if let target = body.targetWeightKg {
            guard (1...500).contains(target) else { throw HealthError.outOfRange(type: "weight", min: 1, max: 500, unit: "kg") }
            profile.targetWeightKg = target
        }
        if let w = body.weightUnit {
            guard let unit = UnitPreferences.Weight(rawValue: w) else { throw HealthError.invalidField("weightUnit", Text(en: "kg or lb", ja: "kg または lb")) }
            profile.units.weight = unit
        }
        if let d = body.distanceUnit {
            guard let unit = UnitPreferences.Distance(rawValue: d) else { throw HealthError.invalidField("distanceUnit", Text(en: "km or mi", ja: "km または mi")) }
            profile.units.distance = unit
        }
        if let e = body.energyUnit {
            guard let unit = UnitPreferences.Energy(rawValue: e) else { throw HealthError.invalidField("energyUnit", Text(en: "kcal or kJ", ja: "kcal または kJ")) }
            profile.units.energy = unit
        }
        try await profiles.save(profile, userID: user.id, now: now)
        return profile
    }
}

// MARK: read methods for the journal

extension HealthService {
    /// One type's sum and count in one time bucket (a quarter hour, an hour or a local day, chosen by the caller).
    public struct BucketTotal: Sendable, Equatable {
        public let type: String
        /// The bucket's first instant, in seconds since 1970.
        public let start: Int64
        public let sum: Double
        public let count: Int
    }

    /// Sums per type and bucket of `bucket` seconds shifted by `shift` (a zone's offset, so a day bucket is a local
    /// day), summed by the database: one row per bucket, not per record. Sleep is placed by when it ends (the night
    /// before belongs to the morning), and time in bed or awake is not sleep. `types` nil means every type.
    public func bucketTotals(userID: String, types: [String]?, from: Date, to: Date, bucket: Int64, shift: Int64) async throws -> [BucketTotal] {
        let bucket = max(60, bucket)
        let lower = Int64(saturating: from.timeIntervalSince1970) - 86400  // a night's sleep starts the day before it ends
        let upper = Int64(saturating: to.timeIntervalSince1970)
        var query: SQLQueryString = """
            SELECT type, ((CASE WHEN type = 'sleep' THEN end_at ELSE start_at END) + \(bind: shift)) / \(bind: bucket) AS q, \
            SUM(\(unsafeRaw: HealthRecordStore.summableValue)) AS total, COUNT(*) AS n FROM health_records \
            WHERE user_id = \(bind: userID) AND start_at >= \(bind: lower) AND start_at < \(bind: upper) \
            AND type <> 'sleep'
            """
        if let types {
            guard !types.isEmpty else { return [] }
            query.appendInterpolation(unsafeRaw: " AND type IN (")
            for (index, type) in types.enumerated() {
                if index > 0 { query.appendInterpolation(unsafeRaw: ", ") }
                query.appendInterpolation(bind: type)
            }
            query.appendInterpolation(unsafeRaw: ")")
        }
        query.appendInterpolation(unsafeRaw: " GROUP BY type, q")
        let fromSeconds = Int64(saturating: from.timeIntervalSince1970)
        let totals = Mutex<[BucketTotal]>([])
        try await database.sql.raw(query).run { row in
            guard let type = try? row.decode(column: "type", as: String.self), let q = try? row.decode(column: "q", as: Int64.self),
                  let total = try? row.decode(column: "total", as: Double.self), let n = try? row.decode(column: "n", as: Int.self) else { return }
            let start = q * bucket - shift
            if start + bucket > fromSeconds, start < upper { totals.withLock { $0.append(BucketTotal(type: type, start: start, sum: total, count: n)) } }
        }
        var result = totals.withLock { $0 }
        if types?.contains(HealthDataType.sleep.rawValue) ?? true {
            result += try await sleepBucketTotals(userID: userID, from: lower, to: upper, firstInstant: fromSeconds, bucket: bucket, shift: shift)
        }
        return result
    }

    /// Sleep per bucket by night (`SleepNights`): hours asleep, each night once, in the bucket it ends in; time in bed
    /// or awake is not sleep. Adding the records up counted a night twice when a watch and an app both recorded it.
    func sleepBucketTotals(userID: String, from: Int64, to: Int64, firstInstant: Int64, bucket: Int64, shift: Int64) async throws -> [BucketTotal] {
        let rows = try await records.list(userID: userID, filter: .init(type: HealthDataType.sleep.rawValue, from: Date(timeIntervalSince1970: TimeInterval(from)),
                                                                         to: Date(timeIntervalSince1970: TimeInterval(to - 1)), limit: Self.sleepRecordLimit))
        var sums: [Int64: (Double, Int)] = [:]
        for night in SleepNights.nights(rows.compactMap(Self.sleepSample), timeZone: .gmt) where night.asleepHours > 0 {
            let start = Self.floorDiv(night.end &+ shift, bucket) * bucket - shift
            guard start + bucket > firstInstant, start < to else { continue }
            let current = sums[start] ?? (0, 0)
            sums[start] = (current.0 + night.asleepHours, current.1 + night.samples)
        }
        return sums.sorted { $0.key < $1.key }.map { BucketTotal(type: HealthDataType.sleep.rawValue, start: $0.key, sum: $0.value.0, count: $0.value.1) }
    }

    /// When the first record starts, for paging back through time without scanning past it.
    public func firstRecordDate(userID: String) async throws -> Date? {
        let row = try await database.sql.raw("SELECT MIN(start_at) AS first FROM health_records WHERE user_id = \(bind: userID)").first()
        return try row?.decode(column: "first", as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Records whose type, category, source, device or notes (imported metadata) contain every word of `query`; what
    /// search everywhere finds in health, newest first. Only the newest `window` records are looked at: a LIKE cannot
    /// use an index, and years of Apple Health data are millions of rows (the window is months of a watch's samples,
    /// years of hand-entered records).
    public func search(userID: String, query: String, limit: Int, window: Int = 100_000) async throws -> [HealthRecord] {
        let words = query.lowercased().split(whereSeparator: \.isWhitespace).prefix(8)
        guard !words.isEmpty else { return [] }
        let columns = HealthRecordStore.columns.joined(separator: ", ")
        var sql: SQLQueryString = """
            SELECT \(unsafeRaw: columns) FROM (SELECT \(unsafeRaw: columns) FROM health_records WHERE user_id = \(bind: userID) \
            ORDER BY start_at DESC LIMIT \(unsafeRaw: String(max(1, min(window, 1_000_000))))) AS recent WHERE 1 = 1
            """
        for word in words {
            let pattern = "%" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            sql.appendInterpolation(unsafeRaw: " AND (LOWER(type) LIKE ")
            sql.appendInterpolation(bind: pattern)
            sql.appendInterpolation(unsafeRaw: " ESCAPE '\\' OR LOWER(category) LIKE ")
            sql.appendInterpolation(bind: pattern)
            sql.appendInterpolation(unsafeRaw: " ESCAPE '\\' OR LOWER(device) LIKE ")
            sql.appendInterpolation(bind: pattern)
            sql.appendInterpolation(unsafeRaw: " ESCAPE '\\' OR LOWER(source) LIKE ")
            sql.appendInterpolation(bind: pattern)
            sql.appendInterpolation(unsafeRaw: " ESCAPE '\\' OR LOWER(COALESCE(details, '')) LIKE ")
            sql.appendInterpolation(bind: pattern)
            sql.appendInterpolation(unsafeRaw: " ESCAPE '\\')")
        }
        sql.appendInterpolation(unsafeRaw: " ORDER BY start_at DESC LIMIT \(max(1, min(limit, 1000)))")
        return try await database.sql.raw(sql).all().map(HealthRecordStore.decode)
    }
}
