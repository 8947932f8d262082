import Foundation

enum UnlockStrings {
    static let title = Text(en: "Unlock your diary", ja: "日記のロックを解除")
    static let intro = Text(en: "Your diary is locked. Look at the camera, or use your password.", ja: "日記はロックされています。カメラを見るか、パスワードを使ってください。")
    static let withPassword = Text(en: "Unlock with password", ja: "パスワードで解除")
    static let withFace = Text(en: "Unlock with your face", ja: "顔で解除")
    static let startCamera = Text(en: "Start", ja: "開始")
    static let retry = Text(en: "Try again", ja: "もう一度")
    static let ready = Text(en: "Ready. Press start and follow the instructions.", ja: "準備完了。開始を押して指示に従ってください。")
    static let scanning = Text(en: "Scanning…", ja: "スキャン中…")
    static let processing = Text(en: "Checking…", ja: "確認中…")
    static let success = Text(en: "Unlocked!", ja: "解除しました!")
    static let turnLeft = Text(en: "Slowly turn your head to your left", ja: "ゆっくり顔を左に向けてください")
    static let turnRight = Text(en: "Slowly turn your head to your right", ja: "ゆっくり顔を右に向けてください")
    static let lookStraight = Text(en: "Look straight at the camera", ja: "カメラを正面から見てください")
    static let turnUp = Text(en: "Slowly tip your head up", ja: "ゆっくり顔を上に向けてください")
    static let turnDown = Text(en: "Slowly tip your head down", ja: "ゆっくり顔を下に向けてください")
    static let honesty = Text(en: "Face unlock is a convenience on top of your password, which stays the key to your diary. The head turns stop a photo held up or sent as frames, its mirror image and replayed frames; they do not stop a video of you or a 3-D mask.",
                              ja: "顔認証はパスワードに加えた便利機能で、日記の鍵はあくまでパスワードです。頭の動きの確認は、かざした写真やフレームとして送られた写真、その鏡像、再送されたフレームを防ぎますが、あなたの動画や立体マスクは防げません。")
    static let cameraDenied = Text(en: "The camera is not available (denied or missing). Use your password instead.", ja: "カメラを使用できません(許可されていないか、ありません)。パスワードを使ってください。")
    static let notEnrolled = Text(en: "Face unlock is not set up. Enroll your face in the diary settings.", ja: "顔認証は未設定です。日記の設定で顔を登録してください。")
    static let faceLocked = Text(en: "Face unlock is paused after too many failures. Use your password.", ja: "失敗が続いたため顔認証は一時停止中です。パスワードを使ってください。")
    static let lockNow = Text(en: "Lock diary", ja: "日記をロック")
    static let settings = Text(en: "Diary settings", ja: "日記の設定")
    static let lockAfter = Text(en: "Lock after this many idle minutes", ja: "この分数操作がないとロック")
    static let face = Text(en: "Face unlock", ja: "顔認証")
    static let enrolled = Text(en: "Enrolled with %@ photos.", ja: "%@ 枚の写真で登録済みです。")
    static let enroll = Text(en: "Enroll your face", ja: "顔を登録")
    static let reenroll = Text(en: "Enroll again", ja: "顔を再登録")
    static let deleteFace = Text(en: "Delete face data", ja: "顔データを削除")
    static let faceDeleted = Text(en: "Face data deleted.", ja: "顔データを削除しました。")
}

enum UnlockViews {
    static func unlock(context: HibiRequestContext, next: String, enrolled: Bool, faceAvailable: Bool, error: String? = nil) -> Node {
        let l = context.language
        return Layout.page(title: UnlockStrings.title(l), context: context, current: DiaryPaths.list) {
            DiaryViews.head(context)
            el("article", .class("card narrow unlock")) {
                el("hgroup") {
                    el("h1") { "🔒 " + UnlockStrings.title(l) }
                    el("p") { UnlockStrings.intro(l) }
                }
                if let error { Layout.notice(error, kind: .error) }
                if enrolled && faceAvailable {
                    faceBox(context: context, title: UnlockStrings.withFace, next: next,
                            challengeURL: APIPaths.url(DiaryAPIPaths.faceChallenge), verifyURL: APIPaths.url(DiaryAPIPaths.faceFrame))
                } else if !enrolled {
                    el("p", .class("muted"), .id("not-enrolled")) { UnlockStrings.notEnrolled(l) }
                }
                el("section") {
                    el("h2") { UnlockStrings.withPassword(l) }
                    el("form", .method("post"), .action(DiaryPaths.unlock), .id("unlock-password")) {
                        Layout.csrfField(context)
                        input(.type("hidden"), .name("next"), .value(next))
                        Layout.field(label: CommonStrings.password(l), id: "password", .name("password"), .type("password"), .autocomplete("current-password"), .required)
                        el("button", .type("submit")) { UnlockStrings.withPassword(l) }
                    }
                }
            }
            el("script", .src("/static/face.js"), .init("defer", nil))
        }
    }
}

extension UnlockViews {
    /// The camera and liveness challenge that face.js drives: diary unlock and face sign-in differ only
    /// in where the challenge comes from and where the frames go.
    static func faceBox(context: HibiRequestContext, title: Text, next: String, challengeURL: String, verifyURL: String) -> Node {
        let l = context.language
        return el("section", .id("face-unlock"), .data("next", next), .data("state", "ready"),
                  .data("challenge-url", challengeURL), .data("verify-url", verifyURL)) {
            el("h2") { title(l) }
            // The camera box stays hidden until the camera runs (face.js), and its prompt starts empty:
            // before, the page showed "Ready" twice above an empty box.
            el("div", .class("camera"), .init("hidden", nil)) {
                el("video", .id("camera"), .init("autoplay", nil), .init("playsinline", nil), .init("muted", nil), .aria("label", title(l))) { "" }
                el("p", .class("camera-prompt"), .id("prompt"), .aria("live", "assertive")) { "" }
            }
            el("p", .id("face-status"), .class("status"), .role("status"), .data("state", "ready")) { UnlockStrings.ready(l) }
            el("button", .type("button"), .id("face-start")) { UnlockStrings.startCamera(l) }
            el("p", .class("muted"), .id("face-honesty")) { UnlockStrings.honesty(l) }
            el("script", .type("application/json"), .id("unlock-strings")) {
                Node.raw(UnlockScriptStrings.json(l))
            }
        }
    }
}

/// Strings the unlock script shows, handed over as JSON so the page stays bilingual without a script-side dictionary.
enum UnlockScriptStrings {
    static func json(_ l: Language, extra: [(String, Text)] = []) -> String {
        let pairs: [(String, Text)] = extra + [("ready", UnlockStrings.ready), ("scanning", UnlockStrings.scanning), ("processing", UnlockStrings.processing), ("success", UnlockStrings.success),
                                       ("left", UnlockStrings.turnLeft), ("right", UnlockStrings.turnRight), ("up", UnlockStrings.turnUp), ("down", UnlockStrings.turnDown), ("straight", UnlockStrings.lookStraight),
                                       ("cameraDenied", UnlockStrings.cameraDenied), ("retry", UnlockStrings.retry)]
        let object = Dictionary(uniqueKeysWithValues: pairs.map { ($0.0, $0.1(l)) })
        let data = (try? JSONCoding.encoder.encode(object)) ?? Data("{}".utf8)
        // "</" inside a script element would end it early.
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
    }
}

