import Foundation
import Hummingbird
import NIOCore

struct HealthAPIRoutes: Sendable {
    let health: HealthService
    let importer: AppleHealthImporter
    let uploads: HealthUploads
    let bodyLimit: Int

    func register(on api: some RouterMethods<SignedInContext>) {
        api.get(RouterPath(HealthAPIPaths.records), use: list)
        api.post(RouterPath(HealthAPIPaths.records), use: add)
        api.get(RouterPath(HealthAPIPaths.record(":id")), use: record)
        api.put(RouterPath(HealthAPIPaths.record(":id")), use: update)
        api.delete(RouterPath(HealthAPIPaths.record(":id")), use: delete)
        api.get(RouterPath(HealthAPIPaths.exportCSV), use: exportCSV)
        api.post(RouterPath(HealthAPIPaths.importCSV), use: importCSV)
        // Health Auto Export's REST API automation: a personal API token with the write scope in its
        // Authorization header (checked by the identity and token-scope middleware like every API call).
        api.post(RouterPath(HealthAPIPaths.autoExport), use: autoExport)
        api.post(RouterPath(HealthAPIPaths.imports), use: upload)
        api.get(RouterPath(HealthAPIPaths.imports), use: jobs)
        api.get(RouterPath(HealthAPIPaths.importJob(":id")), use: job)
        api.get(RouterPath(HealthAPIPaths.electrocardiograms), use: electrocardiograms)
        api.get(RouterPath(HealthAPIPaths.electrocardiogram(":name")), use: electrocardiogram)
        api.get(RouterPath(HealthAPIPaths.profile), use: profile)
        api.put(RouterPath(HealthAPIPaths.profile), use: updateProfile)
        api.get(RouterPath(HealthAPIPaths.goals), use: goals)
        api.post(RouterPath(HealthAPIPaths.goals), use: createGoal)
        api.delete(RouterPath(HealthAPIPaths.goal(":id")), use: deleteGoal)
        api.get(RouterPath(HealthAPIPaths.badges), use: badges)
        api.get(RouterPath(HealthAPIPaths.trends), use: trends)
        api.get(RouterPath(HealthAPIPaths.reminders), use: reminders)
        api.post(RouterPath(HealthAPIPaths.reminders), use: createReminder)
        api.delete(RouterPath(HealthAPIPaths.reminder(":id")), use: deleteReminder)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> JSONBody<[HealthRecordResponse]> {
        let user = context.user
        let filter = try Self.filter(request)
        let units = try await health.profiles.get(userID: user.id).units
        return JSONBody(try await health.records.list(userID: user.id, filter: filter).map { HealthRecordResponse($0, units: units, language: context.language) })
    }

    @Sendable func add(_ request: Request, context: SignedInContext) async throws -> JSONBody<CreatedRecordResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(HealthRecordRequest.self, limit: bodyLimit)
        let (record, badges) = try await health.add(.init(type: body.type, value: body.value, unit: body.unit, start: body.start, end: body.end),
                                                    user: user, now: context.now)
        let units = try await health.profiles.get(userID: user.id).units
        return JSONBody(CreatedRecordResponse(record: HealthRecordResponse(record, units: units, language: context.language), newBadges: badges.map(\.key)), status: .created)
    }

    @Sendable func record(_ request: Request, context: SignedInContext) async throws -> JSONBody<HealthRecordResponse> {
        let user = context.user
        guard let record = try await health.records.find(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.recordNotFound }
        return JSONBody(HealthRecordResponse(record, units: try await health.profiles.get(userID: user.id).units, language: context.language))
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> JSONBody<HealthRecordResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(HealthRecordRequest.self, limit: bodyLimit)
        let record = try await health.update(id: try context.parameters.require("id"),
                                             .init(type: body.type, value: body.value, unit: body.unit, start: body.start, end: body.end),
                                             user: user, now: context.now)
        return JSONBody(HealthRecordResponse(record, units: try await health.profiles.get(userID: user.id).units, language: context.language))
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.records.delete(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.recordNotFound }
        return Response(status: .noContent)
    }

    @Sendable func exportCSV(_ request: Request, context: SignedInContext) async throws -> Response {
        try await HealthDownloads.csv(health, user: context.user)
    }

    @Sendable func importCSV(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("text/csv") { throw RequestError.unsupportedMediaType }
        var request = request
        let limit = 16 * 1_048_576
        let buffer = try await request.collectBody(limit: limit)
        return JSONBody(try await health.importCSV(String(decoding: buffer.readableBytesView, as: UTF8.self), user: user, now: context.now))
    }

