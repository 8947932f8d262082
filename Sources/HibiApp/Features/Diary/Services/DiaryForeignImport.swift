import Foundation

/// What one diary import did, whatever the format: every entry of the file is added, already there,
/// or skipped with the reason and its position.
public struct DiaryImportReport: Codable, Sendable, Equatable {
    public var format: ForeignDiary.Format
    public var added = 0
    public var alreadyThere = 0
    public var skipped: [ForeignSkip] = []
    public var photosAdded = 0
    public var photosSkipped = 0
    public var visitsAdded = 0
    public var dayRatingsSet = 0

    public init(format: ForeignDiary.Format) {
        self.format = format
    }

    /// "row 3" → "3 行目", "Journal.json entry 4 (UUID)" → "Journal.json 4 件目 (UUID)"; file names and ids stay as written.
    static func japanesePosition(_ at: String) -> String {
        at.replacingOccurrences(of: #"^row (\d+)"#, with: "$1 行目", options: .regularExpression)
            .replacingOccurrences(of: #" entry (\d+)"#, with: " $1 件目", options: .regularExpression)
            .replacingOccurrences(of: " photo ", with: " 写真 ")
    }

    /// Adds a batch's counts (its format is not used).
    mutating func merge(_ other: DiaryImportReport) {
        added += other.added
        alreadyThere += other.alreadyThere
        skipped += other.skipped
        photosAdded += other.photosAdded
        photosSkipped += other.photosSkipped
        visitsAdded += other.visitsAdded
        dayRatingsSet += other.dayRatingsSet
    }

    /// Entries skipped (not a photo, video or place of an entry that was kept).
    var entriesSkipped: Int {
        skipped.filter { !$0.at.contains(" photo") && !$0.at.contains(" video") && !$0.at.contains(" audio") && !$0.at.contains(" PDF")
            && !$0.at.hasSuffix(" location") }.count
    }

    /// Entries of the file accounted for: added, already there or skipped.
    public var entries: Int { added + alreadyThere + entriesSkipped }

    /// Lines for the page and the command line; the first skips are named, the rest counted.
    public func lines(_ language: Language, listing limit: Int = 20) -> [String] {
        var lines: [String] = []
        if language == .ja {
            lines.append("\(format.label): \(added) 件追加、\(alreadyThere) 件は既にあります、\(entriesSkipped) 件スキップ。")
            lines.append("写真: \(photosAdded) 枚追加、\(photosSkipped) 枚スキップ。" + (visitsAdded > 0 ? "訪問 \(visitsAdded) 件を追加。" : "")
                         + (dayRatingsSet > 0 ? "日の評価 \(dayRatingsSet) 日分を設定。" : ""))
        } else {
            lines.append("\(format.label): \(added) added, \(alreadyThere) already there, \(entriesSkipped) skipped.")
            lines.append("Photos: \(photosAdded) added, \(photosSkipped) skipped." + (visitsAdded > 0 ? " \(visitsAdded) visits added." : "")
                         + (dayRatingsSet > 0 ? " \(dayRatingsSet) day ratings set." : ""))
        }
        for skip in skipped.prefix(limit) {
            lines.append(language == .ja ? "\(Self.japanesePosition(skip.at)): \(skip.ja)" : "\(skip.at): \(skip.en)")
        }
        if skipped.count > limit {
            lines.append(language == .ja ? "ほか \(skipped.count - limit) 件" : "and \(skipped.count - limit) more")
        }
        return lines
    }
}

/// The diary import for every format: recognises the file by its content, hands a Hibi export to
/// `DiaryTransfer` unchanged, and reads Day One and Daylio files with the pure readers, adding what
/// is new. A damaged entry or photo is skipped and reported; it never stops the rest of the file.
public struct DiaryForeignImport: Sendable {
    let transfer: DiaryTransfer
    let store: DiaryStore
    let photos: PhotoStore
    let details: DiaryDetailsStore
    let ratings: any DayRatings
    let visits: (any PlaceRecorder)?
    let box: SealedBoxService

    /// The way out, in the same formats.
    var exports: DiaryForeignExport { DiaryForeignExport(transfer: transfer, photos: photos, details: details, ratings: ratings) }

    /// Entries written per transaction: their photos are held in memory until then.
    static let batchSize = 25
    /// A batch is written early once its photos hold this much: 25 entries of 8 photos of 8 MB would be 1.6 GB.
    static let maxHeldPhotoBytes = 64 * 1024 * 1024

    /// The photos one import has read from its archive. A member named by several entries is inflated once
    /// per batch and shared (Day One names a photo once per entry that shows it; an attacker names one 8 MB
    /// photo in every entry: issue 28's amplification archive), and every reference counts against what an
    /// archive of this size may write (`ZipReader.limit`), as the Hibi import counts them.
    struct PhotoReads {
        var byPath: [String: Data] = [:]
        var held = 0
        var written: UInt64 = 0
        let limit: UInt64
    }

    /// An upload or a file on disk. A Hibi export is read from the file as it is needed (each member spooled
    /// once, see `DiaryTransfer`), so its size is bounded by what it may inflate to, not by memory; the other
    /// formats are read whole, within `DiaryTransfer.maxImportBytes`.
    public func importFile(path: String, userID: String, timeZone: TimeZone, now: Date, resume: Checkpoint? = nil,
                           progress: Progress? = nil) async throws -> DiaryImportReport {
        let format = try Self.format(path: path)
        switch format.format {
        case .hibi:
            var report = DiaryImportReport(format: .hibi)
            report.added = try await transfer.importExport(path: path, userID: userID, now: now)
            return report
        case .dayOne:
            // Streamed whatever its size: only its entries' and photos' own bounds apply.
            return try await importDayOne(path: path, archive: format.archive, userID: userID, now: now, resume: resume, progress: progress)
        default:
            break
        }
        guard format.size <= UInt64(DiaryTransfer.maxImportBytes) else {
            throw DiaryError.importInvalid(Text(en: "the file is larger than \(DiaryTransfer.maxImportBytes / 1_048_576) MB",
                                                ja: "ファイルが \(DiaryTransfer.maxImportBytes / 1_048_576) MB を超えています"))
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw DiaryError.importInvalid(Text(en: "the file cannot be read", ja: "ファイルを読めません"))
        }
        return try await importFile(data, userID: userID, timeZone: timeZone, now: now)
    }

    /// What a file on disk is, told by its first bytes (and, for an archive, its member names), with the
    /// archive opened for reading when it is one.
    static func format(path: String) throws -> (format: ForeignDiary.Format, archive: ZipReader?, size: UInt64) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DiaryError.importInvalid(Text(en: "the file cannot be read", ja: "ファイルを読めません"))
        }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.close()
        guard ZipReader.looksLikeArchive(head) else { return (try format(head: head, archive: nil), nil, size) }
        let archive: ZipReader
        do { archive = try ZipReader(path: path, maxTotalBytes: maxArchiveInflatedBytes) } catch { throw DiaryError.importInvalid(error.text) }
        return (try format(head: head, archive: archive), archive, size)
    }

