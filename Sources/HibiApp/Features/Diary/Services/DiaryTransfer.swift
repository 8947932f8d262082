import Foundation
import NIOCore

/// Export and import of a whole diary.
public struct DiaryTransfer: Sendable {
    let store: DiaryStore
    let photos: PhotoStore

    public init(store: DiaryStore, photos: PhotoStore) {
        self.store = store
        self.photos = photos
    }

    /// Largest archive or JSON file an import accepts over HTTP (the API spools it to disk; the web form's
    /// multipart body is still parsed in memory).
    public static let maxImportBytes = 256 * 1024 * 1024
    /// Largest diary.json (inside an archive or alone). Decoding costs about five times the text in
    /// memory (a 66 MB file raised memory by 330 MB); 100k entries of typical length take under 32 MB.
    public static let maxJSONBytes = 32 * 1024 * 1024
    /// Largest size an archive may unpack to: an archive re-zipped with deflate holds photos that barely
    /// shrink, so anything far past the upload limit is a bomb, not a diary.
    static let maxInflatedBytes: UInt64 = 1024 * 1024 * 1024

    /// The entries an export will hold, listed before the first byte is sent so that a diary too large
    /// for one archive fails with a clear error instead of a download cut short.
    public struct ExportPlan: Sendable {
        let userID: String
        let entries: [DiaryEntry]
        public var entryCount: Int { entries.count }
    }

    public func planExport(userID: String) async throws -> ExportPlan {
        var entries: [DiaryEntry] = []
        var offset = 0
        while true {
            let page = try await store.list(userID: userID, filter: .init(), limit: 500, offset: offset).entries
            if page.isEmpty { break }
            entries += page
            offset += page.count
        }
        entries.reverse()
        // Sealed files are a little larger than the photos inside, so their sum bounds the archive from above;
        // the text allowance covers headers and each entry's JSON with room to spare.
        let photoCount = entries.reduce(0) { $0 + $1.photos.count }
        var bytes: UInt64 = 0
        for entry in entries {
            bytes += UInt64(entry.text.utf8.count) * 6 + 2048
            for photo in entry.photos { bytes += UInt64(photos.storedSize(userID: userID, photoID: photo.id) ?? 0) + 256 }
        }
        guard photoCount + 1 < StoredZip.maxEntries, bytes < StoredZip.maxArchiveBytes else { throw DiaryError.exportTooLarge }
        return ExportPlan(userID: userID, entries: entries)
    }

    /// Writes the archive: each photo as soon as it is read, then `diary.json`, then the directory.
    /// Only one photo is in memory at a time.
    public func writeArchive(_ plan: ExportPlan, now: Date, to write: (Data) async throws -> Void) async throws {
        var zip = StoredZipWriter()
        try await addMembers(plan, now: now, to: &zip, write: write)
        try await write(zip.finish())
    }

    /// The photos and `diary.json` as members of an archive someone else finishes (the whole takeout).
    func addMembers(_ plan: ExportPlan, now: Date, to zip: inout StoredZipWriter, write: (Data) async throws -> Void) async throws {
        var items: [DiaryExport.Entry] = []
        items.reserveCapacity(plan.entries.count)
        for entry in plan.entries {
            var exported: [DiaryExport.Photo] = []
            for photo in entry.photos {
                guard let data = try photos.load(userID: plan.userID, photoID: photo.id) else { continue }
                let type = DiaryRules.imageContentType(data)
                let path = "photos/\(photo.id).\(Self.fileExtension(type))"
                for chunk in try zip.add(name: path, data: data, modified: entry.updatedAt) { try await write(chunk) }
                exported.append(.init(contentType: type, path: path, hasFace: photo.hasFace, moodSource: photo.moodSource))
            }
            items.append(.init(id: entry.id, date: entry.date, text: entry.text, tags: entry.tags, moodScores: entry.moodScores,
                               confirmedMood: entry.confirmedMood, createdAt: entry.createdAt, updatedAt: entry.updatedAt,
                               photos: exported.isEmpty ? nil : exported))
        }
        let export = DiaryExport(format: DiaryExport.formatName, version: DiaryExport.currentVersion, exportedAt: now, entries: items)
        let encoder = JSONCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        for chunk in try zip.add(name: DiaryExport.fileName, data: try encoder.encode(export), modified: now) { try await write(chunk) }
    }

