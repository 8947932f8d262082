import Foundation

/// What another journal app's export says about one entry, read by a pure format reader
/// (`DayOneFormat`, `DaylioFormat`) and turned into a diary entry by `DiaryForeignImport`.
public struct ForeignEntry: Sendable, Equatable {
    /// Where the entry is in the file, for the report: "Journal.json entry 3 (F4CF…)", "line 12".
    public var position: String
    /// What makes this entry this entry, whatever file it came in; see `ForeignDiary.contentKey`.
    public var key: String
    /// Day One's own uuid, when the export has one (a Hibi export carries the entry's id there).
    public var sourceID: String?
    public var date: Date
    public var modified: Date?
    public var text: String
    public var tags: [String]
    public var details = ForeignDetails()
    public var photos: [ForeignPhoto] = []
    /// Daylio's five groups on the day rating's scale.
    public var dayRating: DayRating?
    /// The day the rating belongs to, as the app wrote it (the entry's own local date).
    public var day: String?
    public var mood: Mood?
}

/// What the diary keeps of an imported entry beyond text, tags and photos (sealed, `diary_entry_details`).
public struct ForeignDetails: Codable, Sendable, Equatable {
    public var source: String?
    public var timeZone: String?
    public var starred: Bool?
    public var journal: String?
    public var location: ForeignLocation?
    public var weather: ForeignWeather?
    /// The visit made from `location`, in the signed visit log.
    public var visitID: String?

    public init(source: String? = nil, timeZone: String? = nil, starred: Bool? = nil, journal: String? = nil,
                location: ForeignLocation? = nil, weather: ForeignWeather? = nil, visitID: String? = nil) {
        self.source = source
        self.timeZone = timeZone
        self.starred = starred
        self.journal = journal
        self.location = location
        self.weather = weather
        self.visitID = visitID
    }

    public var isEmpty: Bool { self == ForeignDetails() }
}

public struct ForeignLocation: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var placeName: String?
    public var locality: String?
    public var region: String?
    public var country: String?

    /// The place as one line: "Guthridge Crescent, Wanniassa, Australia".
    public var label: String {
        let parts = [placeName, locality, country].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return parts.isEmpty ? String(format: "%.4f, %.4f", latitude, longitude) : parts.joined(separator: ", ")
    }
}

public struct ForeignWeather: Codable, Sendable, Equatable {
    public var conditions: String?
    public var code: String?
    public var temperatureCelsius: Double?
    public var relativeHumidity: Double?
    public var windSpeedKPH: Double?
    public var pressureMB: Double?

    public var isEmpty: Bool { self == ForeignWeather() }

    /// "Mostly Sunny, 26 °C, 54 % humidity".
    public var summary: String {
        var parts: [String] = []
        if let conditions, !conditions.isEmpty { parts.append(conditions) }
        if let temperatureCelsius { parts.append(String(format: "%.0f °C", temperatureCelsius)) }
        if let relativeHumidity { parts.append(String(format: "%.0f %%", relativeHumidity)) }
        if let windSpeedKPH { parts.append(String(format: "%.0f km/h", windSpeedKPH)) }
        return parts.joined(separator: ", ")
    }
}

/// A photo an entry names: the file in the archive that holds it.
public struct ForeignPhoto: Sendable, Equatable {
    /// The app's identifier (Day One's `identifier`, referenced from the text as `dayone-moment://ID`).
    public var identifier: String
    /// Paths the file may have in the archive, most likely first.
    public var candidates: [String]
}

/// One element of a file that was not imported, and why.
public struct ForeignSkip: Codable, Sendable, Equatable {
    public var at: String
    /// Stable: `unreadable`, `invalid`, `damaged`, `missing_file`, `unsupported`, `too_many`, `too_large`, `too_many_pixels`.
    public var code: String
    public var en: String
    public var ja: String

    public init(at: String, code: String, reason: Text) {
        self.at = at
        self.code = code
        en = reason.en
        ja = reason.ja
    }

    public var reason: Text { Text(en: en, ja: ja) }
}

/// What a reader made of a file: the entries it could read and the ones it could not.
public struct ForeignRead: Sendable {
    public var format: ForeignDiary.Format
    public var entries: [ForeignEntry] = []
    public var skipped: [ForeignSkip] = []
}

