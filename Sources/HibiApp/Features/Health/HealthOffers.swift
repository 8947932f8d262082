import Foundation

// Health's side of the protocols in Shared/Offers (what it adds to Journal's search and checklist).
extension HealthFeature: SearchOffer, GettingStartedOffer {
    /// Health matches are records, which can be many a day (every sample from one watch): the newest few are enough to find the day.
    static let searchLimit = 50
    /// The newest records a health search reads: every one is matched by LIKE over five columns, which no index
    /// helps, so this is what bounds the search's time (about a month of a watch's samples, years of records
    /// entered by hand). Older records are found on their day's page and in Health.
    static let searchWindow = 25_000

    /// A record's notes (its metadata), the category (a workout's activity, a sleep stage) and where it came from,
    /// each found on its day's page.
    public func searchHits(_ search: JournalSearch) async throws -> [SearchHit] {
        let language = search.language
        return try await service.search(userID: search.user.id, query: search.query, limit: Self.searchLimit, window: Self.searchWindow).map { record in
            let day = DayKey(record.start, timeZone: search.timeZone)
            // In words, as the day's page shows it: the type's name, the activity, the device, where it came from,
            // and the metadata as labelled values (it was shown as JSON).
            let category = record.category.isEmpty ? "" : AppleTypeNames.category(record.category)(language)
            let what = [HealthDataType.title(of: record.type)(language), category, record.device, record.source.title(language)]
                .filter { !$0.isEmpty }.joined(separator: " · ")
            let labelled = HealthDetails.labelled(record.details, language: language).joined(separator: " · ")
            let notes = labelled.isEmpty ? "" : " — " + String(labelled.prefix(160))
            return SearchHit(domain: .health, id: record.id, title: day.description, snippet: what + notes, date: record.start,
                             path: search.dayPath(day) + "#day-health")
        }
    }

    public func gettingStartedSteps(userID: String) async throws -> [GettingStarted.Step] {
        Self.gettingStartedSteps(records: try await service.records.count(userID: userID))
    }

    static func gettingStartedSteps(records: Int) -> [GettingStarted.Step] {
        [GettingStarted.Step(key: "health", title: Text(en: "Import Apple Health", ja: "Apple ヘルスケアを読み込む"),
                             help: Text(en: "Upload the export from your iPhone, or type a record.", ja: "iPhone の書き出しファイルをアップロードするか、記録を入力します。"),
                             href: HealthPaths.importPage, done: records > 0)]
    }
}

// What Health adds to the takeout: records as CSV and JSON, goals, workouts with their routes as GPX, the
// electrocardiograms as Apple wrote them, the health profile and the reminders; records are read back.
extension HealthFeature: TakeoutOffer {
    struct ProfileExport: Codable, Sendable {
        let birthDate: String?
        let heightCm: Double?
        let targetWeightKg: Double?
        let weightUnit: String
        let distanceUnit: String
        let energyUnit: String
    }

    struct GoalExport: Codable, Sendable {
        let type: String
        let targetValue: Double
        let deadline: Date?
        let createdAt: Date
        let startValue: Double?
        let achievedAt: Date?
    }

    struct ReminderExport: Codable, Sendable {
        /// Local time, HH:mm.
        let time: String
        /// 1 (Sunday) … 7 (Saturday).
        let weekdays: [Int]
        let message: String
        let webhookURL: String?
    }

    public func takeoutProfile(user: User) async throws -> [String: any Encodable & Sendable] {
        guard let profile = try? await service.profiles.get(userID: user.id) else { return [:] }
        return ["healthProfile": ProfileExport(birthDate: profile.birthDate, heightCm: profile.heightCm, targetWeightKg: profile.targetWeightKg,
                                               weightUnit: profile.units.weight.rawValue, distanceUnit: profile.units.distance.rawValue,
                                               energyUnit: profile.units.energy.rawValue)]
    }

    public func takeoutSettings(user: User) async throws -> [String: any Encodable & Sendable] {
        ["reminders": try await service.reminders.list(userID: user.id).map {
            ReminderExport(time: String(format: "%02d:%02d", $0.minuteOfDay / 60, $0.minuteOfDay % 60), weekdays: $0.weekdays.sorted(),
                           message: $0.message, webhookURL: $0.webhookURL)
        }]
    }