    /// The format of an archive, told by its member names and the head of its first top-level JSON file.
    static func format(head: Data, archive: ZipReader?) throws -> ForeignDiary.Format {
        let names = archive.map { Array($0.entries.keys) }
        var head = head.prefix(4096)
        if let archive, let first = journals(in: archive).first { head = Self.head(of: first, in: archive) }
        return ForeignDiary.detect(head: head, names: names)
    }

    /// The first 4 KB of a member, without inflating the rest of it.
    static func head(of name: String, in archive: ZipReader) -> Data {
        struct Enough: Error {}
        var head = Data()
        try? archive.stream(name, chunkSize: 4096) { chunk in
            head.append(chunk.prefix(4096 - head.count))
            if head.count >= 4096 { throw Enough() }
        }
        return head
    }

    public func importFile(_ data: Data, userID: String, timeZone: TimeZone, now: Date) async throws -> DiaryImportReport {
        var archive: ZipReader?
        if ZipReader.looksLikeArchive(data) {
            do { archive = try ZipReader(data: data, maxTotalBytes: DiaryTransfer.maxInflatedBytes) } catch { throw DiaryError.importInvalid(error.text) }
        }
        let topJSON = archive.map(Self.journals(in:)) ?? []
        let format = try Self.format(head: data, archive: archive)
        let read: ForeignRead
        switch format {
        case .hibi:
            var report = DiaryImportReport(format: .hibi)
            report.added = try await transfer.importExport(data, userID: userID, now: now)
            return report
        case .daylioCSV:
            read = DaylioFormat.readCSV(String(decoding: data, as: UTF8.self), timeZone: timeZone)
        case .daylioBackup:
            guard let archive, let file = try Self.member("backup.daylio", in: archive) else { throw DiaryError.importInvalid(Text(en: "no backup.daylio", ja: "backup.daylio がありません")) }
            read = try DaylioFormat.readBackup(file, archiveNames: Set(archive.entries.keys), timeZone: timeZone)
        case .journey:
            guard let archive else { throw DiaryError.importInvalid(Text(en: "a Journey export is a ZIP archive", ja: "Journey のエクスポートは ZIP アーカイブです")) }
            var all = ForeignRead(format: .journey)
            let names = Set(archive.entries.keys)
            for name in topJSON {
                // One damaged file is one skipped entry, like a damaged entry in the other formats.
                let part: ForeignRead
                do {
                    guard let json = try Self.member(name, in: archive) else { continue }
                    part = JourneyFormat.read(json, file: name, archiveNames: names)
                } catch let error as DiaryError {
                    all.skipped.append(.init(at: name, code: "damaged", reason: Text(en: error.message(.en), ja: error.message(.ja))))
                    continue
                }
                all.entries += part.entries
                all.skipped += part.skipped
            }
            read = all
        case .dayOne:
            guard let archive else {
                // Decoding costs about five times the text in memory: the same bound as Hibi's own diary.json.
                guard data.count <= DiaryTransfer.maxJSONBytes else {
                    throw DiaryError.importInvalid(Text(en: "the JSON file is larger than \(DiaryTransfer.maxJSONBytes / 1_048_576) MB",
                                                        ja: "JSON ファイルが \(DiaryTransfer.maxJSONBytes / 1_048_576) MB を超えています"))
                }
                read = try DayOneFormat.read(data, file: "Journal.json", journal: nil, tagJournal: false, archiveNames: nil)
                break
            }
            let journals = topJSON
            var all = ForeignRead(format: .dayOne)
            for name in journals {
                guard let json = try Self.member(name, in: archive) else { continue }
                let part = try DayOneFormat.read(json, file: name, journal: String(name.dropLast(5)), tagJournal: journals.count > 1,
                                                 archiveNames: Set(archive.entries.keys))
                all.entries += part.entries
                all.skipped += part.skipped
            }
            read = all
        }
        return try await add(read, archive: archive, userID: userID, now: now)
    }

