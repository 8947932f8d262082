import Foundation
import HTTPTypes
import Hummingbird

/// Web pages of the diary. Every handler first checks the diary is unlocked for this session.
struct DiaryWebRoutes: Sendable {
    let diary: DiaryService
    let transfer: DiaryTransfer
    let imports: DiaryForeignImport
    let runner: DiaryImportRunner
    let maxUpload: Int
    let heavyWork: HeavyWork

    func register(on router: some RouterMethods<DiaryContext>) {
        router.get(RouterPath(DiaryPaths.list), use: list)
        router.get(RouterPath(DiaryPaths.new), use: newEntryPage)
        router.post(RouterPath(DiaryPaths.new), use: create)
        router.get(RouterPath(DiaryPaths.entry(":id")), use: entryPage)
        router.get(RouterPath(DiaryPaths.edit(":id")), use: editPage)
        router.post(RouterPath(DiaryPaths.edit(":id")), use: update)
        router.post(RouterPath(DiaryPaths.mood(":id")), use: confirmMood)
        router.post(RouterPath(DiaryPaths.delete(":id")), use: delete)
        router.get(RouterPath(DiaryPaths.firstPhoto(":id")), use: firstPhoto)
        router.get(RouterPath(DiaryPaths.thumbnail(":id", ":photo")), use: thumbnail)
        router.get(RouterPath(DiaryPaths.photo(":id", ":photo")), use: photo)
        router.get(RouterPath(DiaryPaths.stats), use: statsPage)
        router.get(RouterPath(DiaryPaths.calendar), use: calendarPage)
        router.get(RouterPath(DiaryPaths.data), use: dataPage)
        router.get(RouterPath(DiaryPaths.exportArchive), use: export)
        router.post(RouterPath(DiaryPaths.importArchive), use: importUpload)
    }

