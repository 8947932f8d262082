import Foundation

enum TakeoutImportStrings {
    static let title = Text(en: "Import a takeout", ja: "データ書き出しの読み込み")
    static let intro = Text(
        en: "Choose a takeout ZIP (\"Download all my data\" on any Hibi) to add its diary, health records, visits and location history to this account. What is already here is not added twice.",
        ja: "データ書き出しの ZIP(どの Hibi でも「すべてのデータをダウンロード」で作れます)を選ぶと、日記・健康記録・訪問・位置の履歴をこのアカウントに追加します。すでにあるものは二重に追加しません。")
    static let file = Text(en: "Takeout file (.zip)", ja: "データ書き出しのファイル(.zip)")
    static let start = Text(en: "Import", ja: "読み込む")
    static let uploading = Text(en: "Uploading…", ja: "アップロード中…")
    static let importing = Text(en: "Importing…", ja: "読み込み中…")
    static let done = Text(en: "Import finished.", ja: "読み込みが終わりました。")
    static let failed = Text(en: "The import failed:", ja: "読み込めませんでした:")
    static let aborted = Text(en: "The upload stopped before it finished. Nothing was imported; try again.",
                              ja: "アップロードが途中で止まりました。何も読み込まれていません。もう一度お試しください。")
    static let tooLarge = Text(en: "This file is larger than an import may be.", ja: "このファイルは読み込める大きさを超えています。")
    static let diary = CountText(one: Text(en: "%@ diary entry added", ja: "日記 %@ 件を追加"), other: Text(en: "%@ diary entries added", ja: "日記 %@ 件を追加"))
    static let health = CountText(one: Text(en: "%@ health record added", ja: "健康記録 %@ 件を追加"), other: Text(en: "%@ health records added", ja: "健康記録 %@ 件を追加"))
    static let visits = CountText(one: Text(en: "%@ visit added", ja: "訪問 %@ 件を追加"), other: Text(en: "%@ visits added", ja: "訪問 %@ 件を追加"))
    static let points = CountText(one: Text(en: "%@ location point added", ja: "位置の記録 %@ 件を追加"),
                                  other: Text(en: "%@ location points added", ja: "位置の記録 %@ 件を追加"))
    static let savedPlaces = CountText(one: Text(en: "%@ saved place added", ja: "保存した場所 %@ 件を追加"),
                                       other: Text(en: "%@ saved places added", ja: "保存した場所 %@ 件を追加"))
    static let notTwice = Text(en: "Anything already in this account was left as it was.", ja: "すでにこのアカウントにあったものはそのままです。")
}

extension AccountViews {
    /// Settings → Import: the page the takeout's README names. The file goes to the takeout import API as
    /// the request body (takeout-import.js, with upload progress); the report comes back as JSON.
    static func takeoutImport(context: HibiRequestContext, maxBytes: Int) -> Node {
        let l = context.language
        let S = TakeoutImportStrings.self
        // The report's sentences for every count, rendered here so the page stays bilingual without a script dictionary.
        let forms: [(String, CountText)] = [("diaryEntries", S.diary), ("healthRecords", S.health), ("visits", S.visits), ("locationPoints", S.points), ("savedPlaces", S.savedPlaces)]
        let templates = Dictionary(uniqueKeysWithValues: forms.map { ($0.0, ["one": $0.1.one(l), "other": $0.1.other(l)]) })
        let json = (try? JSONCoding.encoder.encode(templates)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Layout.page(title: S.title(l), context: context) {
            el("h1") { S.title(l) }
            settingsNav(l, current: AccountPaths.takeoutImport)
            el("section", .class("card")) {
                el("p") { S.intro(l) }
                el("form", .id("takeout-import-form"), .data("max-bytes", String(maxBytes)), .data("msg-uploading", S.uploading(l)),
                   .data("msg-importing", S.importing(l)), .data("msg-done", S.done(l)), .data("msg-failed", S.failed(l)),
                   .data("msg-aborted", S.aborted(l)), .data("msg-too-large", S.tooLarge(l)), .data("msg-not-twice", S.notTwice(l)),
                   .data("locale", l == .ja ? "ja-JP" : "en-US")) {
                    Layout.field(label: S.file(l), id: "takeout-file", .name("file"), .type("file"), .init("accept", ".zip,application/zip"), .required)
                    el("progress", .id("takeout-progress"), .init("max", "100"), .init("hidden", nil)) { "" }
                    el("p", .id("takeout-status"), .role("status"), .aria("live", "polite")) { "" }
                    el("button", .type("submit"), .id("takeout-import-button")) { S.start(l) }
                }
                el("ul", .id("takeout-report"), .init("hidden", nil)) { "" }
                el("script", .type("application/json"), .id("takeout-report-strings")) { Node.raw(json.replacingOccurrences(of: "</", with: "<\\/")) }
            }
            el("script", .src("/static/takeout-import.js"), .init("defer", nil))
        }
    }

    /// The settings pages' own menu: the settings and the takeout import.
    static func settingsNav(_ l: Language, current: String) -> Node {
        el("nav", .class("section-nav"), .aria("label", CommonStrings.settings(l))) {
            el("ul") {
                for (path, title) in [(AccountPaths.settings, CommonStrings.settings), (AccountPaths.takeoutImport, TakeoutImportStrings.title)] {
                    el("li") { el("a", [.href(path)] + (current == path ? [.aria("current", "page")] : [])) { title(l) } }
                }
            }
        }
    }
}
