import Foundation

/// Export and import of a whole diary.
public struct DiaryTransfer: Sendable {
    let store: DiaryStore
    let photos: PhotoStore

    public init(store: DiaryStore, photos: PhotoStore) {
        self.store = store
        self.photos = photos
    }

    public func export(userID: String, now: Date) async throws -> DiaryExport {
        var entries: [DiaryExport.Entry] = []
        var offset = 0
        while true {
            let page = try await store.list(userID: userID, filter: .init(), limit: 500, offset: offset).entries
            if page.isEmpty { break }
            for entry in page {
                let photo = entry.hasPhoto ? try photos.load(userID: userID, entryID: entry.id) : nil
                entries.append(.init(id: entry.id, date: entry.date, text: entry.text, tags: entry.tags, moodScores: entry.moodScores,
                                     confirmedMood: entry.confirmedMood, createdAt: entry.createdAt, updatedAt: entry.updatedAt,
                                     photo: photo.map { .init(contentType: DiaryRules.imageContentType($0), base64: $0.base64EncodedString()) }))
            }
            offset += page.count
        }
        return DiaryExport(format: DiaryExport.formatName, version: DiaryExport.currentVersion, exportedAt: now, entries: entries.reversed())
    }

    /// Checks every entry before writing any; entries already in this diary (same id) are skipped,
    /// so importing the same file twice changes nothing. Returns how many were added.
    public func importExport(_ data: Data, userID: String, now: Date) async throws -> Int {
        let export: DiaryExport
        do {
            export = try JSONCoding.decoder.decode(DiaryExport.self, from: data)
        } catch {
            throw DiaryError.importInvalid("not a Hibi diary export (\(Self.describe(error)))")
        }
        guard export.format == DiaryExport.formatName else { throw DiaryError.importInvalid("unknown format \"\(export.format)\"") }
        guard export.version <= DiaryExport.currentVersion else {
            throw DiaryError.importInvalid("made by a newer Hibi (version \(export.version))")
        }
        var prepared: [(DiaryEntry, Data?)] = []
        for (index, item) in export.entries.enumerated() {
            do {
                let photo = try item.photo.map { photo -> Data in
                    guard let data = Data(base64Encoded: photo.base64), DiaryRules.isSupportedImage(data) else { throw DiaryError.photoNotAnImage }
                    return data
                }
                let id = UUID(uuidString: item.id) != nil ? item.id.lowercased() : UUID().uuidString.lowercased()
                let entry = DiaryEntry(id: id, userID: userID, date: try DiaryRules.validateDate(item.date, now: now),
                                       text: try DiaryRules.validateText(item.text, hasPhoto: photo != nil),
                                       tags: try DiaryRules.normalizeTags(item.tags), moodScores: item.moodScores,
                                       confirmedMood: item.confirmedMood, hasPhoto: photo != nil,
                                       createdAt: item.createdAt, updatedAt: item.updatedAt)
                prepared.append((entry, photo))
            } catch let error as DiaryError {
                throw DiaryError.importInvalid("entry \(index + 1): \(error.message(.en))")
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
        for (entry, photo) in prepared {
            if owners[entry.id] == userID { continue }
            var entry = entry
            // An id taken by someone else's entry (a restore into another account) gets a fresh one.
            if owners[entry.id] != nil || taken.contains(entry.id) {
                entry = DiaryEntry(id: UUID().uuidString.lowercased(), userID: userID, date: entry.date, text: entry.text, tags: entry.tags,
                                   moodScores: entry.moodScores, confirmedMood: entry.confirmedMood, hasPhoto: entry.hasPhoto,
                                   createdAt: entry.createdAt, updatedAt: entry.updatedAt)
            }
            taken.insert(entry.id)
            fresh.append(entry)
            if let photo { photoByID[entry.id] = photo }
        }
        do {
            for (id, photo) in photoByID { try photos.save(photo, userID: userID, entryID: id) }
            try await store.insert(fresh)
        } catch {
            for id in photoByID.keys { photos.delete(userID: userID, entryID: id) }
            throw error
        }
        return fresh.count
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
