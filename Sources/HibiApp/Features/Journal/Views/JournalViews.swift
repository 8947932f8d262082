import Foundation

enum JournalStrings {
    static let day = Text(en: "Day", ja: "日")
    static let previousDay = Text(en: "Previous day", ja: "前の日")
    static let nextDay = Text(en: "Next day", ja: "次の日")
    static let pickDay = Text(en: "Go to a day", ja: "日付へ移動")
    static let go = Text(en: "Go", ja: "移動")
    static let diary = Text(en: "Diary", ja: "日記")
    static let health = Text(en: "Health", ja: "健康")
    static let visits = Text(en: "Visits", ja: "訪問")
    static let dayMap = Text(en: "Where the day went", ja: "この日の足あと")
    static let dayMapLabel = Text(en: "Map of the day: visits in order, and workout routes", ja: "この日の地図:訪問の順路とワークアウトのルート")
    static let emptyDay = Text(en: "Nothing recorded on this day.", ja: "この日の記録はありません。")
    static let rating = Text(en: "How was the day?", ja: "どんな一日でしたか?")
    static let fromMoods = Text(en: "Suggested from the moods you confirmed; choose to change it.", ja: "確定した気分からの提案です。選んで変更できます。")
    static let saveRating = Text(en: "Save", ja: "保存")
    static let clearRating = Text(en: "Use the suggestion", ja: "提案に戻す")
    static let onThisDay = Text(en: "On this day", ja: "この日の思い出")
    static func yearsAgo(_ language: Language, _ years: Int) -> String {
        language == .ja ? "\(years)年前" : (years == 1 ? "1 year ago" : "\(years) years ago")
    }
    static let search = CommonStrings.search
    static let timeline = Text(en: "Timeline", ja: "タイムライン")
    static let insights = Text(en: "Insights", ja: "インサイト")
    static let thisWeek = Text(en: "This week", ja: "今週")
    static let thisMonth = Text(en: "This month", ja: "今月")
    static let calendar = Text(en: "Month", ja: "月のカレンダー")
    static let previousMonth = Text(en: "Previous month", ja: "前の月")
    static let nextMonth = Text(en: "Next month", ja: "次の月")
    static let noRating = Text(en: "not rated", ja: "評価なし")
    static func weekdays(_ language: Language) -> [String] {
        language == .ja ? ["月", "火", "水", "木", "金", "土", "日"] : ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    }
    static let searchEverything = CommonStrings.searchEverything
    static let noResults = Text(en: "Nothing found.", ja: "見つかりませんでした。")
    static let searchLockedNote = Text(en: "Diary entries are searched when the diary is unlocked.", ja: "日記はロックを解除すると検索されます。")
    static func domain(_ domain: SearchHit.Domain) -> Text {
        switch domain {
        case .diary: diary
        case .visits: visits
        case .videos: Text(en: "Videos", ja: "動画")
        case .health: health
        }
    }
}

enum JournalViews {
    /// First steps, each ticked off by what the user has done (asked of every feature through `GettingStartedOffer`).
    static func gettingStarted(_ checklist: GettingStarted, language l: Language) -> Node {
        el("section", .class("card getting-started"), .id("getting-started"), .aria("labelledby", "getting-started-title")) {
            el("h2", .id("getting-started-title")) { CommonStrings.gettingStarted(l) }
            el("p", .class("muted"), .id("getting-started-progress")) {
                CommonStrings.gettingStartedProgress(l).replacingOccurrences(of: "%1", with: String(checklist.doneCount))
                    .replacingOccurrences(of: "%2", with: String(checklist.steps.count))
            }
            el("ol", .class("checklist")) {
                for step in checklist.steps {
                    el("li", .class(step.done ? "done" : "todo"), .data("step", step.key)) {
                        el("span", .class("check"), .aria("hidden", "true")) { step.done ? "✓" : "" }
                        el("div") {
                            if step.done {
                                el("s") { step.title(l) }
                                el("span", .class("visually-hidden")) { " (" + CommonStrings.done(l) + ")" }
                            } else {
                                el("a", .href(step.href)) { step.title(l) }
                            }
                            el("small", .class("muted")) { step.help(l) }
                        }
                    }
                }
            }
        }
    }

