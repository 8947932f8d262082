import Foundation
import Hummingbird

// The diary's side of the protocols in Shared/Offers (what it adds to Journal's search, checklist and day page).
extension DiaryLock: DiaryOpenCheck {}

extension DiaryFeature: DayPageOffer {
    /// A day with at most this many entries; more is a sign of generated data, and the diary's own list shows them all.
    static let dayLimit = 500

    public func dayPart(_ day: DayQuery) async throws -> DayPart {
        guard day.diaryOpen else { return DiaryDayViews.part(entries: nil, day: day) }
        let entries = try await service.list(userID: day.user.id, query: nil, filter: .init(from: day.interval.start, to: day.lastSecond),
                                             paging: PageRequest(page: 1, perPage: Self.dayLimit)).entries.sorted { $0.date < $1.date }
        return DiaryDayViews.part(entries: entries, day: day)
    }

    /// Entries on this month and day in earlier years (29 February only in leap years), only when the diary is readable.
    public func memories(_ day: DayQuery) async throws -> DayMemories {
        guard day.diaryOpen else { return DayMemories() }
        let noon = day.interval.start.addingTimeInterval(12 * 3600)
        return DiaryDayViews.memories(try await service.onThisDayFromFirstEntry(userID: day.user.id, today: noon, timeZone: day.timeZone), day: day)
    }
}

extension DiaryFeature: SearchOffer, GettingStartedOffer {
    /// Entries whose text has every word, only when the caller may read the diary.
    public func searchHits(_ search: JournalSearch) async throws -> [SearchHit] {
        guard search.diaryOpen else { return [] }
        let found = try await service.list(userID: search.user.id, query: search.query, filter: .init(),
                                           paging: PageRequest(page: 1, perPage: search.limit)).entries
        return found.map { entry in
            SearchHit(domain: .diary, id: entry.id, title: DayKey(entry.date, timeZone: search.timeZone).description,
                      snippet: String(entry.text.prefix(160)), date: entry.date, path: "/diary/entries/\(entry.id)")
        }
    }

    public func gettingStartedSteps(userID: String) async throws -> [GettingStarted.Step] {
        Self.gettingStartedSteps(faceEnrolled: try await faces.templates.count(userID: userID) > 0,
                                 entries: try await service.store.list(userID: userID, filter: .init(), limit: 1, offset: 0).total)
    }

    static func gettingStartedSteps(faceEnrolled: Bool, entries: Int) -> [GettingStarted.Step] {
        [GettingStarted.Step(key: "face", title: Text(en: "Enroll your face", ja: "顔を登録する"),
                             help: Text(en: "Unlock your diary and sign in by looking at the camera.", ja: "カメラを見るだけで日記を開き、サインインできます。"),
                             href: DiaryPaths.enroll, done: faceEnrolled),
         GettingStarted.Step(key: "diary", title: Text(en: "Write a first diary entry", ja: "最初の日記を書く"),
                             help: Text(en: "A few lines about today, with a photo if you like.", ja: "今日のことを数行。写真も添えられます。"),
                             href: DiaryPaths.new, done: entries > 0)]
    }
}

// What the diary adds to the takeout: its export as it stands (`diary.json` and `photos/` at the top, so the
// diary import reads a takeout as it is) and its lock time; and the upload and archive checks the takeout's
// import shares with the diary's.
extension DiaryFeature: TakeoutOffer {
    public func writeTakeout(user: User, into archive: TakeoutArchive) async throws {
        try await transfer.addMembers(try await transfer.planExport(userID: user.id), now: archive.now, to: &archive.zip, write: archive.write)
    }

    public func takeoutSettings(user: User) async throws -> [String: any Encodable & Sendable] {
        ["diaryLockMinutes": try await lock.lockMinutes(userID: user.id)]
    }

    public func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> [String: Int] {
        ["diaryEntries": reader.entries[DiaryExport.fileName] == nil ? 0 : try await transfer.importArchive(reader, userID: user.id, now: now)]
    }
}

