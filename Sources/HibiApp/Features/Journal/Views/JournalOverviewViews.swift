import Foundation

enum TimelineStrings {
    static let title = Text(en: "Timeline", ja: "タイムライン")
    static let filter = Text(en: "Filter", ja: "絞り込み")
    static let domain = Text(en: "Kind", ja: "種類")
    static let anyDomain = Text(en: "Everything", ja: "すべて")
    static let tag = Text(en: "Diary tag", ja: "日記のタグ")
    static let label = Text(en: "Visit label", ja: "訪問のラベル")
    static let mood = Text(en: "Day rating", ja: "一日の評価")
    static let anyMood = Text(en: "Any", ja: "すべて")
    static let apply = Text(en: "Apply", ja: "適用")
    static let loadMore = Text(en: "Load more", ja: "さらに読み込む")
    static let end = Text(en: "That is everything.", ja: "これで全部です。")
    static let empty = Text(en: "No days to show yet. Write an entry, add a health record or check in, and the days appear here.",
                            ja: "まだ表示する日がありません。日記を書く、健康記録を追加する、チェックインすると、ここに日が並びます。")
    static func entries(_ l: Language, _ n: Int) -> String { l == .ja ? "日記\(n)件" : (n == 1 ? "1 entry" : "\(n) entries") }
    static func visits(_ l: Language, _ n: Int) -> String { l == .ja ? "訪問\(n)件" : (n == 1 ? "1 visit" : "\(n) visits") }
    static func videos(_ l: Language, _ n: Int) -> String { l == .ja ? "動画\(n)本" : (n == 1 ? "1 video" : "\(n) videos") }
    static func steps(_ l: Language, _ n: Double) -> String {
        let text = Int(saturating: n.rounded()).formatted(.number.locale(Locale(identifier: l == .ja ? "ja_JP" : "en_US")))
        return l == .ja ? "\(text)歩" : "\(text) steps"
    }
    static func sleep(_ l: Language, _ hours: Double) -> String {
        let text = String(format: "%.1f", hours)
        return l == .ja ? "睡眠\(text)時間" : "\(text) h sleep"
    }
    static func workouts(_ l: Language, _ n: Int) -> String { l == .ja ? "ワークアウト\(n)回" : (n == 1 ? "1 workout" : "\(n) workouts") }
    static func records(_ l: Language, _ n: Int) -> String { l == .ja ? "健康記録\(n)件" : (n == 1 ? "1 health record" : "\(n) health records") }
}

