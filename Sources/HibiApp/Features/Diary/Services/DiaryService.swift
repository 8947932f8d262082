import Foundation
import Logging
import SQLKit

public struct DiaryService: Sendable {
    let store: DiaryStore
    let photos: PhotoStore
    let search: DiarySearchIndex
    let moods: (any MoodEstimating)?
    let logger: Logger

    public init(store: DiaryStore, photos: PhotoStore, search: DiarySearchIndex, moods: (any MoodEstimating)?, logger: Logger) {
        self.store = store
        self.photos = photos
        self.search = search
        self.moods = moods
        self.logger = logger
    }

    public struct Draft: Sendable {
        public var date: Date
        public var text: String
        public var tags: [String]
        public var confirmedMood: Mood?
        public var photo: Data?

        public init(date: Date, text: String, tags: [String], confirmedMood: Mood?, photo: Data?) {
            self.date = date
            self.text = text
            self.tags = tags
            self.confirmedMood = confirmedMood
            self.photo = photo
        }
    }

    /// Validates everything before writing anything, so a bad photo never leaves a half-made entry.
    public func create(userID: String, draft: Draft, now: Date) async throws -> DiaryEntry {
        let scores = try await checkAndEstimate(draft.photo, userID: userID)
        let entry = DiaryEntry(
            id: UUID().uuidString.lowercased(), userID: userID,
            date: try DiaryRules.validateDate(draft.date, now: now),
            text: try DiaryRules.validateText(draft.text, hasPhoto: draft.photo != nil),
            tags: try DiaryRules.normalizeTags(draft.tags), moodScores: scores, confirmedMood: draft.confirmedMood,
            hasPhoto: draft.photo != nil, createdAt: now, updatedAt: now
        )
        if let photo = draft.photo { try photos.save(photo, userID: userID, entryID: entry.id) }
        do {
            try await store.insert(entry)
        } catch {
            photos.delete(userID: userID, entryID: entry.id)
            throw error
        }
        await search.didWrite(userID: userID, record: entry.searchRecord)
        return entry
    }

    public struct Change: Sendable {
        public var date: Date?
        public var text: String?
        public var tags: [String]?
        /// `.some(nil)` clears the confirmed mood.
        public var confirmedMood: Mood??
        public var photo: Data?
        public var removePhoto: Bool

        public init(date: Date? = nil, text: String? = nil, tags: [String]? = nil, confirmedMood: Mood?? = nil,
                    photo: Data? = nil, removePhoto: Bool = false) {
            self.date = date
            self.text = text
            self.tags = tags
            self.confirmedMood = confirmedMood
            self.photo = photo
            self.removePhoto = removePhoto
        }
    }