public enum ForeignDiary {
    public enum Format: String, Codable, Sendable {
        case hibi, dayOne = "dayone", daylioCSV = "daylio-csv", daylioBackup = "daylio-backup", journey

        public var label: String {
            switch self {
            case .hibi: "Hibi"
            case .dayOne: "Day One"
            case .daylioCSV: "Daylio (CSV)"
            case .daylioBackup: "Daylio (.daylio)"
            case .journey: "Journey"
            }
        }
    }

    /// Recognises a file by its content (never its name): `names` are an archive's members, or nil
    /// for a single file whose first bytes are `head`; for an archive, `head` is the start of its first
    /// JSON file at the top (Day One's journals and Journey's entries both lie there).
    public static func detect(head: Data, names: [String]?) -> Format {
        if let names {
            if names.contains("diary.json") { return .hibi }
            if names.contains("backup.daylio") { return .daylioBackup }
            let json = names.filter { !$0.contains("/") && $0.lowercased().hasSuffix(".json") }
            if !json.isEmpty { return String(decoding: head.prefix(4096), as: UTF8.self).contains("\"date_journal\"") ? .journey : .dayOne }
            return .hibi
        }
        var text = String(decoding: head.prefix(4096), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            // Day One's export starts with its metadata or its entries; Hibi's carries its format name.
            if trimmed.contains("\"hibi-diary\"") { return .hibi }
            if trimmed.contains("\"entries\"") && (trimmed.contains("\"creationDate\"") || trimmed.contains("\"metadata\"")) { return .dayOne }
            return .hibi
        }
        let firstLine = trimmed.prefix { $0 != "\n" && $0 != "\r" }.lowercased()
        let columns = firstLine.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if columns.contains("mood") && columns.contains("time") && (columns.contains("full_date") || columns.contains("date")) { return .daylioCSV }
        return .hibi
    }

    /// The key that makes a re-import add nothing: the same entry read again (from the same file, or
    /// a later export of the same journal) gives the same key. Day One entries carry a uuid; Daylio's
    /// have no id in the CSV, so theirs is the local minute, the mood and the note.
    public static func contentKey(source: String, id: String?, localMinute: String, mood: String = "", text: String) -> String {
        if let id, !id.isEmpty { return "\(source):id:\(id.uppercased())" }
        return "\(source):\(localMinute)\n\(mood.lowercased())\n\(text)"
    }

    /// Tags as the diary keeps them (at most `DiaryRules.maxTags`, 32 characters, no comma or '#'):
    /// the rest are returned so the caller can keep them in the text rather than drop them.
    public static func fitTags(_ raw: [String]) -> (tags: [String], overflow: [String]) {
        var tags: [String] = [], overflow: [String] = []
        var seen = Set<String>()
        for tag in raw {
            let cleaned = tag.replacingOccurrences(of: ",", with: " ").replacingOccurrences(of: "#", with: "")
                .unicodeScalars.filter { $0.properties.generalCategory != .control }.reduce(into: "") { $0.unicodeScalars.append($1) }
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !cleaned.isEmpty, seen.insert(cleaned.lowercased()).inserted else { continue }
            if cleaned.count <= 32, tags.count < DiaryRules.maxTags { tags.append(cleaned) } else { overflow.append(cleaned) }
        }
        return (tags, overflow)
    }

    /// Tags the diary could not hold, kept at the end of the text.
    public static func appendOverflow(_ overflow: [String], to text: String) -> String {
        guard !overflow.isEmpty else { return text }
        let line = "#" + overflow.joined(separator: " #")
        return text.isEmpty ? line : text + "\n\n" + line
    }

    /// Daylio's notes are HTML (`<b>`, `<br>`, `<li>`…); the diary keeps plain text.
    public static func plainText(fromHTML html: String) -> String {
        guard html.contains("<") || html.contains("&") else { return html }
        var text = html
        for (pattern, replacement) in [("<br\\s*/?>", "\n"), ("</p>", "\n"), ("</div>", "\n"), ("<li[^>]*>", "• "), ("</li>", "\n")] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: [.regularExpression, .caseInsensitive])
        }
        text = text.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
        for (entity, character) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.replacingOccurrences(of: "\n{3,}", with: "\n\n", options: .regularExpression).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
