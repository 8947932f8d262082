import Foundation
import SwiftCSV

/// Daylio's CSV export (`full_date,date,weekday,time,mood,activities,note_title,note`, later with
/// `scales`; older ones `year,date,…`) and its `.daylio` backup (a ZIP holding `backup.daylio`, base64
/// of JSON, and the photos under `assets/`), read into `ForeignEntry`s.
///
/// Daylio's five mood groups become the day rating (rad → great … awful → awful). A mood maps to
/// the entry's confirmed mood only where one means one thing: rad → happy, meh → calm, and custom
/// moods named like one of the diary's moods. Custom mood names and activities are kept as tags.
public enum DaylioFormat {
    /// Daylio's default mood names, in English and Japanese, by group (1 = rad … 5 = awful).
    static let defaultGroups: [String: Int] = [
        "rad": 1, "good": 2, "meh": 3, "bad": 4, "awful": 5,
        "最高": 1, "良い": 2, "いい": 2, "普通": 3, "ふつう": 3, "悪い": 4, "最悪": 5,
    ]

    public static func rating(group: Int) -> DayRating? {
        DayRating(rawValue: 6 - group)
    }

    /// The diary's mood a Daylio mood stands for, only where there is exactly one.
    static func mood(name: String, group: Int?) -> Mood? {
        let lowered = name.lowercased()
        if let mood = Mood.allCases.first(where: { $0.rawValue == lowered || $0.label.en.lowercased() == lowered || $0.label.ja == name }) { return mood }
        switch lowered {
        case "happy", "rad": return .happiness
        case "calm", "meh": return .neutral
        case "sad": return .sadness
        default: return nil
        }
    }

    /// One rating per day from the entries Daylio wrote that day: their mean on the five-point scale,
    /// rounded half up (Daylio's own day average is the mean of that day's moods).
    public static func dayRatings(_ entries: [ForeignEntry]) -> [DayKey: DayRating] {
        var sums: [DayKey: (total: Int, count: Int)] = [:]
        for entry in entries {
            guard let rating = entry.dayRating, let day = entry.day.flatMap(DayKey.init) else { continue }
            let old = sums[day] ?? (0, 0)
            sums[day] = (old.total + rating.rawValue, old.count + 1)
        }
        // total/count + 1/2, rounded down: (2 * total + count) / (2 * count), in integers.
        return sums.compactMapValues { DayRating(rawValue: (2 * $0.total + $0.count) / (2 * $0.count)) }
    }