    static func fileExtension(_ contentType: String) -> String {
        switch contentType {
        case "image/png": "png"
        case "image/webp": "webp"
        default: "jpg"
        }
    }

    /// Takes the ZIP archive an export makes, or a version-1 JSON file, held in memory.
    public func importExport(_ data: Data, userID: String, now: Date) async throws -> Int {
        guard ZipReader.looksLikeArchive(data) else { return try await importExport(json: data, archive: nil, userID: userID, now: now) }
        return try await importArchive(try Self.open { try ZipReader(data: data, maxTotalBytes: Self.maxInflatedBytes) }, userID: userID, now: now)
    }

    /// The same from a file on disk (an upload spooled by the route, or the command line's argument): the
    /// archive is never read into memory whole.
    public func importExport(path: String, userID: String, now: Date) async throws -> Int {
        let head = FileHandle(forReadingAtPath: path).flatMap { handle in defer { try? handle.close() }; return try? handle.read(upToCount: 4) } ?? Data()
        if ZipReader.looksLikeArchive(head) {
            return try await importArchive(try Self.open { try ZipReader(path: path, maxTotalBytes: Self.maxInflatedBytes) }, userID: userID, now: now)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maxJSONBytes else { throw Self.jsonTooLarge }
        guard let json = FileManager.default.contents(atPath: path) else { throw DiaryError.importInvalid(Text(en: "the file cannot be read", ja: "ファイルを読めません")) }
        return try await importExport(json: json, archive: nil, userID: userID, now: now)
    }

    /// An export archive already open (the whole takeout hands its own over).
    func importArchive(_ reader: ZipReader, userID: String, now: Date) async throws -> Int {
        guard let file = try Self.open({ try reader.contents(of: DiaryExport.fileName) }) else {
            throw DiaryError.importInvalid(Text(en: "the archive has no \(DiaryExport.fileName)", ja: "アーカイブに \(DiaryExport.fileName) がありません"))
        }
        return try await importExport(json: file, archive: reader, userID: userID, now: now)
    }

    /// Where imports keep what they read: the media directory (`ImportSpool`).
    var mediaDirectory: String { (photos.directory as NSString).deletingLastPathComponent }

    /// An uploaded export streamed into a spool file (at most `limit`), handed to `body` by path and
    /// removed afterwards: the request body is never held in memory whole.
    public func withUpload<Body: AsyncSequence & Sendable, T>(_ upload: Body, limit: Int64 = Int64(maxImportBytes),
                                                              _ body: (String) async throws -> T) async throws -> T
    where Body.Element == ByteBuffer {
        let directory = ((mediaDirectory as NSString).appendingPathComponent("tmp") as NSString).appendingPathComponent("uploads")
        let path = try await Self.spool(upload, into: directory, limit: limit)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// Streams an upload into a new private file under `directory`, with the import's own errors.
    static func spool<Body: AsyncSequence & Sendable>(_ upload: Body, into directory: String, limit: Int64) async throws -> String
    where Body.Element == ByteBuffer {
        do {
            return try await UploadSpool.receive(upload, into: directory, suffix: ".upload", limit: limit).path
        } catch .tooLarge {
            throw DiaryError.importInvalid(Text(en: "the file is larger than \(limit / 1_048_576) MB", ja: "ファイルが \(limit / 1_048_576) MB を超えています"))
        } catch .empty {
            throw DiaryError.importInvalid(Text(en: "the upload is empty", ja: "アップロードされたファイルが空です"))
        } catch {
            throw DiaryError.importInvalid(Text(en: "the upload stopped before its end; send the file again", ja: "アップロードが途中で止まりました。もう一度送ってください"))
        }
    }

    /// An archive's own error as the import's.
    static func open<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as StoredZipError { throw DiaryError.importInvalid(error.text) }
    }

    static var jsonTooLarge: DiaryError {
        .importInvalid(Text(en: "\(DiaryExport.fileName) is larger than \(maxJSONBytes / 1_048_576) MB",
                            ja: "\(DiaryExport.fileName) が \(maxJSONBytes / 1_048_576) MB を超えています"))
    }

    /// Checks every entry and photo before writing any; entries already in this diary (same id) are skipped,
    /// so importing the same file twice changes nothing. Returns how many were added.
    ///
    /// Bounded by construction whatever `diary.json` says: each archive member is inflated at most once, into
    /// a spool file under the media directory's `tmp/imports/`, and a second reference to it reuses that file
    /// (reusing rather than refusing: an honest export never repeats a path, but nothing is lost by allowing
    /// it). What the import will write counts every reference, and may not pass what the archive's size
    /// allows (`ZipReader.limit`, 200 times its size up to 1 GB): 72 KB listing one 8 MB photo 64 times is
    /// refused before a photo is written. Photos stay on disk until each is sealed, one at a time, so memory
    /// does not grow with their number.
    func importExport(json: Data, archive: ZipReader?, userID: String, now: Date) async throws -> Int {
        guard json.count <= Self.maxJSONBytes else { throw Self.jsonTooLarge }
        let export: DiaryExport
        do {
            export = try JSONCoding.decoder.decode(DiaryExport.self, from: json)
        } catch {
            let detail = Self.describe(error)
            throw DiaryError.importInvalid(Text(en: "not a Hibi diary export (\(detail))", ja: "Hibi の日記エクスポートではありません(\(detail))"))
        }
        guard export.format == DiaryExport.formatName else {
            throw DiaryError.importInvalid(Text(en: "unknown format \"\(export.format)\"", ja: "不明な形式「\(export.format)」です"))
        }
        guard export.version <= DiaryExport.currentVersion else {
            throw DiaryError.importInvalid(Text(en: "made by a newer Hibi (version \(export.version))", ja: "新しい Hibi で作られています(バージョン \(export.version))"))
        }
        let spool = try ImportSpool(mediaDirectory: mediaDirectory,
                                    budget: archive?.limit ?? UInt64(Self.maxJSONBytes))
        defer { spool.remove() }
        var prepared: [(DiaryEntry, [String])] = []
        for (index, item) in export.entries.enumerated() {
            do {
                let listed = item.allPhotos
                guard listed.count <= DiaryRules.maxPhotosPerEntry else { throw DiaryError.tooManyPhotos(limit: DiaryRules.maxPhotosPerEntry) }
                let files = try listed.map { try Self.spoolPhoto($0, from: archive, into: spool) }
                // Fresh photo ids: the files are new here whatever they were called where they came from.
                // An export without the flags (versions 1 and 2) had one photo, the estimate's source if there was one.
                let described = listed.map { photo in
                    DiaryPhoto(id: UUID().uuidString.lowercased(), hasFace: photo.hasFace ?? (item.moodScores != nil),
                               moodSource: photo.moodSource ?? (item.moodScores != nil))
                }
                let id = UUID(uuidString: item.id) != nil ? item.id.lowercased() : UUID().uuidString.lowercased()
                let entry = DiaryEntry(id: id, userID: userID, date: try DiaryRules.validateDate(item.date, now: now),
                                       text: try DiaryRules.validateText(item.text, hasPhoto: !files.isEmpty),
                                       tags: try DiaryRules.normalizeTags(item.tags), moodScores: item.moodScores,
                                       confirmedMood: item.confirmedMood, hasPhoto: !files.isEmpty,
                                       createdAt: item.createdAt, updatedAt: item.updatedAt, photos: described)
                prepared.append((entry, files))
            } catch let error as DiaryError {
                let detail = if case let .importInvalid(detail) = error { detail } else { Text(en: error.message(.en), ja: error.message(.ja)) }
                throw DiaryError.importInvalid(Text(en: "entry \(index + 1): \(detail.en)", ja: "\(index + 1) 件目: \(detail.ja)"))
            }
        }
        // Which ids exist already, and whose they are, asked 500 at a time rather than once per entry.
        var owners: [String: String] = [:]
        let ids = prepared.map(\.0.id)
        for start in stride(from: 0, to: ids.count, by: 500) {
            owners.merge(try await store.owners(ids: Array(ids[start..<min(start + 500, ids.count)]))) { a, _ in a }
        }
        var fresh: [DiaryEntry] = []
        var photoFiles: [(id: String, file: String)] = []
        var taken = Set<String>()
        for (entry, files) in prepared {
            if owners[entry.id] == userID { continue }
            var entry = entry
            // An id taken by someone else's entry (a restore into another account) gets a fresh one.
            if owners[entry.id] != nil || taken.contains(entry.id) {
                entry = DiaryEntry(id: UUID().uuidString.lowercased(), userID: userID, date: entry.date, text: entry.text, tags: entry.tags,
                                   moodScores: entry.moodScores, confirmedMood: entry.confirmedMood, hasPhoto: entry.hasPhoto,
                                   createdAt: entry.createdAt, updatedAt: entry.updatedAt, photos: entry.photos)
            }
            taken.insert(entry.id)
            fresh.append(entry)
            for (photo, file) in zip(entry.photos, files) { photoFiles.append((photo.id, file)) }
        }
        var saved: [String] = []
        do {
            for (id, file) in photoFiles {
                // One photo in memory at a time, read back from its spool file.
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw DiaryError.importInvalid(Text(en: "a spooled photo vanished", ja: "一時保存した写真が消えました"))
                }
                try photos.save(data, userID: userID, photoID: id)
                saved.append(id)
            }
            try await store.insert(fresh)
        } catch {
            for id in saved { photos.delete(userID: userID, photoID: id) }
            throw error
        }
        return fresh.count
    }