    public func writeTakeout(user: User, into archive: TakeoutArchive) async throws {
        // Health records go through spool files a page at a time, then in mapped from disk: a long history
        // never sits in memory as rows and text at once.
        let csvPath = archive.spoolPath("csv"), jsonPath = archive.spoolPath("json")
        defer { try? FileManager.default.removeItem(atPath: csvPath); try? FileManager.default.removeItem(atPath: jsonPath) }
        try await spoolRecords(userID: user.id, csv: csvPath, json: jsonPath)
        try await archive.add("health/records.csv", try Data(contentsOf: URL(fileURLWithPath: csvPath), options: .alwaysMapped))
        try await archive.add("health/records.json", try Data(contentsOf: URL(fileURLWithPath: jsonPath), options: .alwaysMapped))
        try await archive.addJSON("health/goals.json", try await service.goals.list(userID: user.id).map {
            GoalExport(type: $0.type.rawValue, targetValue: $0.targetValue, deadline: $0.deadline, createdAt: $0.createdAt,
                       startValue: $0.startValue, achievedAt: $0.achievedAt)
        })
        // Workouts with their statistics, each route as GPX (read back by Hibi's and other tools' GPX readers),
        // and the electrocardiograms as Apple wrote them; one route and one file in memory at a time.
        var workouts: [HealthService.WorkoutExport] = []
        try await service.forEachWorkout(userID: user.id) { workout, route in
            let file = route.isEmpty ? nil : "health/workout-routes/\(workout.id).gpx"
            if let file { try await archive.add(file, WorkoutRouteGPX.write(workout, points: route)) }
            workouts.append(HealthService.WorkoutExport(
                id: workout.id, activity: workout.activity, start: workout.start, end: workout.end,
                durationMinutes: WorkoutTracks.finite(workout.durationMinutes), distanceKm: workout.distanceKm.flatMap(WorkoutTracks.finite),
                energyKcal: workout.energyKcal.flatMap(WorkoutTracks.finite), device: workout.device, details: workout.details,
                routePoints: route.count, routeFile: file))
        }
        try await archive.addJSON("health/workouts.json", workouts)
        for file in service.electrocardiograms.list(userID: user.id) {
            guard let path = service.electrocardiograms.path(name: file.name, userID: user.id) else { continue }
            try await archive.add("health/electrocardiograms/\(file.name)", try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
        }
    }

    public func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> [String: Int] {
        guard let csv = try reader.contents(of: "health/records.csv") else { return ["healthRecords": 0] }
        return ["healthRecords": try await service.importCSV(String(decoding: csv, as: UTF8.self), user: user, now: now).inserted]
    }

    private func spoolRecords(userID: String, csv: String, json: String) async throws {
        guard FileManager.default.createFile(atPath: csv, contents: nil, attributes: [.posixPermissions: 0o600]),
              FileManager.default.createFile(atPath: json, contents: nil, attributes: [.posixPermissions: 0o600]),
              let csvHandle = FileHandle(forWritingAtPath: csv), let jsonHandle = FileHandle(forWritingAtPath: json) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? csvHandle.close(); try? jsonHandle.close() }
        try csvHandle.write(contentsOf: Data((HealthCSV.header + "\n").utf8))
        try jsonHandle.write(contentsOf: Data("[".utf8))
        let encoder = JSONCoding.encoder
        var offset = 0, first = true
        while true {
            let page = try await service.records.list(userID: userID, filter: .init(limit: 5000, offset: offset))
            var text = ""
            var objects = Data()
            for record in page {
                text += HealthCSV.line(record) + "\n"
                objects.append(contentsOf: Array((first ? "\n" : ",\n").utf8))
                objects.append(try encoder.encode(record))
                first = false
            }
            try csvHandle.write(contentsOf: Data(text.utf8))
            try jsonHandle.write(contentsOf: objects)
            if page.count < 5000 { break }
            offset += page.count
        }
        try jsonHandle.write(contentsOf: Data("\n]\n".utf8))
    }
}

/// Health's side of `WorkoutRecorder`: a route file the location import read becomes a workout through the export
/// import's writer (`AppleHealthImporter.write`: the workout's identity makes a second upload a duplicate). Needs
/// only the database, so the assembly builds it before Visits, which Health itself is built after.
public struct RouteFileWorkouts: WorkoutRecorder {
    let database: Database

    public init(database: Database) { self.database = database }

    public func recordWorkout(_ file: RecordedWorkout, userID: String) async throws -> ImportReport {
        var batch = AppleHealthImporter.Batch()
        switch RouteFileWorkout.workout(file) {
        case let .workout(workout):
            batch.workouts = [workout]
        case let .skipped(reason):
            batch.skips = [ImportSkip(kind: "Workout", reason: reason, at: file.source)]
        }
        let items = batch
        var report = try await database.transaction { sql in
            try await AppleHealthImporter.write(items, userID: userID, on: sql).report
        }
        // The points past the route's limit are in the location history, not in the workout's route: said, with their number.
        if file.routePointsLeftOut > 0, !items.workouts.isEmpty {
            report.skip("Location", .tooMany, at: "point \(RecordedWorkout.maxRoutePoints + 1)")
            if let kind = report.kinds.firstIndex(where: { $0.kind == "Location" }),
               let skip = report.kinds[kind].skipped.firstIndex(where: { $0.reason == .tooMany }) {
                report.kinds[kind].skipped[skip].count = file.routePointsLeftOut
            }
        }
        return report
    }
}

extension HealthFeature: DayPageOffer {
    /// Heart-rate samples can be thousands a day; they are summarised, so this only bounds memory.
    static let dayRecordLimit = 50_000
    /// Workouts drawn on one day's page; a day with more is generated data, and Health lists them all.
    static let dayWorkoutLimit = 50

