import Foundation

enum ReviewStrings {
    static let week = Text(en: "Week in review", ja: "週のふりかえり")
    static let month = Text(en: "Month in review", ja: "月のふりかえり")
    static let previousWeek = Text(en: "Previous week", ja: "前の週")
    static let nextWeek = Text(en: "Next week", ja: "次の週")
    static let previousMonth = Text(en: "Previous month", ja: "前の月")
    static let nextMonth = Text(en: "Next month", ja: "次の月")
    static let daysRecorded = Text(en: "Days recorded", ja: "記録した日")
    static let averageRating = Text(en: "Average day rating", ja: "一日の評価の平均")
    static let entries = Text(en: "Diary entries", ja: "日記")
    static let steps = Text(en: "Steps", ja: "歩数")
    static let sleep = Text(en: "Average sleep", ja: "平均睡眠")
    static let workouts = Text(en: "Workouts", ja: "ワークアウト")
    static let visits = Text(en: "Visits", ja: "訪問")
    static let newPlaces = Text(en: "New places", ja: "新しい場所")
    static let videos = Text(en: "Videos watched", ja: "見た動画")
    static let moods = Text(en: "Moods", ja: "気分")
    static let places = Text(en: "Places", ja: "場所")
    static let badges = Text(en: "Badges earned", ja: "獲得したバッジ")
    static let days = Text(en: "Day by day", ja: "日ごと")
    static let nothing = Text(en: "Nothing was recorded in this period.", ja: "この期間の記録はありません。")
    static let printHint = Text(en: "This page prints cleanly: use your browser's Print.", ja: "このページはそのまま印刷できます(ブラウザの印刷機能を使ってください)。")
    static let share = Text(en: "Share card", ja: "シェア用カード")
    static let shareHelp = Text(en: "A PNG image with the period, days recorded and steps. Nothing else is on it unless you tick it here.",
                                ja: "期間・記録した日数・歩数だけのPNG画像です。ほかの内容は、ここでチェックしたときだけ載ります。")
    static let shareName = Text(en: "My name", ja: "名前")
    static let shareMood = Text(en: "My average day rating", ja: "一日の評価の平均")
    static let sharePlaces = Text(en: "The place I went most", ja: "いちばん行った場所")
    static let shareBadge = Text(en: "A badge I earned", ja: "獲得したバッジ")
    static let makeCard = Text(en: "Download the card (PNG)", ja: "カードをダウンロード(PNG)")
    static let footer = Text(en: "Recorded with Hibi", ja: "日々 で記録")
    static func versus(_ l: Language, _ kind: ReviewPeriod.Kind) -> String {
        switch (l, kind) {
        case (.ja, .week): "前の週比"
        case (.ja, .month): "前の月比"
        case (_, .week): "vs previous week"
        case (_, .month): "vs previous month"
        }
    }
    static func days(_ l: Language, _ n: Int) -> String { l == .ja ? "\(n)日" : (n == 1 ? "1 day" : "\(n) days") }
}

