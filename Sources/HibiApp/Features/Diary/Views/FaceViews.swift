enum FaceStrings {
    static let enrollTitle = Text(en: "Enroll your face", ja: "顔を登録")
    static let enrollIntro = Text(en: "Take at least 3 photos looking straight at the camera, in good light. Each one is checked before it counts. The photos are not kept; only a numeric template, encrypted.",
                                  ja: "明るい場所でカメラを正面から見て、3枚以上撮影してください。1枚ずつ確認します。写真は保存されず、暗号化された数値のテンプレートだけを保存します。")
    static let takePhoto = Text(en: "Take photo", ja: "撮影")
    /// Enrolment has no Start button (the unlock page's "Press start" was shown here): name the button it has.
    static let enrollReady = Text(en: "Ready. Look at the camera and press Take photo.", ja: "準備完了。カメラを見て「撮影」を押してください。")
    static let finish = Text(en: "Save face", ja: "顔を保存")
    static let accepted = Text(en: "Photo %@ accepted", ja: "%@ 枚目を受け付けました")
    static let enrolledDone = Text(en: "Your face is enrolled. Next time, unlock with it.", ja: "顔を登録しました。次回から顔で解除できます。")
    static let unavailable = Text(en: "Face recognition is not available on this server.", ja: "このサーバーでは顔認識を利用できません。")
    static let moodBaseline = Text(en: "Read mood suggestions against my resting face (from my enrollment photos)",
                                   ja: "気分の推定を、登録写真の平常時の顔を基準に読む")
    static let moodBaselineHelp = Text(en: "Some faces look sad or stern at rest. With this on, what the model sees in your enrollment photos no longer counts as a mood.",
                                       ja: "平常時でも悲しそう・険しそうに見える顔があります。オンにすると、登録写真に見える表情は気分として数えません。")
}

enum FaceViews {
    static func settings(context: HibiRequestContext, lockMinutes: Int, enrolled: Int, available: Bool, moodBaseline: Bool? = nil,
                         notice: (String, Layout.NoticeKind)?) -> Node {
        let l = context.language
        return Layout.page(title: UnlockStrings.settings(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            DiaryViews.subnav(context, current: DiaryPaths.settings)
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            el("section", .class("card")) {
                el("h2") { UnlockStrings.settings(l) }
                el("form", .method("post"), .action(DiaryPaths.settingsLock), .id("lock-form")) {
                    Layout.csrfField(context)
                    Layout.field(label: UnlockStrings.lockAfter(l), id: "lock_minutes", .name("lock_minutes"), .type("number"), .init("min", "1"),
                                 .init("max", "1440"), .value(String(lockMinutes)), .required)
                    el("button", .type("submit")) { CommonStrings.save(l) }
                }
                el("form", .method("post"), .action(DiaryPaths.lock)) {
                    Layout.csrfField(context)
                    el("button", .type("submit"), .class("secondary outline"), .id("lock-now")) { "🔒 " + UnlockStrings.lockNow(l) }
                }
            }
            el("section", .class("card"), .id("face-settings")) {
                el("h2") { UnlockStrings.face(l) }
                if !available {
                    el("p", .class("muted")) { FaceStrings.unavailable(l) }
                } else if enrolled > 0 {
                    el("p", .id("face-status")) { UnlockStrings.enrolled(l, String(enrolled)) }
                    el("div", .class("form-actions")) {
                        el("a", .href(DiaryPaths.enroll), .role("button"), .class("secondary")) { UnlockStrings.reenroll(l) }
                        el("form", .method("post"), .action(DiaryPaths.deleteFace), .class("inline")) {
                            Layout.csrfField(context)
                            el("button", .type("submit"), .class("secondary outline danger"), .id("delete-face")) { UnlockStrings.deleteFace(l) }
                        }
                    }
                    if let moodBaseline {
                        el("form", .method("post"), .action(DiaryPaths.settingsMoodBaseline), .id("mood-baseline-form")) {
                            Layout.csrfField(context)
                            el("label") {
                                moodBaseline ? input(.type("checkbox"), .name("enabled"), .id("mood-baseline"), .init("checked", nil))
                                             : input(.type("checkbox"), .name("enabled"), .id("mood-baseline"))
                                " " + FaceStrings.moodBaseline(l)
                            }
                            el("p", .class("muted")) { FaceStrings.moodBaselineHelp(l) }
                            el("button", .type("submit"), .class("secondary")) { CommonStrings.save(l) }
                        }
                    }
                } else {
                    el("p", .id("face-status")) { UnlockStrings.notEnrolled(l) }
                    el("a", .href(DiaryPaths.enroll), .role("button"), .id("enroll-link")) { UnlockStrings.enroll(l) }
                }
            }
        }
    }

    static func enroll(context: HibiRequestContext, available: Bool) -> Node {
        let l = context.language
        return Layout.page(title: FaceStrings.enrollTitle(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            el("h1") { FaceStrings.enrollTitle(l) }
            DiaryViews.subnav(context, current: DiaryPaths.settings)
            el("article", .class("card narrow unlock"), .id("enroll"), .data("minimum", String(FaceAuthService.minimumEnrollmentPhotos))) {
                if !available {
                    Layout.notice(FaceStrings.unavailable(l), kind: .error)
                } else {
                    el("p") { FaceStrings.enrollIntro(l) }
                    el("div", .class("camera")) {
                        el("video", .id("camera"), .init("autoplay", nil), .init("playsinline", nil), .init("muted", nil)) { "" }
                    }
                    el("p", .id("face-status"), .class("status"), .role("status"), .data("state", "ready")) { FaceStrings.enrollReady(l) }
                    el("ol", .class("enroll-shots"), .id("shots")) { "" }
                    el("div", .class("form-actions")) {
                        el("button", .type("button"), .id("take-photo")) { "📸 " + FaceStrings.takePhoto(l) }
                        el("button", .type("button"), .id("finish-enroll"), .disabled) { FaceStrings.finish(l) }
                    }
                    el("script", .type("application/json"), .id("unlock-strings")) {
                        Node.raw(UnlockScriptStrings.json(l, extra: [("accepted", FaceStrings.accepted), ("done", FaceStrings.enrolledDone)]))
                    }
                }
            }
            el("script", .src("/static/face.js"), .init("defer", nil))
        }
    }
}