    static func member(_ name: String, in archive: ZipReader) throws -> Data? {
        guard let size = archive.entries[name]?.size else { return nil }
        guard size <= UInt64(DiaryTransfer.maxJSONBytes) else {
            throw DiaryError.importInvalid(Text(en: "\(name) is larger than \(DiaryTransfer.maxJSONBytes / 1_048_576) MB",
                                                ja: "\(name) が \(DiaryTransfer.maxJSONBytes / 1_048_576) MB を超えています"))
        }
        do { return try archive.contents(of: name) } catch { throw DiaryError.importInvalid(error.text) }
    }

    /// The entry id an imported entry gets: the same for the same content key and person, so a
    /// second import finds it there; keyed with the data key, so the id says nothing about the text.
    func entryID(userID: String, key: String) -> String {
        Self.uuid(fromHex: box.tag("\(userID)\n\(key)", purpose: "diary-import")) ?? UUID().uuidString.lowercased()
    }

    /// 32 hex digits (Day One's uuids, the tag above), with or without dashes, written as a lower-case UUID.
    static func uuid(fromHex hex: String) -> String? {
        let digits = Array(hex.lowercased().filter { $0 != "-" })
        guard digits.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
        return [String(digits[0..<8]), String(digits[8..<12]), String(digits[12..<16]), String(digits[16..<20]), String(digits[20..<32])].joined(separator: "-")
    }

    struct Prepared {
        let entry: DiaryEntry
        let photoData: [Data]
        let foreign: ForeignEntry
    }

    /// What an import carries from one batch of entries to the next: the report so far, the ids this file
    /// already produced (two identical entries in one file are one entry), and the photos read for the
    /// batch not yet written.
    struct Session {
        var report: DiaryImportReport
        var seen = Set<String>()
        var batch: [Prepared] = []
        var reads: PhotoReads

        init(format: ForeignDiary.Format, limit: UInt64) {
            report = DiaryImportReport(format: format)
            reads = PhotoReads(limit: limit)
        }
    }

    func add(_ read: ForeignRead, archive: ZipReader?, userID: String, now: Date) async throws -> DiaryImportReport {
        var session = Session(format: read.format, limit: archive?.limit ?? 0)
        session.report.skipped = read.skipped
        session.report.photosSkipped = read.skipped.filter { $0.at.hasSuffix(" photo") }.count
        for start in stride(from: 0, to: read.entries.count, by: 500) {
            try await add(Array(read.entries[start..<min(start + 500, read.entries.count)]), archive: archive, session: &session, userID: userID, now: now)
        }
        try await flush(&session, userID: userID, now: now)
        session.report.dayRatingsSet = try await setDayRatings(read.entries, userID: userID, now: now)
        return session.report
    }

