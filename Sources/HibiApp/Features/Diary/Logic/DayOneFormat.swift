import Foundation

/// Day One's JSON export (`Journal.json`, or one `<Journal name>.json` per journal in a ZIP with
/// `photos/<md5>.<type>`, `videos/`, `audios/`), read into `ForeignEntry`s. One entry that cannot be
/// read is skipped with its position; the rest of the file still imports.
public enum DayOneFormat {
    /// A value that failed to decode is kept as its error, so one bad entry (or one bad photo or
    /// weather block) does not stop the array around it.
    struct Lenient<T: Decodable>: Decodable {
        let value: T?
        let error: String?

        init(from decoder: any Decoder) throws {
            do {
                value = try T(from: decoder)
                error = nil
            } catch {
                value = nil
                self.error = DiaryTransfer.describe(error)
            }
        }
    }

    struct Export: Decodable {
        let entries: [Lenient<Entry>]
    }

    struct Entry: Decodable {
        let uuid: String?
        let text: String?
        let creationDate: String?
        let modifiedDate: String?
        let timeZone: String?
        let tags: [String]?
        let starred: Bool?
        let location: Lenient<Location>?
        let weather: Lenient<Weather>?
        let photos: [Lenient<Media>]?
        let videos: [Lenient<Media>]?
        let audios: [Lenient<Media>]?
        let pdfAttachments: [Lenient<Media>]?
    }

    /// Day One's own field names, read and written alike.
    struct Location: Codable {
        let latitude: Double?
        let longitude: Double?
        let placeName: String?
        let localityName: String?
        let administrativeArea: String?
        let country: String?
    }

    struct Weather: Codable {
        let conditionsDescription: String?
        let weatherCode: String?
        let temperatureCelsius: Double?
        let relativeHumidity: Double?
        let windSpeedKPH: Double?
        let pressureMB: Double?
    }

    struct Media: Codable {
        let identifier: String?
        let md5: String?
        let type: String?
        let orderInEntry: Int?
    }

    static let momentPattern = #"(\n\n)?!\[\]\(dayone-moment:/*([A-Za-z0-9-]+)\)"#

