import Foundation

/// The diary's part of a day's page (Journal's `/day/:date`): the day's entries, or the lock's note; a link to write
/// on an empty day; the rating its confirmed moods suggest; and the entries of the same date in earlier years.
enum DiaryDayViews {
    static let diary = Text(en: "Diary", ja: "日記")
    static let diaryLocked = Text(en: "The diary is locked.", ja: "日記はロックされています。")
    static let unlock = Text(en: "Unlock to see this day's entries", ja: "ロックを解除してこの日の日記を見る")
    static let write = Text(en: "Write an entry", ja: "日記を書く")
    /// Where the diary's section stands among the day's (Journal places the sections by this number).
    static let order = 100

    /// `entries` is nil when the diary is locked for this caller (the section then offers to unlock it).
    static func part(entries: [DiaryEntry]?, day: DayQuery) -> DayPart {
        let l = day.language
        var part = DayPart()
        part.recordLinks = [el("a", .href(DiaryPaths.new), .role("button")) { write(l) }]
        guard let entries else {
            part.sections = [DaySection(order: order, el("section", .id("day-diary")) {
                el("h2") { diary(l) }
                el("p") { diaryLocked(l) + " "; el("a", .href(DiaryPaths.unlock(next: day.dayPath(day.key)))) { unlock(l) } }
            })]
            return part
        }
        part.fields = ["diary": entries.map(DayEntryResponse.init)]
        part.recorded = !entries.isEmpty
        part.suggestedRating = DayRating.fromMoods(entries.compactMap(\.confirmedMood))
        guard !entries.isEmpty else { return part }
        let time = day.timeStyle
        part.sections = [DaySection(order: order, el("section", .id("day-diary")) {
            el("h2") { diary(l) }
            for entry in entries {
                el("article", .class("card"), .data("entry-id", entry.id)) {
                    el("p") {
                        el("a", .href(DiaryPaths.entry(entry.id))) { entry.date.formatted(time) }
                        if let mood = entry.confirmedMood { " · \(mood.emoji) \(mood.label(l))" }
                    }
                    el("p", .class("entry-text")) { entry.text }
                }
            }
        })]
        return part
    }

    /// The entries of earlier years (oldest first within a year), each year's text as its own line.
    static func memories(_ entries: [DiaryEntry], day: DayQuery) -> DayMemories {
        var byDay: [DayKey: [DiaryEntry]] = [:]
        for entry in entries {
            let key = DayKey(entry.date, timeZone: day.timeZone)
            if key.month == day.key.month, key.day == day.key.day, key.year < day.key.year { byDay[key, default: []].append(entry) }
        }
        return DayMemories(byDay: byDay.mapValues { entries in
            let sorted = entries.sorted { $0.date < $1.date }
            return DayMemories.Year(nodes: sorted.map { entry in el("p", .class("entry-text")) { entry.text } },
                                    fields: ["diary": sorted.map(DayEntryResponse.init)])
        }, empty: ["diary": [DayEntryResponse]()])
    }
}

/// An entry in the day's API answer.
struct DayEntryResponse: Codable, Sendable {
    let id: String
    let date: Date
    let text: String
    let tags: [String]
    let confirmedMood: String?

    init(_ entry: DiaryEntry) {
        id = entry.id
        date = entry.date
        text = entry.text
        tags = entry.tags
        confirmedMood = entry.confirmedMood?.rawValue
    }
}