    /// Reads the CSV export. Rows are read as spreadsheets number them (the header is row 1); times are
    /// in the person's `timeZone`, since Daylio writes local times without a zone.
    public static func readCSV(_ text: String, timeZone: TimeZone) -> ForeignRead {
        var result = ForeignRead(format: .daylioCSV)
        final class Rows { var all: [[String]] = [] }
        let rows = Rows()
        var failure: Int?
        do {
            let csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false, rowLimit: 0)
            try csv.enumerateAsArray(startAt: 0, rowLimit: nil) { rows.all.append($0) }
        } catch {
            failure = rows.all.count + 1
        }
        guard let header = rows.all.first?.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: " \r\u{FEFF}")).lowercased() }) else { return result }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        let fullDate = column("full_date"), year = column("year"), date = column("date"), time = column("time"), mood = column("mood")
        let activities = column("activities"), title = column("note_title"), note = column("note"), scales = column("scales")
        for (index, raw) in rows.all.enumerated().dropFirst() {
            let row = raw.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
            let position = "row \(index + 1)"
            func field(_ i: Int?) -> String { i.flatMap { $0 < row.count ? row[$0] : nil } ?? "" }
            if row.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            guard let day = localDay(full: field(fullDate), year: field(year), date: field(date)),
                  let clock = clockTime(field(time)),
                  let moment = moment(day: day, hour: clock.hour, minute: clock.minute, timeZone: timeZone) else {
                result.skipped.append(.init(at: position, code: "unreadable", reason: Text(en: "date or time that cannot be read (\(field(fullDate)) \(field(time)))",
                                                                                      ja: "読めない日付または時刻(\(field(fullDate)) \(field(time)))")))
                continue
            }
            let moodName = field(mood).trimmingCharacters(in: .whitespaces)
            let group = defaultGroups[moodName.lowercased()]
            let acts = field(activities).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            result.entries.append(entry(position: position, day: day, clock: clock, moment: moment, moodName: moodName, group: group,
                                        custom: group == nil, activities: acts, title: field(title), note: field(note), scales: field(scales)))
        }
        if let failure {
            result.skipped.append(.init(at: "row \(failure)", code: "invalid", reason: Text(en: "a quote is out of place; this row and the rest of the file could not be read",
                                                                                         ja: "引用符の位置が正しくないため、この行以降を読めませんでした")))
        }
        return result
    }

    /// One entry, shared by the CSV and the backup so that the same entry read from either gives the same key.
    static func entry(position: String, day: DayKey, clock: (hour: Int, minute: Int), moment: Date, moodName: String, group: Int?, custom: Bool,
                      activities: [String], title: String, note: String, scales: String = "") -> ForeignEntry {
        let minute = "\(day) " + String(format: "%02d:%02d", clock.hour, clock.minute)
        let plain = ForeignDiary.plainText(fromHTML: note)
        var parts: [String] = []
        let heading = ForeignDiary.plainText(fromHTML: title).trimmingCharacters(in: .whitespacesAndNewlines)
        if !heading.isEmpty { parts.append(heading) }
        if !plain.isEmpty { parts.append(plain) }
        let trimmedScales = scales.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmedScales.isEmpty { parts.append(trimmedScales) }
        // Daylio entries are often a mood and activities only; the diary needs text, so they are written out.
        if parts.isEmpty { parts.append(([moodName] + activities).filter { !$0.isEmpty }.joined(separator: " · ")) }
        var rawTags = activities
        if custom, !moodName.isEmpty { rawTags.insert(moodName, at: 0) }
        let (tags, overflow) = ForeignDiary.fitTags(rawTags)
        let text = ForeignDiary.appendOverflow(overflow, to: parts.joined(separator: "\n\n"))
        return ForeignEntry(position: position, key: ForeignDiary.contentKey(source: "daylio", id: nil, localMinute: minute, mood: moodName, text: plain),
                            sourceID: nil, date: moment, modified: nil, text: text, tags: tags,
                            details: ForeignDetails(source: "daylio"), dayRating: group.flatMap(rating(group:)), day: day.description,
                            mood: mood(name: moodName, group: group))
    }

    static let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]

    /// `2020-05-30`, or the older `year` + `18 May`.
    static func localDay(full: String, year: String, date: String) -> DayKey? {
        if let key = DayKey(full.trimmingCharacters(in: .whitespaces)) { return key }
        let parts = date.split(separator: " ")
        guard let y = Int(year.trimmingCharacters(in: .whitespaces)), parts.count == 2, let d = Int(parts[0]),
              let m = months.firstIndex(where: { $0.hasPrefix(parts[1].lowercased()) && parts[1].count >= 3 }) else { return nil }
        return DayKey(String(format: "%04d-%02d-%02d", y, m + 1, d))
    }

    /// `6:50 pm`, `12:19 am`, `14:58`.
    static func clockTime(_ raw: String) -> (hour: Int, minute: Int)? {
        var text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        var meridiem: String?
        for suffix in ["am", "pm", "a.m.", "p.m."] where text.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            text = String(text.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...59).contains(m) else { return nil }
        switch meridiem {
        case "a": guard (1...12).contains(h) else { return nil }; return (h == 12 ? 0 : h, m)
        case "p": guard (1...12).contains(h) else { return nil }; return (h == 12 ? 12 : h + 12, m)
        default: guard (0...23).contains(h) else { return nil }; return (h, m)
        }
    }

    static func moment(day: DayKey, hour: Int, minute: Int, timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute))
    }

    // MARK: The .daylio backup

    struct Backup: Decodable {
        let customMoods: [CustomMood]?
        let tags: [Tag]?
        let dayEntries: [DayOneFormat.Lenient<DayEntry>]
        let assets: [Asset]?
    }

    struct CustomMood: Decodable {
        let id: Int
        let custom_name: String?
        let mood_group_id: Int?
        let predefined_name_id: Int?
    }

    struct Tag: Decodable {
        let id: Int
        let name: String?
    }

    struct DayEntry: Decodable {
        let id: Int?
        let minute: Int
        let hour: Int
        let day: Int
        let month: Int
        let year: Int
        let mood: Int
        let note: String?
        let note_title: String?
        let tags: [Int]?
        let assets: [Int]?
    }

    struct Asset: Decodable {
        let id: Int
        let checksum: String?
        let type: Int?
    }

    /// Reads `backup.daylio` (base64 of JSON; months counted from 0). `archiveNames` find each photo's file,
    /// which Daylio names by its checksum under `assets/`.
    public static func readBackup(_ encoded: Data, archiveNames: Set<String>, timeZone: TimeZone) throws(DiaryError) -> ForeignRead {
        let compact = Data(encoded.filter { !($0 == 0x0A || $0 == 0x0D || $0 == 0x20) })
        guard let json = Data(base64Encoded: compact) ?? (encoded.first == UInt8(ascii: "{") ? encoded : nil) else {
            throw .importInvalid(Text(en: "backup.daylio is not base64", ja: "backup.daylio が base64 ではありません"))
        }
        let backup: Backup
        do {
            backup = try JSONDecoder().decode(Backup.self, from: json)
        } catch {
            let detail = DiaryTransfer.describe(error)
            throw .importInvalid(Text(en: "backup.daylio is not a Daylio backup (\(detail))", ja: "backup.daylio は Daylio のバックアップではありません(\(detail))"))
        }
        var result = ForeignRead(format: .daylioBackup)
        let moods = Dictionary((backup.customMoods ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let tags = Dictionary((backup.tags ?? []).map { ($0.id, $0.name ?? "") }, uniquingKeysWith: { a, _ in a })
        let assets = Dictionary((backup.assets ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let defaultNames = ["rad", "good", "meh", "bad", "awful"]
        for (index, item) in backup.dayEntries.enumerated() {
            var position = "backup.daylio entry \(index + 1)"
            guard let entry = item.value else {
                result.skipped.append(.init(at: position, code: "unreadable", reason: Text(en: "unreadable (\(item.error ?? "?"))", ja: "読めません(\(item.error ?? "?"))")))
                continue
            }
            if let id = entry.id { position += " (id \(id))" }
            // Months count from 0; checked before the + 1 so no value in the file can overflow it.
            guard (0...11).contains(entry.month), let day = DayKey(String(format: "%04d-%02d-%02d", entry.year, entry.month + 1, entry.day)),
                  (0...23).contains(entry.hour), (0...59).contains(entry.minute),
                  let moment = moment(day: day, hour: entry.hour, minute: entry.minute, timeZone: timeZone) else {
                result.skipped.append(.init(at: position, code: "unreadable", reason: Text(en: "date that cannot be read", ja: "読めない日付")))
                continue
            }
            let mood = moods[entry.mood]
            let group: Int? = if let g = mood?.mood_group_id, (1...5).contains(g) { g } else if mood == nil, (1...5).contains(entry.mood) { entry.mood } else { nil }
            let custom = mood?.custom_name.flatMap { $0.isEmpty ? nil : $0 }
            let name = custom ?? group.map { defaultNames[$0 - 1] } ?? ""
            var foreign = Self.entry(position: position, day: day, clock: (entry.hour, entry.minute), moment: moment, moodName: name, group: group,
                                custom: custom != nil, activities: (entry.tags ?? []).compactMap { tags[$0] }, title: entry.note_title ?? "", note: entry.note ?? "")
            foreign.photos = (entry.assets ?? []).compactMap { id in
                guard let checksum = assets[id]?.checksum, !checksum.isEmpty else { return nil }
                let files = archiveNames.filter { $0.hasPrefix("assets/") && ($0.hasSuffix("/" + checksum) || ($0 as NSString).lastPathComponent.hasPrefix(checksum + ".")) }.sorted()
                return ForeignPhoto(identifier: checksum, candidates: files)
            }
            result.entries.append(foreign)
        }
        return result
    }
}

// MARK: Writing (moods and day ratings as Daylio's CSV)

extension DaylioFormat {
    public static let header = "full_date,date,weekday,time,mood,activities,note_title,note"

    /// One row per entry, newest first as Daylio writes them. `mood` is the day's rating in Daylio's
    /// words (rad … awful); a day without one gives the entry's confirmed mood as a custom mood name.
    public static func writeCSV(_ entries: [DiaryEntry], ratings: [DayKey: DayRating], timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let names = ["awful", "bad", "meh", "good", "rad"]
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        var lines = [header]
        for entry in entries.sorted(by: { $0.date > $1.date }) {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: entry.date)
            guard let year = c.year, let month = c.month, let day = c.day, let hour = c.hour, let minute = c.minute, let weekday = c.weekday,
                  (1...12).contains(month), (1...7).contains(weekday), let key = DayKey(String(format: "%04d-%02d-%02d", year, month, day)) else { continue }
            let mood = ratings[key].map { names[$0.rawValue - 1] } ?? entry.confirmedMood?.label.en ?? ""
            let clock = String(format: "%d:%02d %@", hour % 12 == 0 ? 12 : hour % 12, minute, hour < 12 ? "am" : "pm")
            let fields = [key.description, "\(day) \(months[month - 1].capitalized)", weekdays[weekday - 1], clock, mood,
                          entry.tags.joined(separator: " | "), "", entry.text]
            lines.append(fields.map(CSVField.escape).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