    public func dayPart(_ day: DayQuery) async throws -> DayPart {
        let user = day.user
        // Read side by side (the database has several connections).
        async let records = service.records.list(userID: user.id, filter: .init(from: day.interval.start, to: day.lastSecond, limit: Self.dayRecordLimit))
        async let night = service.sleepNight(user: user, day: Int(day.key.daysSince1970))
        async let workouts = dayWorkouts(user: user, interval: DateInterval(start: day.interval.start, end: day.lastSecond))
        let units = try await service.profiles.get(userID: user.id).units
        return HealthDayViews.part(lines: HealthDay.summarize(try await records), night: try await night, workouts: try await workouts,
                                   units: units, day: day)
    }

    func dayWorkouts(user: User, interval: DateInterval) async throws -> [HealthDayViews.Workout] {
        var workouts: [HealthDayViews.Workout] = []
        for workout in try await service.workouts(user: user, in: interval, limit: Self.dayWorkoutLimit) {
            let route = try await service.workoutRoute(user: user, workoutID: workout.id)
            workouts.append(.init(workout: workout, route: DayPlace.thin(route)))
        }
        return workouts
    }
}

extension HealthFeature: OverviewOffer {
    /// Health totals per local day (or hour, or quarter hour, over daylight-saving changes), so the database answers from
    /// its covering index. The calendar, timeline and reviews read every type the person has (the calendar's dot counts
    /// any record); insights over years read only the types they correlate, steps as one indexed SUM a day instead of a
    /// GROUP BY that sorts every sample (such a day counts as one record: insights only ask whether a day has any).
    public func dayFigures(_ range: DayRange) async throws -> [DayKey: DaySummary] {
        let userID = range.user.id, start = range.span.start, end = range.span.end
        let types: [String], summed: Set<String>
        if range.purpose == .insights {
            types = [HealthDataType.steps.rawValue, HealthDataType.sleep.rawValue, HealthDataType.workout.rawValue]
            summed = [HealthDataType.steps.rawValue]
        } else {
            types = try await service.recordTypes(userID: userID)
            summed = []
        }
        let grouped = types.filter { !summed.contains($0) || $0 == HealthDataType.sleep.rawValue }
        let (bucket, shift) = LocalDays.bucketing(range.span.timeZone, from: start, to: end)
        var totals = grouped.isEmpty ? [] : try await service.bucketTotals(userID: userID, types: grouped, from: start, to: end, bucket: bucket, shift: shift)
        let spans = LocalDays.offsetSpans(range.span.timeZone, from: Int64(saturating: start.timeIntervalSince1970), to: Int64(saturating: end.timeIntervalSince1970))
        for type in types where !grouped.contains(type) {
            for span in spans {
                totals += try await service.daySums(userID: userID, type: type, from: span.from, to: span.to, shift: span.shift)
                    .map { HealthService.BucketTotal(type: type, start: $0.start, sum: $0.sum, count: 1) }
            }
        }
        return Self.figures(totals, span: range.span)
    }

    /// Records counted per day; steps, sleep and workouts added up.
    static func figures(_ totals: [HealthService.BucketTotal], span: DaySpan) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        for total in totals {
            span.touch(&days, at: Date(timeIntervalSince1970: TimeInterval(total.start))) { day in
                day.healthRecords += total.count
                switch HealthDataType(rawValue: total.type) {
                case .steps: day.steps = (day.steps ?? 0) + total.sum
                case .sleep: day.sleepHours = (day.sleepHours ?? 0) + total.sum
                case .workout:
                    day.workouts += total.count
                    day.workoutMinutes += total.sum
                default: break
                }
            }
        }
        return days
    }

    public func firstRecorded(user: User, diaryOpen: Bool) async throws -> Date? {
        try await service.firstRecordDate(userID: user.id)
    }

    /// The badges earned in the period.
    public func achievements(user: User, from: Date, to: Date) async throws -> [Achievement] {
        try await service.badges.earned(userID: user.id).filter { $0.earnedAt >= from && $0.earnedAt < to }.compactMap { earned in
            BadgeRules.definition(earned.key).map { Achievement(key: $0.key, name: $0.name, earnedAt: earned.earnedAt) }
        }
    }
}

/// Health's share cards drawn for others (Journal's review card): the same drawing and renderer as Health's own.
public struct HealthShareCards: ShareCardDrawing {
    var renderer = ShareCardRenderer()

    public init() {}

    public func shareCardSVG(_ card: ShareCard, language: Language) -> String {
        HealthGraphics.shareCard(HealthGraphics.ShareSummary(title: card.title, lines: card.lines, badge: card.badge.flatMap(BadgeRules.definition),
                                                             name: card.name, footer: card.footer), language: language)
    }

    public func shareCardPNG(svg: String) async throws -> Data { try await renderer.png(svg: svg) }
}