extension JournalViews {
    static func periodTitle(_ period: ReviewPeriod, language l: Language) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: l == .ja ? "ja_JP" : "en_US")
        formatter.timeZone = .gmt
        let first = period.first.interval(in: .gmt).start.addingTimeInterval(12 * 3600)
        let last = period.last.interval(in: .gmt).start.addingTimeInterval(12 * 3600)
        switch period.kind {
        case .month:
            formatter.setLocalizedDateFormatFromTemplate("yMMMM")
            return formatter.string(from: first)
        case .week:
            formatter.setLocalizedDateFormatFromTemplate("MMMd")
            let week = period.slug.split(separator: "W").last.map(String.init) ?? ""
            let range = formatter.string(from: first) + "–" + formatter.string(from: last)
            return l == .ja ? "\(period.first.year)年 第\(Int(week) ?? 0)週(\(range))" : "Week \(Int(week) ?? 0), \(period.first.year) (\(range))"
        }
    }

    /// Time spent watching: minutes under an hour ("0 h" for twenty minutes said nothing), else hours to a tenth.
    static func watchTime(hours: Double, language l: Language) -> String {
        let locale = Locale(identifier: l == .ja ? "ja_JP" : "en_US")
        guard hours.isFinite, hours >= 0 else { return "—" }
        if hours < 1 { return Int(saturating: (hours * 60).rounded()).formatted(.number.locale(locale)) + (l == .ja ? "分" : " min") }
        return hours.formatted(.number.precision(.fractionLength(0...1)).locale(locale)) + (l == .ja ? "時間" : " h")
    }

    static func review(context: HibiRequestContext, review: JournalService.Review, diaryOpen: Bool) -> Node {
        let l = context.language
        let R = ReviewStrings.self
        let period = review.period
        let title = (period.kind == .week ? R.week(l) : R.month(l)) + " · " + periodTitle(period, language: l)
        let t = review.totals, p = review.previous
        func number(_ value: Double, digits: Int = 0) -> String {
            value.formatted(.number.precision(.fractionLength(0...digits)).locale(Locale(identifier: l == .ja ? "ja_JP" : "en_US")))
        }
        func figure(_ id: String, _ label: Text, _ value: String, now: Double?, before: Double?) -> Node {
            el("div", .id("figure-\(id)")) {
                el("small", .class("muted")) { label(l) }
                el("strong") { value }
                if let now, let before, let change = ReviewTotals.change(now, from: before) {
                    el("small", .class("change")) { (change >= 0 ? "+" : "") + number(change) + "% " + R.versus(l, period.kind) }
                }
            }
        }
        return Layout.page(title: title, context: context) {
            el("nav", .class("day-nav no-print")) {
                el("a", .href(JournalPaths.review(period.kind.rawValue, period.previous.slug)), .id("previous-period"), .init("rel", "prev")) {
                    "← " + (period.kind == .week ? R.previousWeek(l) : R.previousMonth(l))
                }
                el("a", .href(JournalPaths.review(period.kind.rawValue, period.next.slug)), .id("next-period"), .init("rel", "next")) {
                    (period.kind == .week ? R.nextWeek(l) : R.nextMonth(l)) + " →"
                }
            }
            el("h1", .id("review-title")) { title }
            if t.daysRecorded == 0 { el("p", .id("review-empty"), .class("card")) { R.nothing(l) } }
            el("section", .class("review-figures"), .id("review-figures")) {
                figure("days", R.daysRecorded, R.days(l, t.daysRecorded), now: Double(t.daysRecorded), before: Double(p.daysRecorded))
                if let average = t.averageRating {
                    figure("rating", R.averageRating, number(average, digits: 1) + " / 5", now: average, before: p.averageRating)
                }
                if diaryOpen { figure("entries", R.entries, number(Double(t.diaryEntries)), now: Double(t.diaryEntries), before: Double(p.diaryEntries)) }
                if t.steps > 0 { figure("steps", R.steps, number(t.steps), now: t.steps, before: p.steps) }
                if let sleep = t.averageSleepHours {
                    figure("sleep", R.sleep, number(sleep, digits: 1) + (l == .ja ? "時間" : " h"), now: sleep, before: p.averageSleepHours)
                }
                if t.workouts > 0 { figure("workouts", R.workouts, number(Double(t.workouts)), now: Double(t.workouts), before: Double(p.workouts)) }
                if t.visits > 0 { figure("visits", R.visits, number(Double(t.visits)), now: Double(t.visits), before: Double(p.visits)) }
                if t.newPlaces > 0 { figure("new-places", R.newPlaces, number(Double(t.newPlaces)), now: Double(t.newPlaces), before: Double(p.newPlaces)) }
                if t.videos > 0 {
                    figure("videos", R.videos, number(Double(t.videos)) + " · " + Self.watchTime(hours: t.videoHours, language: l),
                           now: Double(t.videos), before: Double(p.videos))
                }
            }
            if diaryOpen && !t.moods.isEmpty {
                el("section", .id("review-moods")) {
                    el("h2") { R.moods(l) }
                    el("p") {
                        Mood.allCases.compactMap { mood in t.moods[mood.rawValue].map { "\(mood.emoji) \(mood.label(l)) × \($0)" } }.joined(separator: " · ")
                    }
                }
            }
            if !review.places.isEmpty {
                el("section", .id("review-places")) {
                    el("h2") { R.places(l) }
                    el("ol") { for place in review.places { el("li") { place.name + " (" + R.days(l, place.days) + ")" } } }
                }
            }
            if !review.badges.isEmpty {
                el("section", .id("review-badges")) {
                    el("h2") { R.badges(l) }
                    el("ul") { for badge in review.badges { el("li") { badge.name(l) } } }
                }
            }
            if !review.days.filter({ !$0.domains.isEmpty }).isEmpty {
                el("section", .id("review-days")) {
                    el("h2") { R.days(l) }
                    el("div", .class("timeline")) { for day in review.days.reversed() where !day.domains.isEmpty { card(day, language: l) } }
                }
            }
            el("p", .class("muted no-print")) { R.printHint(l) }
            el("section", .id("review-share"), .class("card no-print")) {
                el("h2") { R.share(l) }
                el("p", .class("muted")) { R.shareHelp(l) }
                el("form", .method("get"), .action(JournalPaths.reviewCard(period.kind.rawValue, period.slug))) {
                    for (name, label) in [("name", R.shareName), ("mood", R.shareMood), ("places", R.sharePlaces), ("badge", R.shareBadge)] {
                        el("label", .class("inline-check")) { input(.type("checkbox"), .name(name), .value("1"), .id("share-\(name)")); label(l) }
                    }
                    el("button", .type("submit"), .id("share-card")) { R.makeCard(l) }
                }
            }
            link(.init("rel", "stylesheet"), .href("/static/journal.css"))
        }
    }

    /// The card: the period, days recorded and steps; the name, the average rating, the top place and a badge only when chosen.
    static func reviewCard(review: JournalService.Review, options: Set<String>, name: String, language l: Language) -> ShareCard {
        let R = ReviewStrings.self
        let t = review.totals
        let format = { (value: Double, digits: Int) in
            value.formatted(.number.precision(.fractionLength(0...digits)).locale(Locale(identifier: l == .ja ? "ja_JP" : "en_US")))
        }
        var lines: [(String, String)] = [(R.daysRecorded(l), R.days(l, t.daysRecorded))]
        if t.steps > 0 { lines.append((R.steps(l), format(t.steps, 0))) }
        if options.contains("mood"), let average = t.averageRating { lines.append((R.averageRating(l), format(average, 1) + " / 5")) }
        if options.contains("places"), let top = review.places.first { lines.append((R.places(l), top.name)) }
        return ShareCard(title: (review.period.kind == .week ? R.week(l) : R.month(l)) + " · " + periodTitle(review.period, language: l),
                         lines: lines, badge: options.contains("badge") ? review.badges.last?.key : nil, name: options.contains("name") ? name : nil,
                         footer: R.footer(l))
    }
}

