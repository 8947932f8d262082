import Foundation

/// Export and import of a whole diary.
public struct DiaryTransfer: Sendable {
    let store: DiaryStore
    let photos: PhotoStore

    public init(store: DiaryStore, photos: PhotoStore) {
        self.store = store
        self.photos = photos
    }

    /// Largest archive or JSON file an import accepts; it is read whole into memory.
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

    /// Takes the ZIP archive an export makes, or a version-1 JSON file. Checks every entry and photo
    /// before writing any; entries already in this diary (same id) are skipped, so importing the same
    /// file twice changes nothing. Returns how many were added.
    public func importExport(_ data: Data, userID: String, now: Date) async throws -> Int {
        let archive: ZipReader?
        let json: Data
        if ZipReader.looksLikeArchive(data) {
            do {
                let reader = try ZipReader(data: data, maxTotalBytes: Self.maxInflatedBytes)
                guard let file = try reader.contents(of: DiaryExport.fileName) else {
                    throw DiaryError.importInvalid(Text(en: "the archive has no \(DiaryExport.fileName)", ja: "アーカイブに \(DiaryExport.fileName) がありません"))
                }
                (archive, json) = (reader, file)
            } catch let error as StoredZipError {
                throw DiaryError.importInvalid(error.text)
            }
        } else {
            (archive, json) = (nil, data)
        }
        guard json.count <= Self.maxJSONBytes else {
            throw DiaryError.importInvalid(Text(en: "\(DiaryExport.fileName) is larger than \(Self.maxJSONBytes / 1_048_576) MB",
                                                ja: "\(DiaryExport.fileName) が \(Self.maxJSONBytes / 1_048_576) MB を超えています"))
        }
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
        var prepared: [(DiaryEntry, [Data])] = []
        for (index, item) in export.entries.enumerated() {
            do {
                let listed = item.allPhotos
                guard listed.count <= DiaryRules.maxPhotosPerEntry else { throw DiaryError.tooManyPhotos(limit: DiaryRules.maxPhotosPerEntry) }
                let data = try listed.map { try Self.photoData($0, in: archive) }
                // Fresh photo ids: the files are new here whatever they were called where they came from.
                // An export without the flags (versions 1 and 2) had one photo, the estimate's source if there was one.
                let described = listed.map { photo in
                    DiaryPhoto(id: UUID().uuidString.lowercased(), hasFace: photo.hasFace ?? (item.moodScores != nil),
                               moodSource: photo.moodSource ?? (item.moodScores != nil))
                }
                let id = UUID(uuidString: item.id) != nil ? item.id.lowercased() : UUID().uuidString.lowercased()
                let entry = DiaryEntry(id: id, userID: userID, date: try DiaryRules.validateDate(item.date, now: now),
                                       text: try DiaryRules.validateText(item.text, hasPhoto: !data.isEmpty),
                                       tags: try DiaryRules.normalizeTags(item.tags), moodScores: item.moodScores,
                                       confirmedMood: item.confirmedMood, hasPhoto: !data.isEmpty,
                                       createdAt: item.createdAt, updatedAt: item.updatedAt, photos: described)
                prepared.append((entry, data))
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
        var photoByID: [String: Data] = [:]
        var taken = Set<String>()
        for (entry, data) in prepared {
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
            for (photo, bytes) in zip(entry.photos, data) { photoByID[photo.id] = bytes }
        }
        do {
            for (id, photo) in photoByID { try photos.save(photo, userID: userID, photoID: id) }
            try await store.insert(fresh)
        } catch {
            for id in photoByID.keys { photos.delete(userID: userID, photoID: id) }
            throw error
        }
        return fresh.count
    }

    /// A photo from the archive (by its path) or inline (version 1), checked to be an image within the size limit.
    static func photoData(_ photo: DiaryExport.Photo, in archive: ZipReader?) throws -> Data {
        let data: Data
        if let path = photo.path {
            guard let archive else { throw DiaryError.importInvalid(Text(en: "photos are files in the ZIP archive; import the archive, not diary.json alone",
                                                                          ja: "写真は ZIP アーカイブ内のファイルです。diary.json だけでなくアーカイブを読み込んでください")) }
            let entry = archive.entries[path]
            guard let entry else { throw DiaryError.importInvalid(Text(en: "the photo \(path) is missing from the archive", ja: "写真 \(path) がアーカイブにありません")) }
            // Checked before the bytes are touched, so an oversized entry costs nothing.
            guard entry.size <= UInt64(DiaryRules.maxPhotoBytes) else { throw DiaryError.photoTooLarge(limitMB: DiaryRules.maxPhotoBytes / 1024 / 1024) }
            do {
                data = try archive.contents(of: path) ?? Data()
            } catch {
                throw DiaryError.importInvalid(error.text)
            }
        } else if let base64 = photo.base64, let decoded = Data(base64Encoded: base64) {
            data = decoded
        } else {
            throw DiaryError.photoNotAnImage
        }
        guard data.count <= DiaryRules.maxPhotoBytes else { throw DiaryError.photoTooLarge(limitMB: DiaryRules.maxPhotoBytes / 1024 / 1024) }
        guard DiaryRules.isSupportedImage(data) else { throw DiaryError.photoNotAnImage }
        return data
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