    public static func parseDate(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Reads one journal file. `journal` is its name (the file name without `.json`); `tagJournal`
    /// adds it as a tag too (an archive with several journals). `archiveNames` are the archive's
    /// members, to find each photo's file; nil for a JSON file alone (its photos are then reported missing).
    public static func read(_ json: Data, file: String, journal: String?, tagJournal: Bool, archiveNames: Set<String>?) throws(DiaryError) -> ForeignRead {
        let export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: json)
        } catch {
            let detail = DiaryTransfer.describe(error)
            throw .importInvalid(Text(en: "\(file) is not a Day One export (\(detail))", ja: "\(file) は Day One のエクスポートではありません(\(detail))"))
        }
        var result = ForeignRead(format: .dayOne)
        for (index, item) in export.entries.enumerated() {
            let (entry, skips) = read(item, index: index, file: file, journal: journal, tagJournal: tagJournal, archiveNames: archiveNames)
            result.skipped += skips
            if let entry { result.entries.append(entry) }
        }
        return result
    }

    /// One element of the `entries` array as its own JSON (read from a journal streamed entry by entry, see
    /// `JSONArrayStream`); bytes that are not JSON are one skipped entry, like an entry that does not decode.
    static func read(element: Data, index: Int, file: String, journal: String?, tagJournal: Bool,
                     archiveNames: Set<String>?) -> (ForeignEntry?, [ForeignSkip]) {
        let item: Lenient<Entry>
        do { item = try JSONDecoder().decode(Lenient<Entry>.self, from: element) } catch {
            let detail = DiaryTransfer.describe(error)
            return (nil, [.init(at: "\(file) entry \(index + 1)", code: "unreadable", reason: Text(en: "unreadable (\(detail))", ja: "読めません(\(detail))"))])
        }
        return read(item, index: index, file: file, journal: journal, tagJournal: tagJournal, archiveNames: archiveNames)
    }

    /// The entry at `index` (from 0) of a journal file, or why it is skipped, with what of it is skipped
    /// (videos, unreadable photos) while the entry itself is kept.
    static func read(_ item: Lenient<Entry>, index: Int, file: String, journal: String?, tagJournal: Bool,
                     archiveNames: Set<String>?) -> (ForeignEntry?, [ForeignSkip]) {
        var skipped: [ForeignSkip] = []
        var position = "\(file) entry \(index + 1)"
        guard let entry = item.value else {
            skipped.append(.init(at: position, code: "unreadable", reason: Text(en: "unreadable (\(item.error ?? "?"))", ja: "読めません(\(item.error ?? "?"))")))
            return (nil, skipped)
        }
        if let uuid = entry.uuid { position += " (\(uuid))" }
        guard let date = parseDate(entry.creationDate) else {
            skipped.append(.init(at: position, code: "unreadable", reason: Text(en: "no creation date that can be read", ja: "読める作成日時がありません")))
            return (nil, skipped)
        }
        let (text, photos) = resolvePhotos(entry.text ?? "", media: (entry.photos ?? []).compactMap(\.value), archiveNames: archiveNames)
        for bad in (entry.photos ?? []) where bad.value == nil {
            skipped.append(.init(at: position + " photo", code: "unreadable", reason: Text(en: "unreadable photo (\(bad.error ?? "?"))", ja: "読めない写真(\(bad.error ?? "?"))")))
        }
        for (kind, list) in [("video", entry.videos), ("audio", entry.audios), ("PDF", entry.pdfAttachments)] {
            for media in list ?? [] {
                skipped.append(.init(at: position + " \(kind) \(media.value?.identifier ?? "?")", code: "unsupported",
                                     reason: Text(en: "the diary keeps photos, not \(kind) files", ja: "日記が保存するのは写真だけです(\(kind) は保存しません)")))
            }
        }
        var rawTags = entry.tags ?? []
        if tagJournal, let journal { rawTags.insert(journal, at: 0) }
        let (tags, overflow) = ForeignDiary.fitTags(rawTags)
        var details = ForeignDetails(source: "dayone", timeZone: entry.timeZone, starred: entry.starred, journal: journal)
        if let place = entry.location?.value, let latitude = place.latitude, let longitude = place.longitude, latitude.isFinite, longitude.isFinite {
            details.location = ForeignLocation(latitude: latitude, longitude: longitude, placeName: place.placeName, locality: place.localityName,
                                               region: place.administrativeArea, country: place.country)
        }
        if let weather = entry.weather?.value {
            let kept = ForeignWeather(conditions: weather.conditionsDescription, code: weather.weatherCode,
                                      temperatureCelsius: weather.temperatureCelsius.flatMap { $0.isFinite ? $0 : nil },
                                      relativeHumidity: weather.relativeHumidity.flatMap { $0.isFinite ? $0 : nil },
                                      windSpeedKPH: weather.windSpeedKPH.flatMap { $0.isFinite ? $0 : nil },
                                      pressureMB: weather.pressureMB.flatMap { $0.isFinite ? $0 : nil })
            if !kept.isEmpty { details.weather = kept }
        }
        let body = ForeignDiary.appendOverflow(overflow, to: text)
        return (ForeignEntry(
            position: position, key: ForeignDiary.contentKey(source: "dayone", id: entry.uuid, localMinute: entry.creationDate ?? "", text: body),
            sourceID: entry.uuid, date: date, modified: parseDate(entry.modifiedDate), text: body, tags: tags, details: details, photos: photos),
                skipped)
    }

    /// Takes the photo references (`![](dayone-moment://ID)`) that name an attached photo out of the
    /// text, since the diary shows its photos itself, and lists the photos in the order the text
    /// shows them, then the rest in Day One's order. References to anything else stay in the text.
    static func resolvePhotos(_ text: String, media: [Media], archiveNames: Set<String>?) -> (String, [ForeignPhoto]) {
        let byID = Dictionary(media.compactMap { m in m.identifier.map { ($0.uppercased(), m) } }, uniquingKeysWith: { a, _ in a })
        var ordered: [String] = []
        var result = ""
        let regex = try? NSRegularExpression(pattern: momentPattern)
        let ns = text as NSString
        var cursor = 0
        for match in regex?.matches(in: text, range: NSRange(location: 0, length: ns.length)) ?? [] {
            let id = ns.substring(with: match.range(at: 2)).uppercased()
            guard byID[id] != nil else { continue }
            result += ns.substring(with: NSRange(location: cursor, length: match.range.location - cursor))
            cursor = match.range.location + match.range.length
            if !ordered.contains(id) { ordered.append(id) }
        }
        result += ns.substring(from: cursor)
        let remaining = media.sorted { ($0.orderInEntry ?? Int.max) < ($1.orderInEntry ?? Int.max) }.compactMap { $0.identifier?.uppercased() }
        for id in remaining where !ordered.contains(id) { ordered.append(id) }
        let photos = ordered.compactMap { id -> ForeignPhoto? in
            guard let m = byID[id] else { return nil }
            var candidates: [String] = []
            if let md5 = m.md5, !md5.isEmpty {
                let type = (m.type ?? "jpeg").lowercased()
                candidates.append("photos/\(md5).\(type)")
                if let names = archiveNames {
                    candidates += names.filter { $0.hasPrefix("photos/\(md5).") }.sorted()
                }
            }
            return ForeignPhoto(identifier: m.identifier ?? id, candidates: candidates)
        }
        return (result, photos)
    }
}