    @Sendable func autoExport(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        JSONBody(try await uploads.receiveAutoExport(request, user: context.user, language: context.language, now: context.now))
    }

    @Sendable func upload(_ request: Request, context: SignedInContext) async throws -> JSONBody<ImportJobResponse> {
        let user = context.user
        let job = try await uploads.receive(request, user: user, fileName: request.uri.formQuery.get("name") ?? "export.xml", now: context.now)
        return JSONBody(ImportJobResponse(job, language: context.language), status: .accepted)
    }

    @Sendable func jobs(_ request: Request, context: SignedInContext) async throws -> JSONBody<[ImportJobResponse]> {
        let user = context.user
        return JSONBody(try await health.jobs.list(userID: user.id).map { ImportJobResponse($0, language: context.language) })
    }

    @Sendable func job(_ request: Request, context: SignedInContext) async throws -> JSONBody<ImportJobResponse> {
        let user = context.user
        guard let job = try await health.jobs.find(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.jobNotFound }
        return JSONBody(ImportJobResponse(job, language: context.language))
    }

    @Sendable func electrocardiograms(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        JSONBody(health.electrocardiograms.list(userID: context.user.id))
    }

    @Sendable func electrocardiogram(_ request: Request, context: SignedInContext) async throws -> Response {
        try HealthDownloads.electrocardiogram(health, user: context.user, name: try context.parameters.require("name"))
    }

    @Sendable func profile(_ request: Request, context: SignedInContext) async throws -> JSONBody<HealthProfileBody> {
        let user = context.user
        return JSONBody(HealthProfileBody(try await health.profiles.get(userID: user.id)))
    }

    @Sendable func updateProfile(_ request: Request, context: SignedInContext) async throws -> JSONBody<HealthProfileBody> {
        let user = context.user
        var request = request
        let body = try await request.json(HealthProfileBody.self, limit: bodyLimit)
        return JSONBody(HealthProfileBody(try await health.updateProfile(user: user, body: body, now: context.now)))
    }

    @Sendable func goals(_ request: Request, context: SignedInContext) async throws -> JSONBody<[GoalResponse]> {
        let user = context.user
        return JSONBody(try await health.goalProgress(user: user, now: context.now).map { GoalResponse($0.0, $0.1) })
    }

    @Sendable func createGoal(_ request: Request, context: SignedInContext) async throws -> JSONBody<GoalResponse> {
        let user = context.user
        var request = request
        let body = try await request.json(GoalRequest.self, limit: bodyLimit)
        let (goal, _) = try await health.createGoal(user: user, type: body.type, target: body.targetValue, deadline: body.deadline, now: context.now)
        guard let progress = try await health.goalProgress(user: user, now: context.now).first(where: { $0.0.id == goal.id }) else {
            throw HealthError.goalNotFound // deleted by a request that ran in between
        }
        return JSONBody(GoalResponse(progress.0, progress.1), status: .created)
    }

    @Sendable func deleteGoal(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.deleteGoal(id: try context.parameters.require("id"), user: user, now: context.now) else { throw HealthError.goalNotFound }
        return Response(status: .noContent)
    }

    @Sendable func badges(_ request: Request, context: SignedInContext) async throws -> JSONBody<[BadgeResponse]> {
        let user = context.user
        let earned = try await health.badges.earned(userID: user.id)
        let facts = try await health.facts(user: user, now: context.now)
        return JSONBody(BadgeRules.all.map { d in BadgeResponse(d, earned: earned.first { $0.key == d.key }, facts: facts, language: context.language) })
    }

    @Sendable func trends(_ request: Request, context: SignedInContext) async throws -> JSONBody<TrendResponse> {
        let user = context.user
        let (type, selection) = try HealthRequest.trendSelection(request)
        let result = try await health.trends(user: user, type: type, selection: selection, now: context.now)
        let analysis = result.analysis
        return JSONBody(TrendResponse(
            type: type.rawValue, range: selection.name, unit: type.canonicalUnit, points: analysis.trendPoints,
            insights: analysis.insights.map { .init(title: $0.title(context.language), description: $0.description(context.language),
                                                    type: $0.type.rawValue, confidence: $0.confidence) },
            slopePerDay: analysis.slopePerDay, rSquared: analysis.rSquared,
            from: result.window.first.description, to: result.window.last.description, bucket: result.window.bucket.rawValue,
            dataFrom: result.dataSpan?.first.description, dataTo: result.dataSpan?.last.description))
    }

