import Foundation

/// Day One read as a stream, so an export of any size imports in bounded memory: each journal JSON is
/// inflated to a spool file on disk, then read a chunk at a time and split entry by entry
/// (`JSONArrayStream`); entries go in batches, and each photo is inflated from the archive only when its
/// entry is written. What is held at once is one part of entries, one batch's photos and the archive's
/// central directory, whatever the archive's size.
extension DiaryForeignImport {
    /// Most bytes one Day One entry's JSON may have: its text is bounded far below this (`DiaryRules`).
    static let maxEntryBytes = 8 * 1024 * 1024
    /// Entries decoded, looked up and written before the progress is saved.
    static let streamPart = 100
    /// Most bytes a Day One archive may inflate to (its photos): the ratio bound of `ZipReader` applies too.
    static let maxArchiveInflatedBytes: UInt64 = 64 * 1024 * 1024 * 1024
    /// Largest upload the diary import takes (a streamed Day One archive); the formats read whole are
    /// still bounded by `DiaryTransfer.maxImportBytes` once the file is on disk.
    public static let maxUploadBytes: Int64 = 16 * 1024 * 1024 * 1024

    /// Where a streamed import is, saved after each part so a restart goes on from there: the entries of
    /// the file dealt with (added, already there or skipped) and the report so far.
    public struct Checkpoint: Codable, Sendable, Equatable {
        public var done: Int
        public var report: DiaryImportReport
    }

    /// Told the number of entries once the journals are read through, then after every part.
    public typealias Progress = @Sendable (_ total: Int, _ checkpoint: Checkpoint) async throws -> Void

    /// The journal files of a Day One archive: every top-level JSON file.
    static func journals(in archive: ZipReader) -> [String] {
        archive.entries.keys.filter { !$0.contains("/") && $0.lowercased().hasSuffix(".json") }.sorted()
    }

    /// Imports a Day One export on disk, a ZIP (`archive`) or a JSON file alone (`archive` nil), entry by
    /// entry. `resume` is the checkpoint an interrupted run saved: the entries it had dealt with are not
    /// read again, and its report goes on.
    func importDayOne(path: String, archive: ZipReader?, userID: String, now: Date, resume: Checkpoint? = nil,
                      progress: Progress? = nil) async throws -> DiaryImportReport {
        var session = Session(format: .dayOne, limit: archive?.limit ?? 0)
        if let resume { session.report = resume.report }
        let spool = try ImportSpool(mediaDirectory: transfer.mediaDirectory, budget: archive?.limit ?? 0)
        defer { spool.remove() }
        // Each journal on disk first, so the total is known before the first entry is written.
        var files: [(name: String, path: String)] = []
        if let archive {
            for name in Self.journals(in: archive) {
                let spooled: String
                do {
                    spooled = try spool.create(for: name) { handle in try archive.stream(name) { try handle.write(contentsOf: $0) } }
                } catch let error as StoredZipError {
                    throw DiaryError.importInvalid(error.text)
                }
                files.append((name, spooled))
            }
        } else {
            files = [("Journal.json", path)]
        }
        var counts: [Int] = []
        for file in files { counts.append(try Self.countEntries(path: file.path, name: file.name)) }
        let total = counts.reduce(0, +)
        var done = 0
        try await progress?(total, Checkpoint(done: resume?.done ?? 0, report: session.report))
        let names = archive.map { Set($0.entries.keys) }
        for (file, count) in zip(files, counts) {
            let skipBefore = max(0, (resume?.done ?? 0) - done)
            guard skipBefore < count else {
                done += count
                continue
            }
            let journal = archive == nil ? nil : String(file.name.dropLast(5))
            var pending: [ForeignEntry] = []
            var index = 0
            func part() async throws {
                try await add(pending, archive: archive, session: &session, userID: userID, now: now)
                try await flush(&session, userID: userID, now: now)
                pending.removeAll()
                try await progress?(total, Checkpoint(done: done + index, report: session.report))
            }
            let closed = try await Self.elements(path: file.path) { piece in
                defer { index += 1 }
                // Dealt with by the run this one resumes (its report already counts them).
                guard index >= skipBefore else { return false }
                switch piece {
                case let .element(bytes):
                    let (entry, skips) = DayOneFormat.read(element: bytes, index: index, file: file.name, journal: journal,
                                                           tagJournal: files.count > 1, archiveNames: names)
                    session.report.skipped += skips
                    session.report.photosSkipped += skips.filter { $0.at.hasSuffix(" photo") }.count
                    if let entry { pending.append(entry) }
                case let .tooLarge(bytes):
                    session.report.skipped.append(.init(at: "\(file.name) entry \(index + 1)", code: "too_large", reason: Text(
                        en: "the entry is larger than \(Self.maxEntryBytes / 1_048_576) MB (\(bytes / 1_048_576) MB)",
                        ja: "日記が \(Self.maxEntryBytes / 1_048_576) MB を超えています(\(bytes / 1_048_576) MB)")))
                }
                return (index + 1 - skipBefore) % Self.streamPart == 0
            } partDone: {
                try await part()
            }
            if !closed {
                session.report.skipped.append(.init(at: "\(file.name) entry \(index + 1)", code: "damaged", reason: Text(
                    en: "the file ends before its list of entries does (cut short?)", ja: "日記の一覧の途中でファイルが終わっています(途中で切れていませんか)")))
            }
            try await part()
            done += count
            if archive != nil { try? FileManager.default.removeItem(atPath: file.path) }
        }
        return session.report
    }

    /// The number of entries in a journal file, read through once without decoding any; refuses a file that
    /// has no `entries` array (not a Day One export).
    static func countEntries(path: String, name: String) throws -> Int {
        var count = 0
        let stream = try chunks(path: path, name: name) { pieces in count += pieces.count }
        guard stream.found else {
            throw DiaryError.importInvalid(Text(en: "\(name) is not a Day One export (no \"entries\" list)",
                                                ja: "\(name) は Day One のエクスポートではありません(\"entries\" がありません)"))
        }
        return count
    }

    /// Hands each element of the file's `entries` to `each`, which answers whether a part is complete; then
    /// `partDone` runs (it may write to the database) before the next element is handed over.
    /// Returns whether the list ended where it should (false: the file was cut short).
    static func elements(path: String, _ each: (JSONArrayStream.Piece) throws -> Bool, partDone: () async throws -> Void) async throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DiaryError.importInvalid(Text(en: "the file cannot be read", ja: "ファイルを読めません"))
        }
        defer { try? handle.close() }
        var stream = JSONArrayStream(key: "entries", maxElementBytes: maxEntryBytes)
        while !stream.closed, let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty {
            // The chunk's elements are already split out (at most a chunk's worth); a part may end among them.
            for piece in stream.feed(chunk) where try each(piece) { try await partDone() }
        }
        return stream.closed
    }

    /// Reads a file through the splitter, a chunk at a time.
    static func chunks(path: String, name: String, _ each: ([JSONArrayStream.Piece]) -> Void) throws -> JSONArrayStream {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DiaryError.importInvalid(Text(en: "\(name) cannot be read", ja: "\(name) を読めません"))
        }
        defer { try? handle.close() }
        var stream = JSONArrayStream(key: "entries", maxElementBytes: maxEntryBytes)
        while !stream.closed, let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty {
            each(stream.feed(chunk))
        }
        return stream
    }
}
