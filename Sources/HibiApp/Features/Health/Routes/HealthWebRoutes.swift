import Foundation
import Hummingbird
import NIOCore

struct HealthWebRoutes: Sendable {
    let health: HealthService
    let renderer: ShareCardRenderer

    func register(on router: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(HealthPaths.overview), use: overviewPage)
        router.post(RouterPath(HealthPaths.records), use: add)
        router.get(RouterPath(HealthPaths.editRecord(":id")), use: editPage)
        router.post(RouterPath(HealthPaths.record(":id")), use: update)
        router.post(RouterPath(HealthPaths.deleteRecord(":id")), use: deleteRecord)
        router.get(RouterPath(HealthPaths.importPage), use: importPage)
        router.get(RouterPath(HealthPaths.electrocardiogram(":name")), use: electrocardiogram)
        router.post(RouterPath(HealthPaths.importCSV), use: importCSV)
        router.get(RouterPath(HealthPaths.exportCSV), use: exportCSV)
        router.get(RouterPath(HealthPaths.trends), use: trendsPage)
        router.get(RouterPath(HealthPaths.goals), use: goals)
        router.post(RouterPath(HealthPaths.goals), use: createGoal)
        router.post(RouterPath(HealthPaths.deleteGoal(":id")), use: deleteGoal)
        router.post(RouterPath(HealthPaths.profile), use: saveProfile)
        router.get(RouterPath(HealthPaths.badges), use: badges)
        router.get(RouterPath(HealthPaths.badgeImage(file: ":file")), use: badgeImage)
        router.get(RouterPath(HealthPaths.reminders), use: reminders)
        router.post(RouterPath(HealthPaths.reminders), use: createReminder)
        router.post(RouterPath(HealthPaths.deleteReminder(":id")), use: deleteReminder)
        router.get(RouterPath(HealthPaths.share), use: sharePage)
        router.get(RouterPath(HealthPaths.shareCardSVG), use: shareCardSVG)
        router.get(RouterPath(HealthPaths.shareCardPNG), use: shareCardPNG)
    }

    @Sendable func overviewPage(_ request: Request, context: SignedInContext) async throws -> Response {
        try await overview(request, context)
    }

    @Sendable func add(_ request: Request, context: SignedInContext) async throws -> Response {
        try await addRecord(request, context)
    }

    @Sendable func editPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        guard let record = try await health.records.find(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.recordNotFound }
        return HTMLPage(HealthViews.edit(context: context.base, user: user, record: record, error: nil, values: nil))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> Response {
        try await updateRecord(request, context)
    }

    @Sendable func deleteRecord(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.records.delete(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.recordNotFound }
        return Response.redirect(to: HealthPaths.overviewDeleted, type: .normal)
    }

    @Sendable func importPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(HealthViews.importPage(context: context.base, user: user, jobs: try await health.jobs.list(userID: user.id), notice: nil,
                                               electrocardiograms: health.electrocardiograms.list(userID: user.id)))
    }

    @Sendable func electrocardiogram(_ request: Request, context: SignedInContext) async throws -> Response {
        try HealthDownloads.electrocardiogram(health, user: context.user, name: try context.parameters.require("name"))
    }

    @Sendable func importCSV(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form(limit: 1_048_576)
        let notice: (String, Layout.NoticeKind)
        var status = HTTPResponse.Status.ok
        do {
            let result = try await health.importCSV(form["csv"] ?? "", user: user, now: context.now)
            notice = (HealthStrings.fill(HealthStrings.importDone(context.language), String(result.inserted), String(result.duplicates)), .success)
        } catch let error as HealthError {
            notice = (error.message(context.language), .error)
            status = error.status
        }
        return HTMLPage(HealthViews.importPage(context: context.base, user: user, jobs: try await health.jobs.list(userID: user.id), notice: notice), status: status)
    }

    @Sendable func exportCSV(_ request: Request, context: SignedInContext) async throws -> Response {
        try await HealthDownloads.csv(health, user: context.user)
    }

    @Sendable func trendsPage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        let (type, selection) = try HealthRequest.trendSelection(request)
        let result = try await health.trends(user: user, type: type, selection: selection, now: context.now)
        return HTMLPage(HealthViews.trends(context: context.base, type: type, selection: selection, result: result,
                                           units: try await health.profiles.get(userID: user.id).units))
    }

    @Sendable func goals(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        try await goalsPage(context, notice: nil)
    }

    @Sendable func createGoal(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            let zone = TimeZone(identifier: user.timeZone) ?? .gmt
            // Empty: no deadline. Typed but not a date: said so, not taken as "no deadline".
            let typed = (form["deadline"] ?? "").trimmingCharacters(in: .whitespaces)
            let deadline = typed.isEmpty ? nil : Self.parseLocal(typed + "T23:59", zone: zone)
            if !typed.isEmpty, deadline == nil {
                throw HealthError.invalidField("deadline", Text(en: "is not a date", ja: "日付ではありません"))
            }
            var target = try HealthRules.number(form["target"], .typed(context.language))
            if form["type"] == HealthDataType.weight.rawValue, let t = target {
                let units = try await health.profiles.get(userID: user.id).units
                target = t * (HealthUnits.factor(from: units.weight.rawValue, for: .weight) ?? 1)
            }
            let (_, earned) = try await health.createGoal(user: user, type: form["type"] ?? "", target: target, deadline: deadline, now: context.now)
            let message = earned.first.map { HealthStrings.newBadge(context.language, $0.name(context.language)) } ?? CommonStrings.saved(context.language)
            return try await goalsPage(context, notice: (message, .success))
        } catch let error as HealthError {
            return try await goalsPage(context, notice: (error.message(context.language), .error), status: error.status)
        }
    }

    @Sendable func deleteGoal(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.deleteGoal(id: try context.parameters.require("id"), user: user, now: context.now) else { throw HealthError.goalNotFound }
        return Response.redirect(to: HealthPaths.goals, type: .normal)
    }

    @Sendable func saveProfile(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            let units = UnitPreferences.Weight(rawValue: form["weight_unit"] ?? "kg") ?? .kg
            var body = HealthProfileBody(HealthProfile())
            body.name = form["name"] ?? ""
            body.birthDate = form["birth_date"] ?? ""
            body.heightCm = nil
            body.targetWeightKg = nil
            if let text = form["height_cm"], !text.isEmpty {
                guard let h = try HealthRules.number(text, .typed(context.language)) else { throw HealthError.notANumber }
                body.heightCm = h
            }
            if let text = form["target_weight"], !text.isEmpty {
                guard let w = try HealthRules.number(text, .typed(context.language)) else { throw HealthError.notANumber }
                body.targetWeightKg = w * (HealthUnits.factor(from: units.rawValue, for: .weight) ?? 1)
            }
            body.weightUnit = form["weight_unit"]; body.distanceUnit = form["distance_unit"]; body.energyUnit = form["energy_unit"]
            _ = try await health.updateProfile(user: user, body: body, now: context.now)
            return try await goalsPage(context, notice: (CommonStrings.saved(context.language), .success))
        } catch let error as HealthError {
            return try await goalsPage(context, notice: (error.message(context.language), .error), status: error.status)
        }
    }

    @Sendable func badges(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(HealthViews.badges(context: context.base, user: user, earned: try await health.badges.earned(userID: user.id),
                                           facts: try await health.facts(user: user, now: context.now)))
    }

    @Sendable func badgeImage(_ request: Request, context: SignedInContext) async throws -> Response {
        let file = try context.parameters.require("file")
        guard file.hasSuffix(".svg"), let d = BadgeRules.definition(String(file.dropLast(4))) else { throw RequestError.notFound }
        let earned = request.uri.formQuery.get("state") != "locked"
        return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "private, max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(string: HealthGraphics.badge(d, earned: earned, language: context.language))))
    }

    @Sendable func reminders(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        try await remindersPage(context, notice: nil)
    }

    @Sendable func createReminder(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            _ = try await health.createReminder(user: user, time: form["time"] ?? "", weekdays: (1...7).filter { form.bool("day\($0)") },
                                                message: form["message"] ?? "", webhookURL: form["webhook_url"], now: context.now)
            return try await remindersPage(context, notice: (CommonStrings.saved(context.language), .success))
        } catch let error as HealthError {
            return try await remindersPage(context, notice: (error.message(context.language), .error), status: error.status)
        }
    }

    @Sendable func deleteReminder(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.reminders.delete(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.reminderNotFound }
        return Response.redirect(to: HealthPaths.reminders, type: .normal)
    }

    @Sendable func sharePage(_ request: Request, context: SignedInContext) async throws -> HTMLPage {
        let options = Self.shareOptions(request)
        let query = options.sorted().map { "\($0)=1" }.joined(separator: "&")
        return HTMLPage(HealthViews.share(context: context.base, query: query, options: options))
    }

    @Sendable func shareCardSVG(_ request: Request, context: SignedInContext) async throws -> Response {
        let svg = try await shareSVG(request, context)
        return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: svg)))
    }

    @Sendable func shareCardPNG(_ request: Request, context: SignedInContext) async throws -> Response {
        let png = try await renderer.png(svg: try await shareSVG(request, context))
        return FileResponse.attachment(png, contentType: "image/png", filename: "hibi-health.png")
    }

    static func shareOptions(_ request: Request) -> Set<String> {
        let q = request.uri.formQuery
        let chosen = Set(["steps", "streak", "badge", "weight", "name"].filter { q.get($0) == "1" })
        return chosen.isEmpty && (request.uri.query ?? "").isEmpty ? ["steps", "badge"] : chosen
    }

    func shareSVG(_ request: Request, _ context: SignedInContext) async throws -> String {
        let user = context.user
        let l = context.language
        let options = Self.shareOptions(request)
        let now = context.now
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let profile = try await health.profiles.get(userID: user.id)
        var lines: [(String, String)] = []
        if options.contains("steps") {
            let (first, _) = TrendAnalyzer.window(.week, now: now, timeZone: zone)
            let total = try await health.records.sum(userID: user.id, type: HealthDataType.steps.rawValue,
                                                     from: Int64(first) * 86400 - Int64(zone.secondsFromGMT(for: now)), to: Int64(saturating: now.timeIntervalSince1970))
            lines.append((HealthStrings.weekSteps(l), HealthFormat.grouped(total, maxFractionDigits: 0, language: l)))
        }
        if options.contains("streak") {
            let days = StreakCalculator.localDays(try await health.records.activeQuarterHours(userID: user.id), timeZone: zone)
            lines.append((HealthStrings.streak(l), HealthStrings.daysCount(l, StreakCalculator.currentStreak(days: days, today: StreakCalculator.today(now: now, timeZone: zone)))))
        }
        if options.contains("weight") {
            let samples = try await health.records.samples(userID: user.id, type: HealthDataType.weight.rawValue,
                                                           from: Int64(saturating: now.timeIntervalSince1970) - 30 * 86400, to: Int64(saturating: now.timeIntervalSince1970))
            if let first = samples.first, let last = samples.last {
                let change = HealthUnits.display(last.value - first.value, type: .weight, preferences: profile.units)
                lines.append((HealthStrings.weightChange(l), (change > 0 ? "+" : "") + HealthFormat.number(change) + " " + profile.units.weight.rawValue))
            }
        }
        var badge: BadgeDefinition?
        if options.contains("badge"), let latest = try await health.badges.earned(userID: user.id).last {
            badge = BadgeRules.definition(latest.key)
        }
        let summary = HealthGraphics.ShareSummary(title: HealthStrings.shareTitle(l), lines: lines, badge: badge,
                                                  name: options.contains("name") ? profile.name : nil, footer: HealthStrings.shareFooter(l))
        return HealthGraphics.shareCard(summary, language: l)
    }

    static func parseLocal(_ text: String, zone: TimeZone) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            f.dateFormat = format
            if let date = f.date(from: text) { return date }
        }
        return nil
    }

    func overview(_ request: Request, _ context: SignedInContext, notice: (String, Layout.NoticeKind)? = nil, form: [String: String] = [:],
                  status: HTTPResponse.Status = .ok) async throws -> Response {
        let user = context.user
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let now = context.now
        let q = request.uri.formQuery
        // 50 a page; one more is read to know whether an older page exists.
        let page = PageRequest.web(page: q.get("page"), perPage: 50)
        var filter = HealthRecordStore.Filter(limit: page.perPage + 1, offset: page.offset)
        let type = q.get("type").flatMap { $0.isEmpty ? nil : $0 }
        filter.type = type
        let from = q.get("from") ?? "", to = q.get("to") ?? ""
        if !from.isEmpty { filter.from = Self.parseLocal(from + "T00:00", zone: zone) }
        if !to.isEmpty { filter.to = Self.parseLocal(to + "T23:59", zone: zone) }
        let today = StreakCalculator.today(now: now, timeZone: zone)
        let midnight = Int64(today) * 86400 - Int64(zone.secondsFromGMT(for: now))
        let days = StreakCalculator.localDays(try await health.records.activeQuarterHours(userID: user.id), timeZone: zone)
        var notice = notice
        if notice == nil {
            if q.get("saved") != nil { notice = (HealthStrings.recordSaved(context.language), .success) }
            if q.get("deleted") != nil { notice = (HealthStrings.recordDeleted(context.language), .success) }
            if let key = q.get("badge"), let d = BadgeRules.definition(key) { notice = (HealthStrings.newBadge(context.language, d.name(context.language)), .success) }
        }
        let records = try await health.records.list(userID: user.id, filter: filter)
        var data = HealthViews.Overview(
            records: Array(records.prefix(page.perPage)), filterType: type, from: from, to: to,
            types: try await health.records.types(userID: user.id), units: try await health.profiles.get(userID: user.id).units,
            todaySteps: try await health.records.sum(userID: user.id, type: HealthDataType.steps.rawValue, from: midnight, to: midnight + 86399),
            latestWeight: try await health.records.latest(userID: user.id, type: HealthDataType.weight.rawValue),
            streak: StreakCalculator.currentStreak(days: days, today: today),
            earned: try await health.badges.earned(userID: user.id),
            reminders: try await health.reminders.list(userID: user.id).map { health.reminderResponse($0, user: user, now: now) },
            notice: notice, form: form)
        data.page = page.page
        data.hasOlder = records.count > page.perPage
        return try HTMLPage(HealthViews.overview(context: context.base, user: user, data: data, now: now), status: status).response(from: request, context: context.base)
    }

    func recordInput(_ form: FormData, zone: TimeZone, language: Language) throws -> HealthService.NewRecord {
        guard let start = form["start"].flatMap({ Self.parseLocal($0, zone: zone) }) else {
            throw HealthError.invalidField(HealthStrings.time(.en), Text(en: "enter a date and time", ja: "日時を入力してください"))
        }
        let end = form["end"].flatMap { $0.isEmpty ? nil : Self.parseLocal($0, zone: zone) }
        guard let value = try HealthRules.number(form["value"], .typed(language)) else { throw HealthError.notANumber }
        return .init(type: form["type"] ?? "", value: value, unit: form["unit"], start: start, end: end)
    }

    func addRecord(_ request: Request, _ context: SignedInContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        do {
            let (_, badges) = try await health.add(try recordInput(form, zone: TimeZone(identifier: user.timeZone) ?? .gmt, language: context.language), user: user, now: context.now)
            return .redirect(to: HealthPaths.overviewSaved(badge: badges.first?.key), type: .normal)
        } catch let error as HealthError {
            return try await overview(request, context, notice: (error.message(context.language), .error), form: form.fields, status: error.status)
        }
    }

    func updateRecord(_ request: Request, _ context: SignedInContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("id")
        var request = request
        let form = try await request.form()
        guard let record = try await health.records.find(id: id, userID: user.id) else { throw HealthError.recordNotFound }
        do {
            _ = try await health.update(id: id, try recordInput(form, zone: TimeZone(identifier: user.timeZone) ?? .gmt, language: context.language), user: user, now: context.now)
            return .redirect(to: HealthPaths.overviewSaved(), type: .normal)
        } catch let error as HealthError {
            return try HTMLPage(HealthViews.edit(context: context.base, user: user, record: record, error: error.message(context.language), values: form.fields),
                                status: error.status).response(from: request, context: context.base)
        }
    }

    func goalsPage(_ context: SignedInContext, notice: (String, Layout.NoticeKind)?, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(HealthViews.goals(context: context.base, user: user, profile: try await health.profiles.get(userID: user.id),
                                          goals: try await health.goalProgress(user: user, now: context.now), notice: notice), status: status)
    }

    func remindersPage(_ context: SignedInContext, notice: (String, Layout.NoticeKind)?, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let user = context.user
        let now = context.now
        return HTMLPage(HealthViews.reminders(context: context.base, reminders: try await health.reminders.list(userID: user.id).map {
            health.reminderResponse($0, user: user, now: now)
        }, notice: notice, user: user), status: status)
    }
}