extension DiaryTransfer: ArchiveUploads {
    public var maxUploadBytes: Int { Self.maxImportBytes }
    public func openArchive(path: String) throws -> ZipReader { try Self.open { try ZipReader(path: path, maxTotalBytes: Self.maxInflatedBytes) } }
    public func openArchive(data: Data) throws -> ZipReader { try Self.open { try ZipReader(data: data, maxTotalBytes: Self.maxInflatedBytes) } }
    public func refusal(_ reason: Text) -> any Error { DiaryError.importInvalid(reason) }
    public func withUploadFile<T>(_ upload: RequestBody, _ body: (String) async throws -> T) async throws -> T {
        try await withUpload(upload, body)
    }
}

// What the diary offers Accounts' face sign-in: the face check of its unlock, read from the request as the unlock's
// own frames are, and its camera box; and its lock (Shared/Offers/Offers+Accounts.swift).
extension DiaryFeature: FaceSignInCheck {
    public var faceCheckAvailable: Bool { faces.engine != nil }

    public func hasEnrolledFace(userID: String) async throws -> Bool {
        try await faces.templates.count(userID: userID) > 0
    }

    public func startFaceChallenge(userID: String, now: Date) async throws -> FaceChallenge {
        try await faces.challenge(userID: userID, now: now)
    }

    public func checkFaceFrame(_ request: Request, userID: String, arrivedAt: Date) async throws -> FaceChallenge {
        var request = request
        let input = try await request.json(FaceFrameRequest.self, limit: Self.maxUpload)
        // The challenge is looked up for this user only, so nobody else's challenge or face counts here.
        return try await faces.frame(userID: userID, challengeID: input.challengeId, frame: try PhotoPayload.decode(input.frame),
                                     arrivedAt: arrivedAt)
    }

    public func faceBox(context: HibiRequestContext, title: Text, next: String, challengeURL: String, verifyURL: String) -> Node {
        UnlockViews.faceBox(context: context, title: title, next: next, challengeURL: challengeURL, verifyURL: verifyURL)
    }
}

extension DiaryLock: DiaryGate {}

extension DiaryFeature: OverviewOffer {
    /// Beyond this a range reads the diary's covering index whole (measured: a tenth of the time on ten years).
    static let longRangeSeconds: TimeInterval = 400 * 86400

    /// The diary's dates and confirmed moods (no text is opened), only when the caller may read the diary.
    public func dayFigures(_ range: DayRange) async throws -> [DayKey: DaySummary] {
        guard range.diaryOpen else { return [:] }
        let start = range.span.start, last = range.span.end.addingTimeInterval(-1)
        let points = range.span.end.timeIntervalSince(start) > Self.longRangeSeconds
            ? try await service.moodPointsOverYears(userID: range.user.id, from: start, to: last)
            : try await service.moodPoints(userID: range.user.id, from: start, to: last)
        return Self.figures(points, span: range.span)
    }

    /// Each day's entries counted and its confirmed moods listed.
    static func figures(_ points: [MoodPoint], span: DaySpan) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        for point in points {
            span.touch(&days, at: point.date) { day in
                day.diaryEntries += 1
                if let mood = point.mood { day.moods.append(mood) }
            }
        }
        return days
    }

    public func firstRecorded(user: User, diaryOpen: Bool) async throws -> Date? {
        diaryOpen ? try await service.firstEntryDate(userID: user.id) : nil
    }

    /// The days with an entry carrying the tag (none when the diary is locked for the caller).
    public func daysTagged(_ tag: String, range: DayRange) async throws -> Set<DayKey>? {
        guard range.diaryOpen else { return [] }
        let entries = try await service.list(userID: range.user.id, query: nil,
                                             filter: .init(tag: tag, from: range.span.start, to: range.span.end.addingTimeInterval(-1)),
                                             paging: PageRequest(page: 1, perPage: 1000)).entries
        return Set(entries.map { DayKey($0.date, timeZone: range.span.timeZone) })
    }
}
