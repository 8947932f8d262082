enum DiaryDataViews {
    static func page(context: HibiRequestContext, notice: (String, Layout.NoticeKind)? = nil, report: DiaryImportReport? = nil) -> Node {
        let l = context.language
        return Layout.page(title: DiaryStrings.export(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: DiaryPaths.data)
            if let report {
                // Every entry accounted for: the counts, then each skipped one with its position and reason.
                el("section", .class("card"), .id("import-report")) {
                    for line in report.lines(l, listing: 200) { el("p") { line } }
                }
            } else if let (text, kind) = notice {
                Layout.notice(text, kind: kind)
            }
            el("section", .class("card")) {
                el("h2") { DiaryStrings.export(l) }
                el("p") { DiaryStrings.exportIntro(l) }
                el("a", .href(DiaryPaths.exportArchive), .role("button"), .id("export"), .init("download", nil)) { DiaryStrings.export(l) }
                el("p") {
                    el("a", .href(DiaryPaths.exportArchive + "?format=dayone"), .role("button"), .class("secondary"), .id("export-dayone"), .init("download", nil)) {
                        Text(en: "Day One (ZIP)", ja: "Day One 形式(ZIP)")(l)
                    }
                    " "
                    el("a", .href(DiaryPaths.exportArchive + "?format=daylio"), .role("button"), .class("secondary"), .id("export-daylio"), .init("download", nil)) {
                        Text(en: "Daylio (CSV of moods and day ratings)", ja: "Daylio 形式(気分と日の評価の CSV)")(l)
                    }
                }
            }
            el("section", .class("card")) {
                el("h2") { DiaryStrings.importTitle(l) }
                el("p") { DiaryStrings.importIntro(l) }
                el("form", .method("post"), .action(DiaryPaths.importArchive), .init("enctype", "multipart/form-data"), .id("import-form")) {
                    Layout.csrfField(context)
                    input(.type("file"), .name("file"), .init("accept", "application/zip,.zip,application/json,.json,text/csv,.csv,.daylio"), .required, .aria("label", DiaryStrings.importTitle(l)))
                    el("button", .type("submit")) { DiaryStrings.importTitle(l) }
                }
            }
        }
    }
}