// MARK: Writing (Hibi's diary as a Day One export)

extension DayOneFormat {
    /// One entry to write: the diary entry, what it brought from elsewhere, and its photos' MD5 and type.
    public struct Outgoing: Sendable {
        public var entry: DiaryEntry
        public var details: ForeignDetails?
        public var photos: [(id: String, md5: String, type: String)]
        public var timeZone: String
    }

    struct WrittenExport: Encodable {
        let metadata = ["version": "1.0"]
        let entries: [WrittenEntry]
    }

    struct WrittenEntry: Encodable {
        let uuid: String
        let creationDate: String
        let modifiedDate: String
        let timeZone: String
        let starred: Bool
        let tags: [String]
        let text: String
        let photos: [Media]?
        let location: Location?
        let weather: Weather?
    }

    /// Day One's identifiers are 32 upper-case hex digits: a diary id (a UUID) without its dashes.
    public static func identifier(_ id: String) -> String {
        id.replacingOccurrences(of: "-", with: "").uppercased()
    }

    /// `Journal.json` as Day One writes it: photos referenced from the text as `![](dayone-moment://ID)`
    /// after the entry's own text, each file being `photos/<md5>.<type>`. Read back by `read`, the text
    /// comes out byte for byte as the diary holds it.
    public static func write(_ entries: [Outgoing]) throws -> Data {
        let formatter = ISO8601DateFormatter()
        let written = entries.map { item in
            let photos = item.photos.enumerated().map { index, photo in
                Media(identifier: identifier(photo.id), md5: photo.md5, type: photo.type, orderInEntry: index)
            }
            let references = photos.map { "\n\n![](dayone-moment://\($0.identifier ?? ""))" }.joined()
            let location = item.details?.location.map {
                Location(latitude: $0.latitude, longitude: $0.longitude, placeName: $0.placeName, localityName: $0.locality,
                                administrativeArea: $0.region, country: $0.country)
            }
            let weather = item.details?.weather.map {
                Weather(conditionsDescription: $0.conditions, weatherCode: $0.code, temperatureCelsius: $0.temperatureCelsius,
                               relativeHumidity: $0.relativeHumidity, windSpeedKPH: $0.windSpeedKPH, pressureMB: $0.pressureMB)
            }
            return WrittenEntry(uuid: identifier(item.entry.id), creationDate: formatter.string(from: item.entry.date),
                                modifiedDate: formatter.string(from: item.entry.updatedAt), timeZone: item.details?.timeZone ?? item.timeZone,
                                starred: item.details?.starred ?? false, tags: item.entry.tags, text: item.entry.text + references,
                                photos: photos.isEmpty ? nil : photos, location: location, weather: weather)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(WrittenExport(entries: written))
    }
}
