enum DiaryDataViews {
    static func page(context: HibiRequestContext, notice: (String, Layout.NoticeKind)? = nil) -> Node {
        let l = context.language
        return Layout.page(title: DS.export(l), context: context, current: "/diary") {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: "/diary/data")
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            el("section", .class("card")) {
                el("h2") { DS.export(l) }
                el("p") { DS.exportIntro(l) }
                el("a", .href("/diary/export.zip"), .role("button"), .id("export"), .init("download", nil)) { DS.export(l) }
            }
            el("section", .class("card")) {
                el("h2") { DS.importTitle(l) }
                el("p") { DS.importIntro(l) }
                el("form", .method("post"), .action("/diary/import"), .init("enctype", "multipart/form-data"), .id("import-form")) {
                    Layout.csrfField(context)
                    input(.type("file"), .name("file"), .init("accept", "application/zip,.zip,application/json,.json"), .required, .aria("label", DS.importTitle(l)))
                    el("button", .type("submit")) { DS.importTitle(l) }
                }
            }
        }
    }
}
