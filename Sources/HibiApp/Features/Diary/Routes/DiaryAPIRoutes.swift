import Foundation
import Hummingbird
import NIOCore

struct DiaryAPIRoutes: Sendable {
    let diary: DiaryService
    let transfer: DiaryTransfer
    let imports: DiaryForeignImport
    let runner: DiaryImportRunner
    let maxUpload: Int
    let maxEntryUpload: Int
    let heavyWork: HeavyWork

    func register(on api: some RouterMethods<DiaryContext>) {
        api.get(RouterPath(DiaryAPIPaths.entries), use: list)
        api.post(RouterPath(DiaryAPIPaths.entries), use: create)
        api.get(RouterPath(DiaryAPIPaths.entry(":id")), use: entry)
        api.patch(RouterPath(DiaryAPIPaths.entry(":id")), use: update)
        api.delete(RouterPath(DiaryAPIPaths.entry(":id")), use: delete)
        api.get(RouterPath(DiaryAPIPaths.firstPhoto(":id")), use: firstPhoto)
        api.get(RouterPath(DiaryAPIPaths.photo(":id", ":photo")), use: photo)
        api.get(RouterPath(DiaryAPIPaths.statistics), use: statistics)
        api.get(RouterPath(DiaryAPIPaths.trend), use: trend)
        api.post(RouterPath(DiaryAPIPaths.moodEstimate), use: estimateMood)
        api.get(RouterPath(DiaryAPIPaths.export), use: export)
        api.post(RouterPath(DiaryAPIPaths.importArchive), use: importUpload)
        api.get(RouterPath(DiaryAPIPaths.importJob(":id")), use: importJob)
    }

    @Sendable func list(_ request: Request, context: DiaryContext) async throws -> JSONBody<DiaryEntryPage> {
        let user = context.user
        let query = request.uri.formQuery
        let paging = try PageRequest.api(page: query.get("page"), perPage: query.get("perPage"), defaultPerPage: 20, maxPerPage: 200)
        let filter = DiaryStore.Filter(
            mood: try query.get("mood").map { raw in guard let mood = Mood(rawValue: raw) else { throw DiaryError.invalidMood }; return mood },
            tag: query.get("tag").flatMap { $0.isEmpty ? nil : $0 },
            from: try Self.date(query.get("from"), name: "from"), to: try Self.date(query.get("to"), name: "to"))
        let (entries, total) = try await diary.list(userID: user.id, query: query.get("q"), filter: filter, paging: paging)
        return JSONBody(DiaryEntryPage(entries: entries.map(DiaryEntryResponse.init), total: total, page: paging.page, perPage: paging.perPage))
    }

    @Sendable func create(_ request: Request, context: DiaryContext) async throws -> JSONBody<DiaryEntryResponse> {
        let user = context.user
        var request = request
        let input = try await request.json(DiaryEntryInput.self, limit: maxEntryUpload)
        let entry = try await diary.create(userID: user.id, draft: .init(
            date: input.date ?? context.now, text: input.text, tags: input.tags ?? [], confirmedMood: input.confirmedMood,
            photo: try input.photo.map(PhotoPayload.decode), photos: try (input.photos ?? []).map(PhotoPayload.decode)), now: context.now)
        return JSONBody(DiaryEntryResponse(entry), status: .created)
    }

    @Sendable func entry(_ request: Request, context: DiaryContext) async throws -> JSONBody<DiaryEntryResponse> {
        let user = context.user
        return JSONBody(DiaryEntryResponse(try await diary.entry(userID: user.id, id: try context.parameters.require("id"))))
    }

    @Sendable func update(_ request: Request, context: DiaryContext) async throws -> JSONBody<DiaryEntryResponse> {
        let user = context.user
        var request = request
        let patch = try await request.json(DiaryEntryPatch.self, limit: maxEntryUpload)
        let mood: Mood?? = patch.clearConfirmedMood == true ? .some(nil) : patch.confirmedMood.map { .some($0) }
        let entry = try await diary.update(userID: user.id, id: try context.parameters.require("id"), change: .init(
            date: patch.date, text: patch.text, tags: patch.tags, confirmedMood: mood,
            addPhotos: try (patch.addPhotos ?? []).map(PhotoPayload.decode), removePhotoIDs: Set(patch.removePhotoIds ?? [])), now: context.now)
        return JSONBody(DiaryEntryResponse(entry))
    }

    @Sendable func delete(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        try await diary.delete(userID: user.id, id: try context.parameters.require("id"))
        return Response(status: .noContent)
    }

    @Sendable func firstPhoto(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        return DiaryDownloads.photo(try await diary.photo(userID: user.id, id: try context.parameters.require("id")))
    }

    @Sendable func photo(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        return DiaryDownloads.photo(try await diary.photo(userID: user.id, id: try context.parameters.require("id"),
                                                          photoID: try context.parameters.require("photo")))
    }

    @Sendable func statistics(_ request: Request, context: DiaryContext) async throws -> some ResponseGenerator {
        let user = context.user
        let query = request.uri.formQuery
        let from = try Self.date(query.get("from"), name: "from"), to = try Self.date(query.get("to"), name: "to")
        if let from, let to, from > to { throw DiaryError.invalidDateRange }
        return JSONBody(try await diary.statistics(userID: user.id, timeZone: Self.zone(user), from: from, to: to))
    }

