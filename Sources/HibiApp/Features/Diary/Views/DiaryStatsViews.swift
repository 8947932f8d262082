import Foundation

enum DiaryStatsViews {
    static func stats(context: HibiRequestContext, user: User, statistics: MoodStatistics, period: AnalyticsPeriod, trend: [DayMood],
                      trendStart: Date, now: Date, onThisDay: [DiaryEntry]) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return Layout.page(title: DiaryStrings.statistics(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: DiaryPaths.stats)
            el("section", .class("stat-tiles"), .id("stat-tiles")) {
                tile(DiaryStrings.total(l), "\(statistics.totalEntries)", id: "stat-total")
                tile(DiaryStrings.mostFrequent(l), statistics.mostFrequentMood.map { "\($0.emoji) \($0.label(l))" } ?? "—", id: "stat-most")
                tile(DiaryStrings.perDay(l), String(format: "%.2f", statistics.averageEntriesPerDay), id: "stat-per-day")
                tile(DiaryStrings.range(l), statistics.dateRange.map { "\(shortDate($0.start, zone, l)) – \(shortDate($0.end, zone, l))" } ?? "—", id: "stat-range")
            }
            el("section", .class("card")) {
                el("h2") { DiaryStrings.distribution(l) }
                distributionChart(statistics, language: l)
            }
            el("section", .class("card"), .id("trend")) {
                el("h2") { DiaryStrings.trend(l) }
                el("nav", .class("segmented")) {
                    for (value, title) in [(AnalyticsPeriod.week, DiaryStrings.week), (.month, DiaryStrings.month), (.year, DiaryStrings.year)] {
                        el("a", [.href(DiaryPaths.stats + "?period=\(value.rawValue)"), .role("button")] + (value == period ? [.aria("current", "true")] : [.class("secondary outline")])) { title(l) }
                    }
                }
                if trend.isEmpty {
                    el("p", .class("muted")) { DiaryStrings.noData(l) }
                } else {
                    trendChart(trend, start: trendStart, end: now, timeZone: zone, language: l)
                }
                el("p", .class("muted small-text")) { DiaryStrings.trendRule(l) }
            }
            el("section", .class("card"), .id("on-this-day")) {
                el("h2") { DiaryStrings.onThisDay(l) }
                if onThisDay.isEmpty {
                    el("p", .class("muted")) { DiaryStrings.onThisDayEmpty(l) }
                } else {
                    el("ol", .class("entry-list")) { for entry in onThisDay { DiaryViews.entryCard(entry, user: user, language: l) } }
                }
            }
        }
    }

    static func tile(_ label: String, _ value: String, id: String) -> Node {
        el("div", .class("tile card"), .id(id)) {
            el("span", .class("tile-label")) { label }
            el("strong", .class("tile-value")) { value }
        }
    }

    /// Horizontal bars drawn as SVG on the server: no script, readable by screen readers through <title>.
    static func distributionChart(_ statistics: MoodStatistics, language l: Language) -> Node {
        let maximum = max(1, Mood.allCases.map { statistics.count($0) }.max() ?? 1)
        let rowHeight = 30
        var svg = #"<svg class="chart" id="distribution-chart" viewBox="0 0 400 \#(Mood.allCases.count * rowHeight)" role="img" aria-label="\#(escapeHTML(DiaryStrings.distribution(l)))">"#
        for (index, mood) in Mood.allCases.enumerated() {
            let count = statistics.count(mood)
            let width = Int(saturating: Double(count) / Double(maximum) * 250)
            let y = index * rowHeight
            svg += #"<g data-mood="\#(mood.rawValue)" data-count="\#(count)"><title>\#(escapeHTML(mood.label(l))): \#(count)</title>"#
            svg += #"<text x="0" y="\#(y + 20)" font-size="14">\#(mood.emoji) \#(escapeHTML(mood.label(l)))</text>"#
            svg += #"<rect x="110" y="\#(y + 6)" width="\#(max(width, count > 0 ? 3 : 0))" height="18" rx="4" fill="\#(mood.color)"/>"#
            svg += #"<text x="\#(116 + width)" y="\#(y + 20)" font-size="13" fill="currentColor">\#(count)</text></g>"#
        }
        svg += "</svg>"
        return .raw(svg)
    }

    /// One coloured cell per day of the period; days without a confirmed mood stay empty.
    static func trendChart(_ days: [DayMood], start: Date, end: Date, timeZone: TimeZone, language l: Language) -> Node {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let total = max(1, MoodAnalytics.calendarDays(from: start, to: end, timeZone: timeZone))
        let byDay = Dictionary(uniqueKeysWithValues: days.map { ($0.day, $0) })
        let columns = total > 62 ? 53 : total
        let rows = total > 62 ? 7 : 1
        let cell = total > 62 ? 12 : max(12, min(40, 600 / total))
        var svg = #"<svg class="chart trend-chart" id="trend-chart" viewBox="0 0 \#(columns * (cell + 2)) \#(rows * (cell + 2) + 16)" role="img" aria-label="\#(escapeHTML(DiaryStrings.trend(l)))">"#
        for offset in 0..<total {
            guard let date = calendar.date(byAdding: .day, value: offset, to: calendar.startOfDay(for: start)) else { continue }
            let key = MoodAnalytics.dayKey(date, timeZone: timeZone)
            let column = rows == 1 ? offset : offset / 7
            let row = rows == 1 ? 0 : offset % 7
            let x = column * (cell + 2), y = row * (cell + 2)
            if let day = byDay[key] {
                svg += #"<rect x="\#(x)" y="\#(y)" width="\#(cell)" height="\#(cell)" rx="2" fill="\#(day.mood.color)" data-day="\#(key)" data-mood="\#(day.mood.rawValue)"><title>\#(key): \#(escapeHTML(day.mood.label(l))) (\#(day.entries))</title></rect>"#
            } else {
                svg += #"<rect x="\#(x)" y="\#(y)" width="\#(cell)" height="\#(cell)" rx="2" fill="var(--muted-border-color, #e9ecef)" data-day="\#(key)"><title>\#(key)</title></rect>"#
            }
        }
        svg += "</svg>"
        return fragment {
            Node.raw(svg)
            legend(language: l)
        }
    }

    static func legend(language l: Language) -> Node {
        el("ul", .class("mood-legend")) {
            for mood in Mood.allCases {
                el("li") {
                    el("span", .class("swatch"), .init("style", "background: \(mood.color)")) { "" }
                    mood.label(l)
                }
            }
        }
    }

    static func calendar(context: HibiRequestContext, user: User, grid: MoodAnalytics.MonthGrid) -> Node {
        let l = context.language
        let title = l == .ja ? "\(grid.year)年\(grid.month)月" : monthName(grid.month) + " \(grid.year)"
        let previous = grid.month == 1 ? (grid.year - 1, 12) : (grid.year, grid.month - 1)
        let next = grid.month == 12 ? (grid.year + 1, 1) : (grid.year, grid.month + 1)
        return Layout.page(title: DiaryStrings.calendar(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: DiaryPaths.calendar)
            el("section", .class("card calendar")) {
                el("header", .class("calendar-head")) {
                    el("a", .href(DiaryPaths.calendar(year: previous.0, month: previous.1)), .aria("label", DiaryStrings.previous(l))) { "←" }
                    el("h1", .id("calendar-title")) { title }
                    el("a", .href(DiaryPaths.calendar(year: next.0, month: next.1)), .aria("label", DiaryStrings.next(l))) { "→" }
                }
                el("table", .class("month"), .id("month")) {
                    el("thead") { el("tr") { for day in DiaryStrings.weekdays { el("th") { day(l) } } } }
                    el("tbody") {
                        for week in grid.weeks {
                            el("tr") {
                                for day in week {
                                    if let day {
                                        let mood = grid.moods[day]
                                        let date = String(format: "%04d-%02d-%02d", grid.year, grid.month, day)
                                        el("td", [.class(mood == nil ? "day" : "day has-mood"), .data("day", date)]
                                              + (mood.map { [.init("style", "--mood: \($0.mood.color)"), .data("mood", $0.mood.rawValue)] } ?? [])) {
                                            el("a", .href(DiaryPaths.list(from: date, to: date))) {
                                                el("span", .class("day-number")) { String(day) }
                                                if let mood { el("span", .class("day-emoji"), .init("title", mood.mood.label(l))) { mood.mood.emoji } }
                                            }
                                        }
                                    } else {
                                        el("td", .class("blank")) { "" }
                                    }
                                }
                            }
                        }
                    }
                }
                legend(language: l)
            }
        }
    }

    static func monthName(_ month: Int) -> String {
        ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][month - 1]
    }

    static func shortDate(_ date: Date, _ zone: TimeZone, _ l: Language) -> String {
        date.formatted(Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: l == .ja ? "ja_JP" : "en_US"), timeZone: zone))
    }
}