    @Sendable func reminders(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        let now = context.now
        return JSONBody(try await health.reminders.list(userID: user.id).map { health.reminderResponse($0, user: user, now: now) })
    }

    @Sendable func createReminder(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        var request = request
        let body = try await request.json(ReminderRequest.self, limit: bodyLimit)
        let reminder = try await health.createReminder(user: user, time: body.time, weekdays: body.weekdays ?? [], message: body.message,
                                                       webhookURL: body.webhookURL, now: context.now)
        return JSONBody(health.reminderResponse(reminder, user: user, now: context.now), status: .created)
    }

    @Sendable func deleteReminder(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        guard try await health.reminders.delete(id: try context.parameters.require("id"), userID: user.id) else { throw HealthError.reminderNotFound }
        return Response(status: .noContent)
    }

    static func filter(_ request: Request) throws -> HealthRecordStore.Filter {
        let q = request.uri.formQuery
        var filter = HealthRecordStore.Filter()
        if let type = q.get("type"), !type.isEmpty { filter.type = type }
        for (name, keyPath) in [("from", \HealthRecordStore.Filter.from), ("to", \HealthRecordStore.Filter.to)] {
            if let text = q.get(name), !text.isEmpty {
                guard let date = HealthCSV.parseTime(text) else {
                    throw HealthError.invalidField(name, Text(en: "use an ISO-8601 time such as 2024-05-01T00:00:00Z", ja: "2024-05-01T00:00:00Z のような ISO-8601 形式で指定してください"))
                }
                filter[keyPath: keyPath] = date
            }
        }
        if let limit = try QueryNumber.strict(q.get("limit"), name: "limit", range: 1...1000) { filter.limit = limit }
        if let offset = try QueryNumber.strict(q.get("offset"), name: "offset", range: 0...10_000_000) { filter.offset = offset }
        return filter
    }
}

/// Streams an uploaded export to a file under the data directory, then starts the import job.
struct HealthUploads: Sendable {
    let directory: String
    let importer: AppleHealthImporter
    let launcher: HealthImportLauncher
    let limit: Int64
    /// Where Health Auto Export bodies are spooled while they are read: this instance's data directory
    /// (emptied at start, as no request is in flight then), not the shared media folder the sweeper walks.
    let autoExportDirectory: String
    let autoExportLimit: Int64

    /// A Health Auto Export post: the body streamed to a spool file (413 past the limit, before anything is
    /// parsed), read from there in two passes, and removed.
    func receiveAutoExport(_ request: Request, user: User, language: Language, now: Date) async throws -> AutoExportResponse {
        let path: String
        do {
            path = try await UploadSpool.receive(request.body, into: autoExportDirectory, suffix: ".json", limit: autoExportLimit).path
        } catch .tooLarge {
            throw RequestError.bodyTooLarge(limitBytes: Int(clamping: autoExportLimit))
        } catch .empty {
            throw AppleHealthImporter.invalidAutoExport(.notJSON)
        } catch .cannotCreate {
            throw HealthError.renderFailed
        } catch {
            throw HealthError.invalidPayload(Text(en: "the body stopped before its end; send it again.",
                                                  ja: "本文が途中で止まりました。もう一度送ってください。"))
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await importer.receiveAutoExport(path: path, user: user, language: language, now: now)
    }

    func receive(_ request: Request, user: User, fileName: String, now: Date) async throws -> ImportJob {
        // One import per person at a time, refused before a byte of the upload is stored.
        if try await importer.health.jobs.active(userID: user.id) != nil { throw RequestError.busy }
        let path: String
        do {
            path = try await UploadSpool.receive(request.body, into: directory, suffix: ".upload", limit: limit).path
        } catch .tooLarge {
            throw HealthError.uploadTooLarge(limitBytes: limit)
        } catch .empty {
            throw HealthError.notAnExport(Text(en: "the upload is empty.", ja: "アップロードされたファイルが空です。"))
        } catch .cannotCreate {
            throw HealthError.renderFailed
        } catch {
            throw HealthError.notAnExport(Text(en: "the upload stopped before its end; send the file again.",
                                               ja: "アップロードが途中で止まりました。もう一度送ってください。"))
        }
        do {
            let name = String(fileName.prefix(200))
            // Claimed before the job row exists: another instance's resume pass must not take a job that
            // this one is about to start.
            _ = try await launcher.leases.claim(HealthImportLauncher.leaseName(uploadPath: path), lease: launcher.lease)
            let job = try await importer.prepare(path: path, fileName: name, user: user, uploadPath: path, now: now)
            launcher.launch(job: job, path: path, user: user)
            return job
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }
}