struct ReviewResponse: Codable, Sendable {
    struct Place: Codable, Sendable {
        let name: String
        let days: Int
    }
    struct Badge: Codable, Sendable {
        let key: String
        let earnedAt: Date
    }
    let kind: ReviewPeriod.Kind
    let period: String
    let from: String
    let to: String
    let previous: String
    let next: String
    let totals: ReviewTotals
    let previousTotals: ReviewTotals
    let places: [Place]
    let badges: [Badge]
    let days: [DaySummaryResponse]

    init(_ review: JournalService.Review, diaryOpen: Bool) {
        kind = review.period.kind
        period = review.period.slug
        from = review.period.first.description
        to = review.period.last.description
        previous = review.period.previous.slug
        next = review.period.next.slug
        // Moods and entry counts are diary data: left out when the diary is locked for this caller.
        var totals = review.totals, before = review.previous
        if !diaryOpen { totals.moods = [:]; before.moods = [:] }
        self.totals = totals
        previousTotals = before
        places = review.places.map { Place(name: $0.name, days: $0.days) }
        badges = review.badges.map { Badge(key: $0.key, earnedAt: $0.earnedAt) }
        days = review.days.filter { !$0.domains.isEmpty }.map { DaySummaryResponse($0, diaryOpen: diaryOpen) }
    }
}