    /// A photo from the archive (by its path, inflated once into the spool) or inline (version 1), checked to be
    /// an image within the size limit and counted against the spool's budget; returns its spool file.
    static func spoolPhoto(_ photo: DiaryExport.Photo, from archive: ZipReader?, into spool: ImportSpool) throws -> String {
        let tooLarge = DiaryError.photoTooLarge(limitMB: DiaryRules.maxPhotoBytes / 1024 / 1024)
        if let path = photo.path {
            guard let archive else { throw DiaryError.importInvalid(Text(en: "photos are files in the ZIP archive; import the archive, not diary.json alone",
                                                                          ja: "写真は ZIP アーカイブ内のファイルです。diary.json だけでなくアーカイブを読み込んでください")) }
            guard let entry = archive.entries[path] else {
                throw DiaryError.importInvalid(Text(en: "the photo \(path) is missing from the archive", ja: "写真 \(path) がアーカイブにありません"))
            }
            // Checked before the bytes are touched, so an oversized entry costs nothing.
            guard entry.size <= UInt64(DiaryRules.maxPhotoBytes) else { throw tooLarge }
            try charge(spool, entry.size)
            if let file = spool.file(for: path) { return file }
            let file = try spool.create(for: path) { handle in
                try open { try archive.stream(path) { chunk in try handle.write(contentsOf: chunk) } }
            }
            try checkImage(at: file)
            return file
        }
        guard let base64 = photo.base64, let data = Data(base64Encoded: base64) else { throw DiaryError.photoNotAnImage }
        guard data.count <= DiaryRules.maxPhotoBytes else { throw tooLarge }
        try charge(spool, UInt64(data.count))
        let file = try spool.create(for: nil) { handle in try handle.write(contentsOf: data) }
        try checkImage(at: file)
        return file
    }

    /// Counts a photo's bytes against the spool's budget; past it the archive is refused as the diary's import error.
    static func charge(_ spool: ImportSpool, _ bytes: UInt64) throws(DiaryError) {
        do {
            try spool.charge(bytes)
        } catch {
            let megabytes = String(format: "%.1f", Double(error.budget) / 1_048_576)
            throw .importInvalid(Text(
                en: "the archive's entries would write more than \(megabytes) MB of photos (each reference to a file counted), more than an archive of its size can hold",
                ja: "アーカイブの日記が参照する写真は合わせて \(megabytes) MB を超えます(同じファイルへの参照も 1 回ずつ数えます)。この大きさのアーカイブに入る量を超えています"))
        }
    }

    /// The spooled photo is an image Hibi shows, within the pixel cap (read mapped: only its header is decoded).
    static func checkImage(at file: String) throws {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped) else { throw DiaryError.photoNotAnImage }
        try DiaryRules.validatePhoto(data)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, context): "missing \"\(key.stringValue)\" at \(path(context))"
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context): "wrong value at \(path(context))"
        case let DecodingError.dataCorrupted(context): context.codingPath.isEmpty ? "not valid JSON" : "bad value at \(path(context))"
        default: "unreadable"
        }
    }

    static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