    /// Adds what is new of `entries` (the next part of a file), writing a batch whenever it is full; the last
    /// batch waits for `flush`.
    func add(_ entries: [ForeignEntry], archive: ZipReader?, session: inout Session, userID: String, now: Date) async throws {
        let ids = entries.map { entryID(userID: userID, key: $0.key) }
        let sourceIDs = entries.compactMap { $0.sourceID.flatMap(Self.uuid(fromHex:)) }
        var owners: [String: String] = [:]
        let asked = ids + sourceIDs
        for start in stride(from: 0, to: asked.count, by: 500) {
            owners.merge(try await store.owners(ids: Array(asked[start..<min(start + 500, asked.count)]))) { a, _ in a }
        }
        for (foreign, id) in zip(entries, ids) {
            // Already in this diary: imported before, or (a Hibi export read back) the entry it came from.
            let original = foreign.sourceID.flatMap(Self.uuid(fromHex:))
            if owners[id] == userID || original.map({ owners[$0] == userID }) == true || !session.seen.insert(id).inserted {
                session.report.alreadyThere += 1
                continue
            }
            guard owners[id] == nil else {
                session.report.skipped.append(.init(at: foreign.position, code: "invalid", reason: Text(en: "id already in use", ja: "ID が使用中です")))
                continue
            }
            let outcome = prepare(foreign, id: id, archive: archive, reads: &session.reads, userID: userID, now: now)
            session.report.skipped += outcome.skips
            session.report.photosSkipped += outcome.photosSkipped
            if let prepared = outcome.prepared { session.batch.append(prepared) }
            if session.batch.count >= Self.batchSize || session.reads.held >= Self.maxHeldPhotoBytes {
                try await flush(&session, userID: userID, now: now)
            }
        }
    }

    /// Writes the batch held so far and lets its photos go.
    func flush(_ session: inout Session, userID: String, now: Date) async throws {
        session.report.merge(try await write(session.batch, userID: userID, now: now))
        session.batch.removeAll()
        session.reads.byPath.removeAll()
        session.reads.held = 0
    }

    struct Outcome {
        var prepared: Prepared?
        var skips: [ForeignSkip] = []
        var photosSkipped = 0
    }

    /// An entry ready to write with its photos' bytes, or why it (or some of its photos) is skipped.
    func prepare(_ foreign: ForeignEntry, id: String, archive: ZipReader?, reads: inout PhotoReads, userID: String, now: Date) -> Outcome {
        var outcome = Outcome()
        var data: [Data] = []
        for (index, photo) in foreign.photos.enumerated() {
            let at = "\(foreign.position) photo \(photo.identifier)"
            guard index < DiaryRules.maxPhotosPerEntry else {
                outcome.skips.append(.init(at: at, code: "too_many", reason: Text(en: "more than \(DiaryRules.maxPhotosPerEntry) photos in one entry",
                                                                                 ja: "1 件の写真が \(DiaryRules.maxPhotosPerEntry) 枚を超えています")))
                outcome.photosSkipped += 1
                continue
            }
            switch Self.photo(photo, in: archive, reads: &reads) {
            case let .success(bytes): data.append(bytes)
            case let .failure(skip):
                outcome.skips.append(.init(at: at, code: skip.code, reason: skip.reason))
                outcome.photosSkipped += 1
            }
        }
        let entry: DiaryEntry
        do {
            let text = try DiaryRules.validateText(foreign.text, hasPhoto: !data.isEmpty)
            let date = try DiaryRules.validateDate(foreign.date, now: now)
            let tags = try DiaryRules.normalizeTags(foreign.tags)
            let described = data.map { _ in DiaryPhoto(id: UUID().uuidString.lowercased(), hasFace: false, moodSource: false) }
            entry = DiaryEntry(id: id, userID: userID, date: date, text: text, tags: tags, moodScores: nil, confirmedMood: foreign.mood,
                               hasPhoto: !data.isEmpty, createdAt: date, updatedAt: max(foreign.modified ?? date, date), photos: described)
        } catch {
            outcome.skips.append(.init(at: foreign.position, code: "invalid", reason: Text(en: error.message(.en), ja: error.message(.ja))))
            outcome.photosSkipped += data.count
            return outcome
        }
        outcome.prepared = Prepared(entry: entry, photoData: data, foreign: foreign)
        return outcome
    }

    struct PhotoSkip: Error {
        let code: String
        let reason: Text
    }

