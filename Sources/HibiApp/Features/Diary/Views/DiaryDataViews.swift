enum DiaryDataViews {
    static func page(context: HibiRequestContext, notice: (String, Layout.NoticeKind)? = nil, report: DiaryImportReport? = nil,
                     job: DiaryImportJob? = nil) -> Node {
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
            if let job { importJob(job, language: l) }
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

    /// The import running (entries done of the file's total; the page reloads itself) or the last one, with its report.
    static func importJob(_ job: DiaryImportJob, language l: Language) -> Node {
        el("section", .class("card"), .id("import-job"), .data("state", job.state.rawValue)) {
            switch job.state {
            case .running:
                el("h2") { Text(en: "Importing \(job.fileName)", ja: "\(job.fileName) を読み込み中")(l) }
                if job.total > 0 {
                    el("progress", .init("value", String(job.done)), .init("max", String(job.total))) { "" }
                    el("p", .id("import-progress")) {
                        Text(en: "\(job.done) of \(job.total) entries", ja: "\(job.total) 件中 \(job.done) 件")(l)
                    }
                } else {
                    el("progress") { "" }
                    el("p", .id("import-progress")) { Text(en: "Reading the file…", ja: "ファイルを読んでいます…")(l) }
                }
                el("p") { Text(en: "You can leave this page; the import goes on, and picks up where it was if the server restarts.",
                                ja: "このページを離れても読み込みは続きます。サーバーが再起動しても途中から再開します。")(l) }
            case .done, .failed:
                el("h2") { Text(en: "Last import: \(job.fileName)", ja: "前回のインポート: \(job.fileName)")(l) }
                if let error = job.error { Layout.notice(error(l), kind: .error) }
                if let report = job.checkpoint?.report {
                    for line in report.lines(l, listing: 200) { el("p") { line } }
                }
            }
        }
    }
}