    /// What `/` adds above the day: the greeting (the page's heading) and, while steps remain, the getting-started checklist.
    struct Home {
        let checklist: GettingStarted?
    }

    /// Where Journal's own sections stand among the features' (`DaySection.order`): the map after Health's workouts,
    /// "on this day" before the videos.
    static let mapOrder = 500, memoriesOrder = 700

    static func day(context: HibiRequestContext, user: User, day: JournalService.Day, month: MonthCalendar? = nil,
                    today: DayKey? = nil, home: Home? = nil) -> Node {
        let l = context.language
        let S = JournalStrings.self
        let title = dayTitle(day.key, language: l)
        return Layout.page(title: home == nil ? title : CommonStrings.today(l), context: context, current: home == nil ? nil : "/") {
            if let home {
                el("hgroup") {
                    el("h1") { CommonStrings.goodMorning(l, user.displayName) }
                    el("p", .id("today-date")) { title }
                }
                if let checklist = home.checklist, !checklist.isComplete { gettingStarted(checklist, language: l) }
            }
            el("nav", .class("day-nav"), .aria("label", S.day(l))) {
                el("a", .href(JournalPaths.day(day.previous)), .id("previous-day"), .init("rel", "prev")) { "← " + S.previousDay(l) }
                el("form", .method("get"), .action(JournalPaths.dayPicker), .class("inline")) {
                    // A wrapping label (not a hidden one pointing at the field): axe did not accept the hidden one for a date field.
                    el("label", .class("day-picker")) {
                        el("span", .class("visually-hidden")) { S.pickDay(l) }
                        input(.type("date"), .name("date"), .id("day-picker"), .value(day.key.description), .init("title", S.pickDay(l)))
                    }
                    el("button", .type("submit"), .class("secondary")) { S.go(l) }
                }
                el("a", .href(JournalPaths.day(day.next)), .id("next-day"), .init("rel", "next")) { S.nextDay(l) + " →" }
            }
            if home == nil { el("h1", .id("day-title")) { title } }
            el("p", .class("journal-links")) {
                el("a", .href(JournalPaths.timeline), .id("open-timeline")) { S.timeline(l) }
                " · "
                el("a", .href(JournalPaths.insights), .id("open-insights")) { S.insights(l) }
                " · "
                el("a", .href(JournalPaths.review("week", ReviewPeriod.week(containing: day.key).slug))) { S.thisWeek(l) }
                " · "
                el("a", .href(JournalPaths.review("month", ReviewPeriod.month(containing: day.key).slug))) { S.thisMonth(l) }
            }
            el("section", .id("day-rating")) {
                el("form", .method("post"), .action(JournalPaths.rating(day.key))) {
                    Layout.csrfField(context)
                    el("fieldset", .class("rating-choices")) {
                        el("legend") { S.rating(l) }
                        for choice in DayRating.allCases {
                            el("label") {
                                Node.void("input", [.type("radio"), .name("rating"), .value(String(choice.rawValue)), .id("rating-\(choice.rawValue)")]
                                      + (day.rating?.value == choice ? [.init("checked", nil)] : []))
                                choice.label(l)
                            }
                        }
                    }
                    if day.rating?.source == .moods { el("p", .class("muted"), .id("rating-from-moods")) { S.fromMoods(l) } }
                    el("button", .type("submit"), .class("secondary")) { S.saveRating(l) }
                }
                if day.rating?.source == .chosen {
                    el("form", .method("post"), .action(JournalPaths.rating(day.key)), .class("inline")) {
                        Layout.csrfField(context)
                        input(.type("hidden"), .name("rating"), .value(""))
                        el("button", .type("submit"), .class("linklike small")) { S.clearRating(l) }
                    }
                }
            }
            if day.isEmpty && day.diaryOpen {
                el("section", .id("empty-day"), .class("card")) {
                    el("p") { S.emptyDay(l) }
                    el("p") {
                        for (index, action) in day.parts.flatMap(\.recordLinks).enumerated() {
                            if index > 0 { " " }
                            action
                        }
                    }
                }
            }
            // Every feature's sections and Journal's own, by their order (a feature's own order among them kept).
            let sections = day.parts.flatMap(\.sections) + [dayMap(day, language: l), memories(day, language: l)].compactMap { $0 }
            for section in sections.enumerated().sorted(by: { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }) {
                section.element.node
            }
            if let month { calendar(month, selected: day.key, today: today, language: l) }
            link(.init("rel", "stylesheet"), .href("/static/journal.css"))
        }
    }

