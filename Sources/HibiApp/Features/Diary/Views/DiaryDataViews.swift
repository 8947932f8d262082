enum DiaryDataViews {
    static func page(context: HibiRequestContext, notice: (String, Layout.NoticeKind)? = nil) -> Node {
        let l = context.language
        return Layout.page(title: DiaryStrings.export(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: DiaryPaths.data)
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            el("section", .class("card")) {
                el("h2") { DiaryStrings.export(l) }
                el("p") { DiaryStrings.exportIntro(l) }
                el("a", .href(DiaryPaths.exportArchive), .role("button"), .id("export"), .init("download", nil)) { DiaryStrings.export(l) }
            }
            el("section", .class("card")) {
                el("h2") { DiaryStrings.importTitle(l) }
                el("p") { DiaryStrings.importIntro(l) }
                el("form", .method("post"), .action(DiaryPaths.importArchive), .init("enctype", "multipart/form-data"), .id("import-form")) {
                    Layout.csrfField(context)
                    input(.type("file"), .name("file"), .init("accept", "application/zip,.zip,application/json,.json"), .required, .aria("label", DiaryStrings.importTitle(l)))
                    el("button", .type("submit")) { DiaryStrings.importTitle(l) }
                }
            }
        }
    }
}
