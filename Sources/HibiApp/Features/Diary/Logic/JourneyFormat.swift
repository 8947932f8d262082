import Foundation

/// Journey's JSON export: a ZIP with one `<id>.json` per entry and its photos beside it, named in the
/// entry's `photos`. Times are milliseconds since 1970; an absent place or temperature is written as
/// the largest double, which is read as absent.
public enum JourneyFormat {
    struct Entry: Decodable {
        let id: String?
        let date_journal: Double?
        let date_modified: Double?
        let timezone: String?
        let text: String?
        let type: String?
        let lat: Double?
        let lon: Double?
        let address: String?
        let favourite: Bool?
        let photos: [String]?
        let tags: [String]?
        let weather: DayOneFormat.Lenient<Weather>?
    }

    struct Weather: Decodable {
        let degree_c: Double?
        let description: String?
        let place: String?
    }

    static func date(milliseconds: Double?) -> Date? {
        guard let milliseconds, milliseconds.isFinite, milliseconds > 0, milliseconds < 32_503_680_000_000 else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// Journey marks "no value" with the largest double; real places and temperatures are far inside these bounds.
    static func real(_ value: Double?, within bound: Double) -> Double? {
        guard let value, value.isFinite, abs(value) <= bound else { return nil }
        return value
    }

    /// Reads one entry file; its photos are found among `archiveNames` by file name.
    public static func read(_ json: Data, file: String, archiveNames: Set<String>) -> ForeignRead {
        var result = ForeignRead(format: .journey)
        let entry: Entry
        do {
            entry = try JSONDecoder().decode(Entry.self, from: json)
        } catch {
            let detail = DiaryTransfer.describe(error)
            result.skipped.append(.init(at: file, code: "unreadable", reason: Text(en: "unreadable (\(detail))", ja: "読めません(\(detail))")))
            return result
        }
        guard let date = Self.date(milliseconds: entry.date_journal) else {
            result.skipped.append(.init(at: file, code: "unreadable", reason: Text(en: "no date that can be read", ja: "読める日付がありません")))
            return result
        }
        let raw = entry.text ?? ""
        let text = entry.type?.lowercased() == "html" ? ForeignDiary.plainText(fromHTML: raw) : raw
        let (tags, overflow) = ForeignDiary.fitTags(entry.tags ?? [])
        var details = ForeignDetails(source: "journey", timeZone: entry.timezone, starred: entry.favourite)
        if let latitude = real(entry.lat, within: 90), let longitude = real(entry.lon, within: 180) {
            let address = entry.address?.trimmingCharacters(in: .whitespaces)
            details.location = ForeignLocation(latitude: latitude, longitude: longitude, placeName: address?.isEmpty == false ? address : nil)
        }
        if let weather = entry.weather?.value {
            let kept = ForeignWeather(conditions: weather.description?.isEmpty == false ? weather.description : nil,
                                      temperatureCelsius: real(weather.degree_c, within: 100))
            if !kept.isEmpty { details.weather = kept }
        }
        let photos = (entry.photos ?? []).map { name in
            ForeignPhoto(identifier: name, candidates: archiveNames.filter { $0 == name || $0.hasSuffix("/" + name) }.sorted())
        }
        let body = ForeignDiary.appendOverflow(overflow, to: text)
        result.entries.append(ForeignEntry(position: file, key: ForeignDiary.contentKey(source: "journey", id: entry.id ?? file, localMinute: "", text: body),
                                           sourceID: nil, date: date, modified: Self.date(milliseconds: entry.date_modified), text: body, tags: tags,
                                           details: details, photos: photos))
        return result
    }
}
