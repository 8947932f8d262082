import Foundation

enum AdminMapStrings {
    static let title = Text(en: "Map tiles", ja: "地図タイル")
    static let privateNow = Text(
        en: "No tile server is chosen: maps show the built-in world outline with your visits and tracks, and no other site is asked for anything.",
        ja: "タイルサーバーは選ばれていません。地図は内蔵の世界の輪郭に訪問と経路を重ねて表示し、ほかのサイトには何も問い合わせません。")
    static func using(_ l: Language, _ host: String) -> String {
        host.isEmpty
            ? Text(en: "Maps load tiles from this server.", ja: "地図はこのサーバーからタイルを読み込みます。")(l)
            : Text(en: "Maps load tiles from \(host).", ja: "地図は \(host) からタイルを読み込みます。")(l)
    }
    /// The one sentence on what choosing a tile server gives away.
    static let learns = Text(
        en: "A tile server learns which areas each person looks at on a map (around their visits, at street level), their IP address and when.",
        ja: "タイルサーバーには、各利用者が地図で見ている地域(訪問先の周辺、街路の詳しさまで)、IP アドレス、その時刻が伝わります。")
    static let field = Text(en: "Tile URL template (empty for none)", ja: "タイル URL テンプレート(空欄でなし)")
    static let hint = Text(
        en: "For example https://tile.openstreetmap.org/{z}/{x}/{y}.png, or a path on this host such as /tiles/{z}/{x}/{y}.png (see docs/visits.md for running a tile server here).",
        ja: "例: https://tile.openstreetmap.org/{z}/{x}/{y}.png、またはこのホストのパス /tiles/{z}/{x}/{y}.png(このホストでタイルサーバーを動かす方法は docs/visits.md)。")
    static let invalid = Text(
        en: "That is not a tile URL: give an http(s) address or a path starting with /, naming {z}, {x} and {y}, without spaces or quotes.",
        ja: "タイル URL ではありません。{z}、{x}、{y} を含む http(s) のアドレスか / で始まるパスを、空白や引用符なしで入力してください。")
    static let saved = Text(en: "Saved. Maps use the new setting now.", ja: "保存しました。地図はすぐに新しい設定を使います。")
}

extension AccountViews {
    static func adminMap(context: HibiRequestContext, tileURL: String, notice: (String, Layout.NoticeKind)? = nil, entered: String? = nil) -> Node {
        let l = context.language
        let S = AdminMapStrings.self
        return Layout.page(title: S.title(l), context: context) {
            el("h1") { S.title(l) }
            Layout.adminNav(l, current: AccountPaths.adminMap)
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            el("section", .class("card"), .id("map-tiles")) {
                el("p", .id("map-tiles-state")) { tileURL.isEmpty ? S.privateNow(l) : S.using(l, MapTileServer.host(tileURL)) }
                el("p", .id("map-tiles-learns")) { el("strong") { S.learns(l) } }
                el("form", .method("post"), .action(AccountPaths.adminMap), .id("map-tiles-form")) {
                    Layout.csrfField(context)
                    Layout.field(label: S.field(l), id: "tile_url", .name("tile_url"), .value(entered ?? tileURL), .maxlength(500),
                                 .init("inputmode", "url"), .init("spellcheck", "false"), .autocomplete("off"))
                    el("small") { S.hint(l) }
                    el("button", .type("submit")) { CommonStrings.save(l) }
                }
            }
        }
    }
}