    static func photo(_ photo: ForeignPhoto, in archive: ZipReader?, reads: inout PhotoReads) -> Result<Data, PhotoSkip> {
        guard let archive else {
            return .failure(.init(code: "missing_file", reason: Text(en: "photo not in the upload (import the ZIP, not the JSON alone)",
                                                                     ja: "写真がアップロードにありません(JSON だけでなく ZIP を読み込んでください)")))
        }
        guard let path = photo.candidates.first(where: { archive.entries[$0] != nil }), let entry = archive.entries[path] else {
            return .failure(.init(code: "missing_file", reason: Text(en: "photo file missing from the archive", ja: "写真のファイルがアーカイブにありません")))
        }
        guard entry.size <= UInt64(DiaryRules.maxPhotoBytes) else {
            return .failure(.init(code: "too_large", reason: Text(en: "photo larger than \(DiaryRules.maxPhotoBytes / 1_048_576) MB",
                                                                  ja: "写真が \(DiaryRules.maxPhotoBytes / 1_048_576) MB を超えています")))
        }
        guard reads.written + entry.size <= reads.limit else {
            return .failure(.init(code: "too_large", reason: Text(en: "the archive names more photo bytes than an archive of its size may hold (each reference counted)",
                                                                  ja: "アーカイブの大きさに対して写真の合計が大きすぎます(参照ごとに数えます)")))
        }
        reads.written += entry.size
        if let shared = reads.byPath[path] { return .success(shared) }
        let data: Data
        do { data = try archive.contents(of: path) ?? Data() } catch {
            return .failure(.init(code: "damaged", reason: error.text))
        }
        do { try DiaryRules.validatePhoto(data) } catch {
            let code = if case .photoTooManyPixels = error { "too_many_pixels" } else { "unsupported" }
            return .failure(.init(code: code, reason: Text(en: "\(error.message(.en)) (\(path))", ja: "\(error.message(.ja))(\(path))")))
        }
        reads.byPath[path] = data
        reads.held += data.count
        return .success(data)
    }

    /// One transaction per batch; its photo files are removed again if the rows do not go in.
    func write(_ batch: [Prepared], userID: String, now: Date) async throws -> DiaryImportReport {
        var report = DiaryImportReport(format: .hibi)
        guard !batch.isEmpty else { return report }
        var saved: [String] = []
        do {
            for item in batch {
                for (photo, bytes) in zip(item.entry.photos, item.photoData) {
                    try photos.save(bytes, userID: userID, photoID: photo.id)
                    saved.append(photo.id)
                }
            }
            try await store.insert(batch.map(\.entry))
        } catch {
            for id in saved { photos.delete(userID: userID, photoID: id) }
            throw error
        }
        report.added += batch.count
        report.photosAdded += saved.count
        for item in batch {
            var kept = item.foreign.details
            if let location = kept.location, let visits {
                let place = RecordedPlace(visitedAt: item.entry.date, latitude: location.latitude, longitude: location.longitude,
                                          name: String((location.placeName ?? location.label).prefix(200)), country: location.country,
                                          region: location.region, locality: location.locality, street: location.placeName,
                                          labels: [kept.source == "dayone" ? "Day One" : "diary"])
                do {
                    kept.visitID = try await visits.recordPlace(place, userID: userID, now: now)
                    report.visitsAdded += 1
                } catch {
                    // The place stays on the entry; only the visit is missing, and the report says why.
                    let reason = (error as? any UserFacingError).map { Text(en: $0.message(.en), ja: $0.message(.ja)) } ?? Text(en: "visit not recorded", ja: "訪問を記録できません")
                    report.skipped.append(.init(at: item.foreign.position + " location", code: "invalid", reason: reason))
                }
            }
            if !kept.isEmpty { try await details.save(kept, userID: userID, entryID: item.entry.id, now: now) }
        }
        return report
    }

    /// Daylio's moods as day ratings, only on days that have none yet (a rating the person chose stays).
    func setDayRatings(_ entries: [ForeignEntry], userID: String, now: Date) async throws -> Int {
        let wanted = DaylioFormat.dayRatings(entries)
        guard let first = wanted.keys.min(), let last = wanted.keys.max() else { return 0 }
        let existing = try await ratings.ratings(userID: userID, from: first, to: last)
        var set = 0
        for (day, rating) in wanted.sorted(by: { $0.key < $1.key }) where existing[day] == nil {
            try await ratings.set(userID: userID, day: day, rating: rating, now: now)
            set += 1
        }
        return set
    }
}
