import Foundation

enum InsightStrings {
    static let title = Text(en: "Insights", ja: "インサイト")
    static let notACause = Text(en: "A correlation, not a cause.", ja: "相関であって、因果ではありません。")
    static let intro = Text(
        en: "How your day rating goes with the rest of your journal. Shown only when at least %1 days show a relation whose 95% interval leaves out zero.",
        ja: "一日の評価と、ほかの記録との関係です。少なくとも%1日分のデータがあり、95%信頼区間がゼロを含まない関係だけを表示します。")
    static let nothing = Text(
        en: "Nothing to say yet. Rate your days (or confirm moods in the diary) and keep recording; insights appear when the data support them.",
        ja: "まだ言えることはありません。一日を評価し(または日記で気分を確定し)、記録を続けると、データが裏付けたときにインサイトが表示されます。")
    static let lockedNote = Text(en: "The diary is locked: only the ratings you chose are used, not the moods.",
                                 ja: "日記がロックされています。確定した気分は使わず、選んだ評価だけを使っています。")
    static func detail(_ l: Language, _ insight: Insight) -> String {
        let r = insight.result
        let numbers = String(format: "ρ = %.2f, 95%% CI %.2f to %.2f", r.rho, r.lower, r.upper)
        return l == .ja ? numbers.replacingOccurrences(of: " to ", with: "〜").replacingOccurrences(of: "95% CI", with: "95%信頼区間") : numbers
    }

    /// "On days you walked more than 8,000 steps your mood was happier on average (n = 143)."
    static func sentence(_ l: Language, _ insight: Insight) -> String {
        let x = insight.threshold
        let number = x.formatted(.number.precision(.fractionLength(0...1)).locale(Locale(identifier: l == .ja ? "ja_JP" : "en_US")))
        let happier = insight.ratingAbove > insight.ratingBelow
        let n = insight.result.n
        if l == .ja {
            let condition: String
            switch insight.measure {
            case .steps: condition = "\(number)歩より多く歩いた"
            case .sleep: condition = "\(number)時間より長く眠った"
            case .workouts: condition = x == 0 ? "運動した" : "\(number)分より長く運動した"
            case .visits: condition = x == 0 ? "出かけた" : "\(number)か所より多く訪れた"
            case .newPlaces: condition = x == 0 ? "新しい場所に行った" : "新しい場所を\(number)か所より多く訪れた"
            case .videoHours: condition = x == 0 ? "動画を見た" : "動画を\(number)時間より長く見た"
            }
            let when = insight.lag == .sameDay ? "日" : "翌日"
            return "\(condition)\(when)は、平均して気分が\(happier ? "良い" : "低い")傾向でした(n = \(n))。"
        }
        let condition: String
        switch insight.measure {
        case .steps: condition = "you walked more than \(number) steps"
        case .sleep: condition = "you slept more than \(number) hours"
        case .workouts: condition = x == 0 ? "you worked out" : "you worked out more than \(number) minutes"
        case .visits: condition = x == 0 ? "you went somewhere" : "you visited more than \(number) places"
        case .newPlaces: condition = x == 0 ? "you went somewhere new" : "you visited more than \(number) new places"
        case .videoHours: condition = x == 0 ? "you watched videos" : "you watched more than \(number) hours of video"
        }
        let when = insight.lag == .sameDay ? "On days" : "On the day after"
        return "\(when) \(condition) your mood was \(happier ? "happier" : "lower") on average (n = \(n))."
    }
}

extension JournalViews {
    static func insights(context: HibiRequestContext, insights: [Insight], diaryOpen: Bool) -> Node {
        let l = context.language
        let S = InsightStrings.self
        return Layout.page(title: S.title(l), context: context) {
            el("h1") { S.title(l) }
            el("p", .class("muted")) { S.intro(l).replacingOccurrences(of: "%1", with: String(Insights.minimumDays)) }
            if !diaryOpen { el("p", .class("muted"), .id("insights-locked")) { S.lockedNote(l) } }
            if insights.isEmpty {
                el("p", .id("insights-none"), .class("card")) { S.nothing(l) }
            }
            el("div", .id("insights-list")) {
                for insight in insights {
                    el("article", .class("card insight"), .data("measure", insight.measure.rawValue), .data("lag", insight.lag.rawValue)) {
                        el("p", .class("insight-sentence")) { el("strong") { S.sentence(l, insight) } }
                        el("p", .class("muted small")) { S.notACause(l) + " " + S.detail(l, insight) }
                    }
                }
            }
            link(.init("rel", "stylesheet"), .href("/static/journal.css"))
        }
    }
}

struct InsightsResponse: Codable, Sendable {
    struct Item: Codable, Sendable {
        let measure: InsightMeasure
        let lag: Insight.Lag
        let rho: Double
        let n: Int
        let lower: Double
        let upper: Double
        let threshold: Double
        let ratingAbove: Double
        let ratingBelow: Double
        let sentence: String
    }
    let minimumDays: Int
    /// False when the diary is locked for this caller: only chosen ratings were used, not the moods.
    let moodsUsed: Bool
    let note: String
    let insights: [Item]

    init(_ insights: [Insight], moodsUsed: Bool, language: Language) {
        minimumDays = Insights.minimumDays
        self.moodsUsed = moodsUsed
        note = InsightStrings.notACause(language)
        self.insights = insights.map {
            Item(measure: $0.measure, lag: $0.lag, rho: $0.result.rho, n: $0.result.n, lower: $0.result.lower, upper: $0.result.upper,
                 threshold: $0.threshold, ratingAbove: $0.ratingAbove, ratingBelow: $0.ratingBelow, sentence: InsightStrings.sentence(language, $0))
        }
    }
}