    @Sendable func newEntryPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let now = context.now
        return HTMLPage(DiaryViews.form(context: context.base, state: .init(
            date: MoodAnalytics.dayKey(now, timeZone: zone), time: Self.clock(now, zone), text: "", tags: "", mood: nil)))
    }

    @Sendable func create(_ request: Request, context: DiaryContext) async throws -> Response {
        try await save(request, context, id: nil)
    }

    @Sendable func entryPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        let entry = try await diary.entry(userID: user.id, id: try context.parameters.require("id"))
        let notice: (String, Layout.NoticeKind)? = request.uri.formQuery.get("saved") != nil ? (DiaryStrings.saved(context.language), .success) : nil
        let details = try await imports.details.find(userID: user.id, entryID: entry.id)
        return HTMLPage(DiaryViews.detail(context: context.base, user: user, entry: entry, notice: notice, details: details,
                                          placePath: imports.visits.map { visits in { visits.placePath(visitID: $0) } }))
    }

    @Sendable func editPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        let entry = try await diary.entry(userID: user.id, id: try context.parameters.require("id"))
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return HTMLPage(DiaryViews.form(context: context.base, state: .init(
            entry: entry, date: MoodAnalytics.dayKey(entry.date, timeZone: zone), time: Self.clock(entry.date, zone),
            text: entry.text, tags: entry.tags.joined(separator: ", "), mood: entry.confirmedMood)))
    }

    @Sendable func update(_ request: Request, context: DiaryContext) async throws -> Response {
        try await save(request, context, id: try context.parameters.require("id"))
    }

    @Sendable func confirmMood(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        let id = try context.parameters.require("id")
        guard let mood = Mood(rawValue: form["mood"] ?? "") else { throw DiaryError.invalidMood }
        _ = try await diary.update(userID: user.id, id: id, change: .init(confirmedMood: .some(mood)), now: context.now)
        return Response.redirect(to: DiaryPaths.entry(id) + "?saved=1", type: .found)
    }

    @Sendable func delete(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        try await diary.delete(userID: user.id, id: try context.parameters.require("id"))
        return Response.redirect(to: DiaryPaths.list + "?deleted=1", type: .found)
    }

    @Sendable func firstPhoto(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        return DiaryDownloads.photo(try await diary.photo(userID: user.id, id: try context.parameters.require("id")))
    }

    @Sendable func thumbnail(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        return DiaryDownloads.photo(try await diary.thumbnail(userID: user.id, id: try context.parameters.require("id"),
                                                              photoID: try context.parameters.require("photo")))
    }

    @Sendable func photo(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        return DiaryDownloads.photo(try await diary.photo(userID: user.id, id: try context.parameters.require("id"),
                                                          photoID: try context.parameters.require("photo")))
    }

    @Sendable func statsPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let period = AnalyticsPeriod(rawValue: request.uri.formQuery.get("period") ?? "") ?? .month
        let now = context.now
        return HTMLPage(DiaryStatsViews.stats(
            context: context.base, user: user, statistics: try await diary.statistics(userID: user.id, timeZone: zone),
            period: period, trend: try await diary.trend(userID: user.id, period: period, timeZone: zone, now: now),
            trendStart: MoodAnalytics.periodStart(period, now: now, timeZone: zone), now: now,
            onThisDay: try await diary.onThisDay(userID: user.id, today: now, timeZone: zone)))
    }

    @Sendable func calendarPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let (year, month) = try Self.month(request.uri.formQuery.get("month"), now: context.now, zone: zone)
        return HTMLPage(DiaryStatsViews.calendar(context: context.base, user: user,
                                                 grid: try await diary.month(userID: user.id, year: year, month: month, timeZone: zone)))
    }

    @Sendable func export(_ request: Request, context: DiaryContext) async throws -> Response {
        try await DiaryDownloads.export(format: request.uri.formQuery.get("format"), transfer, imports.exports, user: context.user, now: context.now)
    }

    /// An upload from the data page: a small file's report comes back at once, a large one's progress shows
    /// on the data page (redirected there).
    func importUpload(_ request: Request, _ context: DiaryContext) async throws -> Response {
        let user = context.user
        do {
            guard let contentType = request.headers[.contentType], request.isMultipart,
                  let boundary = MultipartForm.boundary(of: contentType) else { throw RequestError.unsupportedMediaType }
            // Parsing a large archive is heavy: one import per person (its running job, across instances), a
            // bounded number at once. The file part streams to disk as it arrives (never the whole form in
            // memory), then imports as a job.
            let file = MultipartFileStream(base: request.body, boundary: boundary, field: "file")
            let started: (DiaryImportJob, Result<DiaryImportJob?, any Error>?) = try await heavyWork.exclusive(userID: user.id) {
                if try await runner.jobs.active(userID: user.id) != nil { throw RequestError.busy }
                return try await runner.start(upload: file, fileName: "upload", userID: user.id, now: context.now, wait: runner.wait,
                                              name: { file.filename.value.withLock { $0 } })
            }
            guard let ended = try DiaryImportRunner.ended(started.0, started.1) else {
                return Response.redirect(to: DiaryPaths.data, type: .found)
            }
            let report = ended.checkpoint?.report ?? DiaryImportReport(format: .hibi)
            let notice = report.format == .hibi ? DiaryStrings.imported(context.language, report.added) : report.lines(context.language).joined(separator: "\n")
            return try HTMLPage(DiaryDataViews.page(context: context.base, notice: (notice, .success), report: report.format == .hibi ? nil : report))
                .response(from: request, context: context.base)
        } catch let error as DiaryError {
            return try HTMLPage(DiaryDataViews.page(context: context.base, notice: (error.message(context.language), .error)), status: error.status)
                .response(from: request, context: context.base)
        }
    }

    /// The data page: export, import, and the person's import still running (the page reloads itself every
    /// few seconds until it ends) or the last one that ended, with its report.
    func dataPage(_ request: Request, _ context: DiaryContext) async throws -> Response {
        let job = try await runner.jobs.list(userID: context.user.id, limit: 1).first
        var response = try HTMLPage(DiaryDataViews.page(context: context.base, job: job)).response(from: request, context: context.base)
        if job?.state == .running, let refresh = HTTPField.Name("Refresh") { response.headers[refresh] = "3" }
        return response
    }

    /// The export as a download, streamed: the size check runs first so its error is a normal page.
    func list(_ request: Request, _ context: DiaryContext) async throws -> Response {
        let user = context.user
        let query = request.uri.formQuery
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let paging = PageRequest.web(page: query.get("page"), perPage: 20)
        let mood = query.get("mood").flatMap { $0.isEmpty ? nil : Mood(rawValue: $0) }
        let from = query.get("from") ?? "", to = query.get("to") ?? ""
        let filter = DiaryStore.Filter(
            mood: mood, tag: (query.get("tag") ?? "").isEmpty ? nil : query.get("tag"),
            from: from.isEmpty ? nil : try DiaryRules.parseLocalDateTime(date: from, time: "00:00", timeZone: zone),
            to: to.isEmpty ? nil : try DiaryRules.parseLocalDateTime(date: to, time: "23:59", timeZone: zone).addingTimeInterval(59))
        let q = query.get("q") ?? ""
        let (entries, total) = try await diary.list(userID: user.id, query: q, filter: filter, paging: paging)
        var notice: (String, Layout.NoticeKind)?
        if query.get("deleted") != nil { notice = (DiaryStrings.deleted(context.language), .success) }
        return try HTMLPage(DiaryViews.list(context: context.base, user: user, state: .init(
            entries: entries, total: total, page: paging.page, perPage: paging.perPage, query: q, mood: mood, tag: query.get("tag") ?? "",
            from: from, to: to, allTags: try await diary.store.tags(userID: user.id).map(\.tag), notice: notice)))
            .response(from: request, context: context.base)
    }

    /// Create or edit from the entry form (multipart when a photo is attached).
    func save(_ request: Request, _ context: DiaryContext, id: String?) async throws -> Response {
        let user = context.user
        var request = request
        let form: FormData
        var added: [Data] = []
        if request.isMultipart {
            let multipart = try await request.multipart(limit: maxUpload)
            form = multipart.asForm
            // `photos` is the form's field (several at once); `photo` is what older pages and scripts send.
            added = (multipart.files("photo") + multipart.files("photos")).map(\.data)
        } else {
            form = try await request.form()
        }
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        var existing: DiaryEntry?
        if let id { existing = try await diary.entry(userID: user.id, id: id) }
        let mood = form["mood"].flatMap { $0.isEmpty ? nil : Mood(rawValue: $0) }
        do {
            if let raw = form["mood"], !raw.isEmpty, mood == nil { throw DiaryError.invalidMood }
            let date = try DiaryRules.parseLocalDateTime(date: form["date"] ?? "", time: form["time"], timeZone: zone)
            let tags = try DiaryRules.parseTagList(form["tags"] ?? "")
            let entry: DiaryEntry
            if let id {
                // One checkbox per photo (`remove_photo_<id>`); `remove_photo` alone removes them all.
                let removing = Set((existing?.photos ?? []).map(\.id).filter { form.bool("remove_photo_" + $0) })
                entry = try await diary.update(userID: user.id, id: id, change: .init(
                    date: date, text: form["text"] ?? "", tags: tags, confirmedMood: .some(mood), addPhotos: added,
                    removePhotoIDs: removing, removeAllPhotos: form.bool("remove_photo")), now: context.now)
            } else {
                entry = try await diary.create(userID: user.id, draft: .init(date: date, text: form["text"] ?? "", tags: tags,
                                                                          confirmedMood: mood, photos: added), now: context.now)
            }
            return .redirect(to: DiaryPaths.entry(entry.id) + "?saved=1", type: .found)
        } catch let error as any UserFacingError {
            // Everything typed comes back with the message, so nothing is lost.
            return try HTMLPage(DiaryViews.form(context: context.base, state: .init(
                entry: existing, date: form["date"] ?? "", time: form["time"] ?? "", text: form["text"] ?? "",
                tags: form["tags"] ?? "", mood: mood, error: error.message(context.language))), status: error.status)
                .response(from: request, context: context.base)
        }
    }

    static func clock(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }

    static func month(_ raw: String?, now: Date, zone: TimeZone) throws -> (Int, Int) {
        if let raw, !raw.isEmpty {
            let parts = raw.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2, (1...12).contains(parts[1]), (1970...9999).contains(parts[0]) else { throw DiaryError.invalidDate }
            return (parts[0], parts[1])
        }
        let key = MoodAnalytics.dayKey(now, timeZone: zone).split(separator: "-").compactMap { Int($0) }
        return (key[0], key[1])
    }
}
