import Foundation
import Logging
import SQLKit

public struct DiaryService: Sendable {
    let store: DiaryStore
    let photos: PhotoStore
    let search: DiarySearchIndex
    let moods: (any MoodEstimating)?
    let logger: Logger
    let thumbnails: PhotoThumbnails?

    public init(store: DiaryStore, photos: PhotoStore, search: DiarySearchIndex, moods: (any MoodEstimating)?, logger: Logger,
                thumbnails: PhotoThumbnails? = nil) {
        self.store = store
        self.photos = photos
        self.thumbnails = thumbnails
        self.search = search
        self.moods = moods
        self.logger = logger
    }

    public struct Draft: Sendable {
        public var date: Date
        public var text: String
        public var tags: [String]
        public var confirmedMood: Mood?
        /// Any photos, in order; the mood estimate is read from the first that shows a face.
        public var photos: [Data]

        public init(date: Date, text: String, tags: [String], confirmedMood: Mood?, photo: Data? = nil, photos: [Data] = []) {
            self.date = date
            self.text = text
            self.tags = tags
            self.confirmedMood = confirmedMood
            self.photos = (photo.map { [$0] } ?? []) + photos
        }
    }

    /// Validates everything before writing anything, so a bad photo never leaves a half-made entry.
    public func create(userID: String, draft: Draft, now: Date) async throws -> DiaryEntry {
        let analysed = try await analyse(draft.photos, userID: userID, existing: [])
        let entry = DiaryEntry(
            id: UUID().uuidString.lowercased(), userID: userID,
            date: try DiaryRules.validateDate(draft.date, now: now),
            text: try DiaryRules.validateText(draft.text, hasPhoto: !draft.photos.isEmpty),
            tags: try DiaryRules.normalizeTags(draft.tags), moodScores: analysed.scores, confirmedMood: draft.confirmedMood,
            hasPhoto: !draft.photos.isEmpty, createdAt: now, updatedAt: now, photos: analysed.photos
        )
        try save(analysed.new, userID: userID)
        do {
            try await store.insert(entry)
        } catch {
            for new in analysed.new { photos.delete(userID: userID, photoID: new.photo.id) }
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
        /// Photos added after the ones the entry has.
        public var addPhotos: [Data]
        /// Ids of the entry's photos to remove.
        public var removePhotoIDs: Set<String>
        /// Removes every photo the entry had before this change (the photos added by it stay).
        public var removeAllPhotos: Bool

        public init(date: Date? = nil, text: String? = nil, tags: [String]? = nil, confirmedMood: Mood?? = nil,
                    addPhotos: [Data] = [], removePhotoIDs: Set<String> = [], removeAllPhotos: Bool = false) {
            self.date = date
            self.text = text
            self.tags = tags
            self.confirmedMood = confirmedMood
            self.addPhotos = addPhotos
            self.removePhotoIDs = removePhotoIDs
            self.removeAllPhotos = removeAllPhotos
        }
    }

    public func update(userID: String, id: String, change: Change, now: Date) async throws -> DiaryEntry {
        guard var entry = try await store.find(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        let unknown = change.removePhotoIDs.subtracting(entry.photos.map(\.id))
        guard unknown.isEmpty else { throw DiaryError.photoNotFound }
        let kept = change.removeAllPhotos ? [] : entry.photos.filter { !change.removePhotoIDs.contains($0.id) }
        let removed = entry.photos.filter { photo in !kept.contains { $0.id == photo.id } }
        // The estimate stays while the photo it came from stays; otherwise it is read again from the
        // first remaining or added photo with a face.
        let keptScores = kept.contains(where: \.moodSource) ? entry.moodScores : nil
        var analysed = try await analyse(change.addPhotos, userID: userID, existing: kept, currentScores: keptScores)
        if analysed.scores == nil, let earlier = kept.first(where: \.hasFace),
           let data = try photos.load(userID: userID, photoID: earlier.id),
           // A photo stored before the pixel cap may be above it: not decoded again, and the edit still goes in.
           (try? DiaryRules.validatePhoto(data)) != nil,
           let scores = try await checkAndEstimate(data, userID: userID) {
            analysed.scores = scores
            analysed.photos = analysed.photos.map { DiaryPhoto(id: $0.id, hasFace: $0.hasFace, moodSource: $0.id == earlier.id) }
        }
        let hasPhoto = !analysed.photos.isEmpty
        if let date = change.date { entry.date = try DiaryRules.validateDate(date, now: now) }
        if let text = change.text { entry.text = try DiaryRules.validateText(text, hasPhoto: hasPhoto) }
        if let tags = change.tags { entry.tags = try DiaryRules.normalizeTags(tags) }
        if let mood = change.confirmedMood { entry.confirmedMood = mood }
        entry.moodScores = analysed.scores
        entry.photos = analysed.photos
        entry.hasPhoto = hasPhoto
        entry.updatedAt = max(now, entry.updatedAt.addingTimeInterval(1))
        try save(analysed.new, userID: userID)
        do {
            try await store.update(entry)
        } catch {
            for new in analysed.new { photos.delete(userID: userID, photoID: new.photo.id) }
            throw error
        }
        // Files go only after the rows no longer point to them.
        for photo in removed { photos.delete(userID: userID, photoID: photo.id) }
        await search.didWrite(userID: userID, record: entry.searchRecord)
        return entry
    }

    public func delete(userID: String, id: String) async throws {
        guard let entry = try await store.find(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        guard try await store.delete(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        for photo in entry.photos { photos.delete(userID: userID, photoID: photo.id) }
        await search.didDelete(userID: userID, id: id)
    }

    /// Photos checked and read, the new ones given ids: what `create` and `update` write.
    struct Analysed {
        var photos: [DiaryPhoto]
        var new: [(photo: DiaryPhoto, data: Data)]
        var scores: MoodScores?
    }

    /// Checks each new photo (size, kind, the per-entry count) before anything is written, and reads
    /// faces: the mood comes from the first photo with a face, unless `currentScores` already has one.
    func analyse(_ added: [Data], userID: String, existing: [DiaryPhoto], currentScores: MoodScores? = nil) async throws -> Analysed {
        guard existing.count + added.count <= DiaryRules.maxPhotosPerEntry else {
            throw DiaryError.tooManyPhotos(limit: DiaryRules.maxPhotosPerEntry)
        }
        var result = Analysed(photos: existing, new: [], scores: currentScores)
        for data in added {
            let scores = try await checkAndEstimate(data, userID: userID)
            let source = result.scores == nil && scores != nil
            if source { result.scores = scores }
            let photo = DiaryPhoto(id: UUID().uuidString.lowercased(), hasFace: scores != nil, moodSource: source)
            result.photos.append(photo)
            result.new.append((photo, data))
        }
        return result
    }

    private func save(_ new: [(photo: DiaryPhoto, data: Data)], userID: String) throws {
        var written: [String] = []
        do {
            for (photo, data) in new {
                try photos.save(data, userID: userID, photoID: photo.id)
                written.append(photo.id)
            }
        } catch {
            for id in written { photos.delete(userID: userID, photoID: id) }
            throw error
        }
    }

    public func entry(userID: String, id: String) async throws -> DiaryEntry {
        guard let entry = try await store.find(id: id, userID: userID) else { throw DiaryError.entryNotFound }
        return entry
    }

    /// One photo of an entry; without a photo id, the entry's first.
    public func photo(userID: String, id: String, photoID: String? = nil) async throws -> Data {
        let entry = try await entry(userID: userID, id: id)
        guard let photo = photoID.map({ wanted in entry.photos.first { $0.id == wanted } }) ?? entry.photos.first,
              let data = try photos.load(userID: userID, photoID: photo.id) else { throw DiaryError.photoNotFound }
        return data
    }

    /// A photo's small square thumbnail for the list, or the photo itself when none can be made.
    public func thumbnail(userID: String, id: String, photoID: String) async throws -> Data {
        let entry = try await entry(userID: userID, id: id)
        guard let photo = entry.photos.first(where: { $0.id == photoID }) else { throw DiaryError.photoNotFound }
        if let thumbnails, let small = try await thumbnails.thumbnail(userID: userID, photoID: photo.id, photo: {
            try photos.load(userID: userID, photoID: photo.id)
        }) { return small }
        guard let data = try photos.load(userID: userID, photoID: photo.id) else { throw DiaryError.photoNotFound }
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
        try DiaryRules.validatePhoto(photo)
        guard let moods else { return nil }
        return try await moods.estimateMood(imageData: photo, userID: userID)
    }
}

extension DiaryEntry {
    var searchRecord: DiarySearchIndex.Record {
        .init(id: id, date: date, text: DiarySearch.normalize(text), updatedAt: Int64(saturating: updatedAt.timeIntervalSince1970))
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