    public func update(userID: String, id: String, change: Change, now: Date) async throws -> DiaryEntry {
        guard var entry = try await store.find(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        let newScores = try await checkAndEstimate(change.photo, userID: userID)
        if let date = change.date { entry.date = try DiaryRules.validateDate(date, now: now) }
        let hasPhoto = change.photo != nil || (entry.hasPhoto && !change.removePhoto)
        if let text = change.text { entry.text = try DiaryRules.validateText(text, hasPhoto: hasPhoto) }
        if let tags = change.tags { entry.tags = try DiaryRules.normalizeTags(tags) }
        if let mood = change.confirmedMood { entry.confirmedMood = mood }
        if change.photo != nil {
            entry.moodScores = newScores
        } else if change.removePhoto {
            entry.moodScores = nil
        }
        entry.hasPhoto = hasPhoto
        entry.updatedAt = max(now, entry.updatedAt.addingTimeInterval(1))
        if let photo = change.photo { try photos.save(photo, userID: userID, entryID: id) }
        try await store.update(entry)
        if change.removePhoto && change.photo == nil { photos.delete(userID: userID, entryID: id) }
        await search.didWrite(userID: userID, record: entry.searchRecord)
        return entry
    }

    public func delete(userID: String, id: String) async throws {
        guard try await store.delete(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        photos.delete(userID: userID, entryID: id)
        await search.didDelete(userID: userID, id: id)
    }

    public func entry(userID: String, id: String) async throws -> DiaryEntry {
        guard let entry = try await store.find(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        return entry
    }

    public func photo(userID: String, id: String) async throws -> Data {
        let entry = try await entry(userID: userID, id: id)
        guard entry.hasPhoto, let data = try photos.load(userID: userID, entryID: entry.id) else { throw DiaryError.entryNotFound }
        return data
    }

    /// A page of entries; with a query the sealed text is searched in memory (see DiarySearchIndex).
    public func list(userID: String, query: String?, filter: DiaryStore.Filter, paging: PageRequest) async throws -> (entries: [DiaryEntry], total: Int) {
        if let from = filter.from, let to = filter.to, from > to { throw DiaryError.invalidDateRange }
        let (offset, perPage) = (paging.offset, paging.perPage)
        let terms = DiarySearch.terms(query ?? "")
        guard !terms.isEmpty else {
            return try await store.list(userID: userID, filter: filter, limit: perPage, offset: offset)
        }
        let matching = try await search.search(userID: userID, terms: terms, store: store)
        if filter == .init() {
            let pageIDs = Array(matching.dropFirst(offset).prefix(perPage))
            return (try await store.entries(ids: pageIDs, userID: userID), matching.count)
        }
        // Search and filters together: filter the matches in SQL, a bounded batch at a time.
        var kept: [DiaryEntry] = []
        for batch in stride(from: 0, to: matching.count, by: 500) {
            let ids = Array(matching[batch..<min(batch + 500, matching.count)])
            kept += try await store.entries(ids: ids, userID: userID).filter { entry in
                (filter.mood == nil || entry.confirmedMood == filter.mood)
                    && filter.tag.map { tag in entry.tags.contains { $0.lowercased() == tag.lowercased() } } ?? true
                    && filter.from.map { entry.date >= $0 } ?? true && filter.to.map { entry.date <= $0 } ?? true
            }
        }
        return (Array(kept.dropFirst(offset).prefix(perPage)), kept.count)
    }

    public func statistics(userID: String, timeZone: TimeZone, from: Date? = nil, to: Date? = nil) async throws -> MoodStatistics {
        MoodAnalytics.statistics(try await store.tally(userID: userID, from: from, to: to), timeZone: timeZone)
    }

    public func trend(userID: String, period: AnalyticsPeriod, timeZone: TimeZone, now: Date) async throws -> [DayMood] {
        let start = MoodAnalytics.periodStart(period, now: now, timeZone: timeZone)
        return MoodAnalytics.trend(try await store.moodPoints(userID: userID, from: start, to: now), period: period, now: now, timeZone: timeZone)
    }

    public func month(userID: String, year: Int, month: Int, timeZone: TimeZone) async throws -> MoodAnalytics.MonthGrid {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
              let end = calendar.date(byAdding: DateComponents(month: 1, second: -1), to: start) else { throw DiaryError.invalidDate }
        let points = try await store.moodPoints(userID: userID, from: start, to: end)
        return MoodAnalytics.monthGrid(year: year, month: month, days: MoodAnalytics.daily(points, timeZone: timeZone), timeZone: timeZone)
    }

    public func onThisDay(userID: String, today: Date, timeZone: TimeZone) async throws -> [DiaryEntry] {
        guard let first = try await store.tally(userID: userID, to: today).first else { return [] }
        let windows = MoodAnalytics.onThisDayWindows(today: today, since: first, timeZone: timeZone)
        return try await store.entries(inWindows: windows, userID: userID, limit: 50)
    }

    func checkAndEstimate(_ photo: Data?, userID: String) async throws -> MoodScores? {
        guard let photo else { return nil }
        guard photo.count <= DiaryRules.maxPhotoBytes else { throw DiaryError.photoTooLarge(limitMB: DiaryRules.maxPhotoBytes / 1_048_576) }
        guard DiaryRules.isSupportedImage(photo) else { throw DiaryError.photoNotAnImage }
        guard let moods else { return nil }
        return try await moods.estimateMood(imageData: photo, userID: userID)
    }
}

extension DiaryEntry {
    var searchRecord: DiarySearchIndex.Record {
        .init(id: id, date: date, text: DiarySearch.normalize(text), updatedAt: Int64(updatedAt.timeIntervalSince1970))
    }
}

// MARK: read methods for the journal

extension DiaryService {
    /// Dates and confirmed moods only (no text is opened): the journal's calendar, timeline and insights.
    public func moodPoints(userID: String, from: Date?, to: Date?) async throws -> [MoodPoint] {
        try await store.moodPoints(userID: userID, from: from, to: to)
    }

    /// When the first entry was written, for paging back through time without scanning past it.
    public func firstEntryDate(userID: String) async throws -> Date? {
        let row = try await store.database.sql.raw("SELECT MIN(entry_at) AS first FROM diary_entries WHERE user_id = \(bind: userID)").first()
        return try row?.decode(column: "first", as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