extension JournalViews {
    /// The month around the shown day: each day coloured by its rating (chosen, or from the moods), with a dot per
    /// domain that holds something. Colour is never the only signal: each day's label names its rating and domains.
    static func calendar(_ month: MonthCalendar, selected: DayKey, today: DayKey?, language l: Language) -> Node {
        let S = JournalStrings.self
        let previous = month.first.adding(days: -1, in: .gmt)
        let next = month.last.adding(days: 1, in: .gmt)
        let monthTitle: String = {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: l == .ja ? "ja_JP" : "en_US")
            formatter.timeZone = .gmt
            formatter.setLocalizedDateFormatFromTemplate("yMMMM")
            return formatter.string(from: month.first.interval(in: .gmt).start.addingTimeInterval(12 * 3600))
        }()
        return el("section", .id("day-calendar"), .class("card"), .aria("labelledby", "calendar-title")) {
            el("header", .class("calendar-head")) {
                el("a", .href(JournalPaths.day(MonthCalendar.frame(year: previous.year, month: previous.month).first)), .id("previous-month"),
                   .aria("label", S.previousMonth(l))) { "←" }
                el("h2", .id("calendar-title")) { monthTitle }
                el("a", .href(JournalPaths.day(next)), .id("next-month"), .aria("label", S.nextMonth(l))) { "→" }
            }
            el("ol", .class("month-grid")) {
                for name in S.weekdays(l) { el("li", .class("weekday"), .aria("hidden", "true")) { name } }
                for _ in 0..<month.leadingBlanks { el("li", .class("blank"), .aria("hidden", "true")) { "" } }
                let title = dayTitles(language: l)
                for key in month.allDays {
                    let summary = month.days[key]
                    let rating = summary?.rating
                    let domains = summary?.domains ?? []
                    let label = title(key) + " · " + (rating.map { $0.label(l) } ?? S.noRating(l))
                        + domains.sorted { $0.rawValue < $1.rawValue }.map { " · " + domainTitle($0)(l) }.joined()
                    el("li", .class("day rating-\(rating.map { String($0.rawValue) } ?? "none")" + (key == today ? " today" : ""))) {
                        el("a", [.href(JournalPaths.day(key)), .aria("label", label), .data("day", key.description)]
                           + (key == selected ? [.aria("current", "date")] : [])) {
                            el("span", .class("day-number")) { String(key.day) }
                            el("span", .class("dots"), .aria("hidden", "true")) {
                                for domain in JournalDomain.allCases where domains.contains(domain) {
                                    el("span", .class("dot dot-\(domain.rawValue)")) { "" }
                                }
                            }
                        }
                    }
                }
            }
            el("p", .class("calendar-legend muted small")) {
                for rating in DayRating.allCases.reversed() {
                    el("span", .class("legend-dot")) { el("span", .class("swatch rating-\(rating.rawValue)"), .aria("hidden", "true")) { "" }; rating.label(l) }
                    " "
                }
                for domain in JournalDomain.allCases {
                    el("span", .class("legend-dot")) { el("span", .class("dot dot-\(domain.rawValue)"), .aria("hidden", "true")) { "" }; domainTitle(domain)(l) }
                    " "
                }
            }
        }
    }

    static func domainTitle(_ domain: JournalDomain) -> Text {
        switch domain {
        case .diary: JournalStrings.diary
        case .health: JournalStrings.health
        case .visits: JournalStrings.visits
        case .videos: Text(en: "Videos", ja: "動画")
        }
    }

    /// One compact card: the date and rating, then a line per domain.
    static func card(_ day: DaySummary, language l: Language) -> Node {
        let T = TimelineStrings.self
        return el("article", .class("card day-card rating-\(day.rating.map { String($0.rawValue) } ?? "none")"), .data("day", day.key.description)) {
            el("h3") {
                el("a", .href(JournalPaths.day(day.key))) { dayTitle(day.key, language: l) }
                if let rating = day.rating { el("small", .class("muted")) { " · " + rating.label(l) } }
            }
            el("ul", .class("card-lines")) {
                if day.diaryEntries > 0 {
                    el("li", .class("line-diary")) { T.entries(l, day.diaryEntries) + (day.moods.isEmpty ? "" : " " + day.moods.map(\.emoji).joined()) }
                }
                if day.healthRecords > 0 {
                    let parts = [day.steps.map { T.steps(l, $0) }, day.sleepHours.map { T.sleep(l, $0) },
                                 day.workouts > 0 ? T.workouts(l, day.workouts) : nil].compactMap { $0 }
                    el("li", .class("line-health")) { parts.isEmpty ? T.records(l, day.healthRecords) : parts.joined(separator: " · ") }
                }
                if day.visits > 0 {
                    el("li", .class("line-visits")) { T.visits(l, day.visits) + ": " + day.places.prefix(4).joined(separator: ", ") }
                }
                if day.videos > 0 { el("li", .class("line-videos")) { T.videos(l, day.videos) } }
            }
        }
    }

    static func timeline(context: HibiRequestContext, page: TimelinePaging.Page, filter: TimelineFilter, diaryOpen: Bool) -> Node {
        let l = context.language
        let T = TimelineStrings.self
        return Layout.page(title: T.title(l), context: context) {
            el("h1") { T.title(l) }
            // Folded under its summary (it filled a phone's first screen); open while a filter is in use,
            // and on a wide screen (app.js opens details[data-open-wide]).
            let filtered = filter.domain != nil || filter.tag != nil || filter.label != nil || filter.rating != nil
            el("details", [.class("timeline-filter-fold"), .id("timeline-filter-fold"), .data("open-wide", "true")] + (filtered ? [.init("open", nil)] : [])) {
                el("summary") { T.filter(l) }
            el("form", .method("get"), .action(JournalPaths.timeline), .class("timeline-filter"), .id("timeline-filter")) {
                el("fieldset", .class("grid")) {
                    el("label") {
                        T.domain(l)
                        el("select", .name("domain")) {
                            el("option", .value("")) { T.anyDomain(l) }
                            for domain in JournalDomain.allCases {
                                el("option", [.value(domain.rawValue)] + (filter.domain == domain ? [.selected] : [])) { domainTitle(domain)(l) }
                            }
                        }
                    }
                    if diaryOpen {
                        el("label") { T.tag(l); input(.type("text"), .name("tag"), .value(filter.tag ?? ""), .init("maxlength", "100")) }
                    }
                    el("label") { T.label(l); input(.type("text"), .name("label"), .value(filter.label ?? ""), .init("maxlength", "100")) }
                    el("label") {
                        T.mood(l)
                        el("select", .name("mood")) {
                            el("option", .value("")) { T.anyMood(l) }
                            for rating in DayRating.allCases.reversed() {
                                el("option", [.value(String(rating.rawValue))] + (filter.rating == rating ? [.selected] : [])) { rating.label(l) }
                            }
                        }
                    }
                }
                el("button", .type("submit"), .class("secondary")) { T.apply(l) }
            }
            }
            if page.days.isEmpty {
                el("p", .id("timeline-empty"), .class("card")) { T.empty(l) }
            }
            el("div", .id("timeline-days"), .class("timeline")) {
                for day in page.days { card(day, language: l) }
            }
            if let next = page.next {
                // Without script the link loads the next page; timeline.js fetches it in place as the reader nears the end.
                el("p", .id("timeline-more-wrap")) {
                    el("a", .href(JournalPaths.timeline + "?" + timelineQuery(filter, before: next)), .id("timeline-more"), .role("button"), .class("secondary"),
                       .data("api", "/api/v1/timeline?" + timelineQuery(filter, before: next))) { T.loadMore(l) }
                }
            } else if !page.days.isEmpty {
                el("p", .class("muted"), .id("timeline-end")) { T.end(l) }
            }
            link(.init("rel", "stylesheet"), .href("/static/journal.css"))
            el("script", .src("/static/timeline.js"), .init("defer", nil)) { "" }
        }
    }

    static func timelineQuery(_ filter: TimelineFilter, before: DayKey) -> String {
        var items = [URLQueryItem(name: "before", value: before.description)]
        if let domain = filter.domain { items.append(.init(name: "domain", value: domain.rawValue)) }
        if let tag = filter.tag { items.append(.init(name: "tag", value: tag)) }
        if let label = filter.label { items.append(.init(name: "label", value: label)) }
        if let rating = filter.rating { items.append(.init(name: "mood", value: String(rating.rawValue))) }
        var components = URLComponents()
        components.queryItems = items
        // `+` and `&` in a tag must survive: encode what URLComponents leaves alone in a query.
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }
}