    /// The day's visits in order and its routes, drawn from what the features offer; nil when there is nothing to draw.
    static func dayMap(_ day: JournalService.Day, language l: Language) -> DaySection? {
        guard let map = DayMap.svg(places: day.parts.flatMap(\.places),
                                   tracks: day.parts.flatMap(\.tracks).map { $0.map { (lat: $0.latitude, lon: $0.longitude) } },
                                   label: JournalStrings.dayMapLabel(l)) else { return nil }
        return DaySection(order: mapOrder, el("section", .id("day-map")) {
            el("h2") { JournalStrings.dayMap(l) }
            // Built by DayMap from numbers, with every name escaped: markup Hibi wrote, like the health charts.
            Node.raw(map)
        })
    }

    static func memories(_ day: JournalService.Day, language l: Language) -> DaySection? {
        guard !day.onThisDay.isEmpty else { return nil }
        return DaySection(order: memoriesOrder, el("section", .id("on-this-day")) {
            el("h2") { JournalStrings.onThisDay(l) }
            for memory in day.onThisDay {
                el("article", .class("card")) {
                    el("h3") { el("a", .href(JournalPaths.day(memory.key))) { JournalStrings.yearsAgo(l, memory.yearsAgo) + " · " + dayTitle(memory.key, language: l) } }
                    memory.nodes
                }
            }
        })
    }

    static func search(context: HibiRequestContext, query: String, hits: [SearchHit], diaryOpen: Bool) -> Node {
        let l = context.language
        let S = JournalStrings.self
        return Layout.page(title: S.search(l), context: context) {
            el("h1") { S.search(l) }
            el("form", .method("get"), .action(JournalPaths.search), .role("search")) {
                el("label", .for("search-query")) { S.searchEverything(l) }
                input(.type("search"), .name("q"), .id("search-query"), .value(query), .init("maxlength", "200"))
                el("button", .type("submit")) { S.search(l) }
            }
            if !diaryOpen { el("p", .class("muted"), .id("search-diary-locked")) { S.searchLockedNote(l) } }
            if !query.isEmpty {
                if hits.isEmpty {
                    el("p", .id("no-results")) { S.noResults(l) }
                }
                for (domain, group) in SearchGrouping.group(hits) {
                    el("section", .id("results-\(domain.rawValue)")) {
                        el("h2") { S.domain(domain)(l) }
                        el("ul") {
                            for hit in group {
                                el("li") {
                                    el("a", .href(hit.path)) { hit.title }
                                    if !hit.snippet.isEmpty { el("br"); el("small") { hit.snippet } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func dayTitle(_ key: DayKey, language: Language) -> String {
        dayTitles(language: language)(key)
    }

    /// One formatter for many titles: making a DateFormatter costs far more than using it, and the month calendar
    /// names every day of the month.
    static func dayTitles(language: Language) -> (DayKey) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .ja ? "ja_JP" : "en_US")
        formatter.timeZone = .gmt
        formatter.setLocalizedDateFormatFromTemplate("yMMMMdEEEE")
        return { key in formatter.string(from: key.interval(in: .gmt).start.addingTimeInterval(12 * 3600)) }
    }

    static func time(_ language: Language, _ zone: TimeZone) -> Date.FormatStyle {
        var style = Date.FormatStyle(date: .omitted, time: .shortened)
        style.timeZone = zone
        style.locale = Locale(identifier: language == .ja ? "ja_JP" : "en_US")
        return style
    }
}