    @Sendable func trend(_ request: Request, context: DiaryContext) async throws -> JSONBody<TrendResponse> {
        let user = context.user
        guard let period = AnalyticsPeriod(rawValue: request.uri.formQuery.get("period") ?? "month") else {
            throw RequestError.invalidField("period", Text(en: "must be week, month or year", ja: "week・month・year のいずれかです"))
        }
        return JSONBody(TrendResponse(period: period, days: try await diary.trend(userID: user.id, period: period, timeZone: Self.zone(user), now: context.now)))
    }

    @Sendable func estimateMood(_ request: Request, context: DiaryContext) async throws -> JSONBody<MoodEstimateResponse> {
        let user = context.user
        var request = request
        let input = try await request.json(PhotoPayload.self, limit: maxUpload)
        let scores = try await diary.checkAndEstimate(try PhotoPayload.decode(input.photo), userID: user.id)
        let top = scores?.top
        // Words, not a percentage; and only a guess of at least "leaning" is preselected on the form, so
        // saving without touching an unsure one stores no mood the person did not choose (issue 29).
        let strength = top.map { MoodCalibration.strength($0.confidence) }
        return JSONBody(MoodEstimateResponse(faceFound: scores != nil, moodScores: scores, suggestedMood: top?.mood, confidence: top?.confidence,
                                             strength: strength?.rawValue,
                                             wording: top.map { MoodCalibration.wording($0.mood, confidence: $0.confidence, language: context.language) },
                                             preselect: strength.map { $0 != .unsure } ?? false))
    }

    @Sendable func export(_ request: Request, context: DiaryContext) async throws -> Response {
        try await DiaryDownloads.export(format: request.uri.formQuery.get("format"), transfer, imports.exports, user: context.user, now: context.now)
    }

    @Sendable func importUpload(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        // One import per person: its running job (across instances), and the heavy-work guard while the request
        // waits, both refused before a byte of the upload is stored; the body goes to disk, not memory.
        // Any format the diary reads, recognised by its content (Hibi, Day One, Daylio, Journey).
        let (job, result) = try await heavyWork.exclusive(userID: user.id) {
            if try await runner.jobs.active(userID: user.id) != nil { throw RequestError.busy }
            let name = request.uri.queryParameters.get("name") ?? "upload"
            return try await runner.start(upload: request.body, fileName: name, userID: user.id, now: context.now, wait: runner.wait)
        }
        // Ended while the request waited: the report, as it always was; still running: 202 and where to ask.
        guard let ended = try DiaryImportRunner.ended(job, result) else {
            return try JSONBody(JobResponse(job, language: context.language), status: .accepted).response(from: request, context: context)
        }
        let report = ended.checkpoint?.report ?? DiaryImportReport(format: .hibi)
        return try JSONBody(ImportResponse(imported: report.added, report: report, summary: report.lines(context.language), job: ended.id))
            .response(from: request, context: context)
    }

    @Sendable func importJob(_ request: Request, context: DiaryContext) async throws -> JSONBody<JobResponse> {
        guard let job = try await runner.jobs.find(id: try context.parameters.require("id"), userID: context.user.id) else {
            throw DiaryError.importJobNotFound
        }
        return JSONBody(JobResponse(job, language: context.language))
    }

    struct TrendResponse: Codable, Sendable { let period: AnalyticsPeriod; let days: [DayMood] }
    struct ImportResponse: Codable, Sendable { let imported: Int; let report: DiaryImportReport; let summary: [String]; let job: String }
    /// An import job as the API shows it: entries dealt with of the file's total, and the report once it has ended.
    struct JobResponse: Codable, Sendable {
        let id: String
        let state: DiaryImportJob.State
        let fileName: String
        let total: Int
        let done: Int
        let report: DiaryImportReport?
        let summary: [String]?
        let error: String?

        init(_ job: DiaryImportJob, language: Language) {
            id = job.id
            state = job.state
            fileName = job.fileName
            total = job.total
            done = job.done
            report = job.state == .running ? nil : job.checkpoint?.report
            summary = report?.lines(language)
            error = job.error?(language)
        }
    }
    struct MoodEstimateResponse: Codable, Sendable {
        let faceFound: Bool
        let moodScores: MoodScores?
        let suggestedMood: Mood?
        let confidence: Double?
        /// clearly, leaning or unsure (MoodCalibration's bands).
        let strength: String?
        /// "perhaps surprised, unsure", in the reader's language: what the form shows.
        let wording: String?
        /// Whether the form may tick the suggested mood for the person: not below "leaning".
        let preselect: Bool
    }

    static func int(_ raw: String?, name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let raw else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw RequestError.invalidField(name, Text(en: "must be a number from \(range.lowerBound) to \(range.upperBound)",
                                                       ja: "\(range.lowerBound)〜\(range.upperBound) の数値にしてください"))
        }
        return value
    }

    static func date(_ raw: String?, name: String) throws -> Date? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let date = try? Date(raw, strategy: .iso8601) else { throw DiaryError.invalidDate }
        return date
    }

    static func zone(_ user: User) -> TimeZone { TimeZone(identifier: user.timeZone) ?? .gmt }
}
