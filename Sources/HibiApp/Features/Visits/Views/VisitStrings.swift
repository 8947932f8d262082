import Foundation

extension VisitStrings {
    static let title = Text(en: "Visits", ja: "訪問")
    static let intro = Text(en: "Where you have been, on a map. Every change is signed, so any tampering shows.",
                            ja: "訪れた場所を地図に記録します。すべての変更は署名されるので、改ざんがあれば分かります。")
    static let add = Text(en: "Add a visit", ja: "訪問を追加")
    static let readAsPositionLog = Text(en: "Read as a GPSLogger position log: where your phone was, not places visited. Its points went to your location history; the stays found in it wait on the \"Detected stays\" page.",
                                        ja: "GPSLogger の位置ログとして読み込みました(訪れた場所ではなく、スマートフォンがいた位置の記録です)。地点は位置履歴に保存し、見つかった滞在は「検出された滞在」ページで確認できます。")
    static let readAsSavedPlaces = Text(en: "Read as Google Maps saved places: places saved without a visit time, kept on the \"Saved places\" page, where you can log a visit at any of them.",
                                        ja: "Google マップの保存した場所として読み込みました(訪問日時のない場所です)。「保存した場所」ページに保存し、そこからいつでも訪問として記録できます。")
    static let savedPlaces = Text(en: "Saved places", ja: "保存した場所")
    static let savedPlacesIntro = Text(en: "Places you saved in Google Maps, without a time you were there. Log a visit when you go: it joins your signed visit log.",
                                       ja: "Google マップで保存した場所です(訪れた日時はありません)。訪れたら「訪問として記録」すると、署名付きの訪問記録に加わります。")
    static let savedPlacesEmpty = Text(en: "No saved places yet. Import Google Takeout's \"Saved Places.json\" (Maps (your places)) on the Import & export page.",
                                       ja: "保存した場所はまだありません。「インポートとエクスポート」ページで Google データエクスポートの「Saved Places.json」(マップ(マイプレイス))を取り込んでください。")
    static func savedPlacesCount(_ l: Language, _ n: Int) -> String { l == .ja ? "\(n) 件" : (n == 1 ? "1 place" : "\(n) places") }
    static let logVisitHere = Text(en: "Log a visit here", ja: "訪問として記録")
    static let visitedAt = Text(en: "When", ja: "日時")
    static let openInGoogleMaps = Text(en: "Google Maps", ja: "Google マップ")
    static let savedPlaceDeleted = Text(en: "The saved place was removed.", ja: "保存した場所を削除しました。")
    static let savedOn = Text(en: "Saved", ja: "保存日")
    static let previousPage = Text(en: "← Newer", ja: "← 新しい順")
    static let nextPage = Text(en: "Older →", ja: "古い順 →")
    static let edit = Text(en: "Edit", ja: "編集")
    static let editTitle = Text(en: "Edit visit", ja: "訪問を編集")
    static let delete = Text(en: "Delete", ja: "削除")
    static let deleteConfirm = Text(en: "Delete this visit? The signed log keeps a record that it existed.",
                                    ja: "この訪問を削除しますか?署名付きの記録には、存在したことが残ります。")
    static let deleted = Text(en: "The visit was deleted.", ja: "訪問を削除しました。")
    static let saved = Text(en: "Saved and signed.", ja: "保存して署名しました。")
    static let name = Text(en: "Place name", ja: "場所の名前")
    static let when = Text(en: "When", ja: "日時")
    static let latitude = Text(en: "Latitude", ja: "緯度")
    static let longitude = Text(en: "Longitude", ja: "経度")
    static let accuracy = Text(en: "Accuracy (m)", ja: "精度(m)")
    static let altitude = Text(en: "Altitude (m)", ja: "高度(m)")
    static let simulated = Text(en: "Position reported as simulated", ja: "位置情報はシミュレーションと報告されました")
    static let useLocation = Text(en: "Use my location", ja: "現在地を使う")
    static let pickHint = Text(en: "Or click the map to pick the spot.", ja: "または地図をクリックして場所を選んでください。")
    static let locating = Text(en: "Finding your position…", ja: "現在地を取得しています…")
    static let locationFailed = Text(en: "Your position is not available; pick the spot on the map.", ja: "現在地を取得できません。地図で場所を選んでください。")
    static let address = Text(en: "Address", ja: "住所")
    static let country = Text(en: "Country", ja: "国")
    static let postalCode = Text(en: "Postal code", ja: "郵便番号")
    static let region = Text(en: "Prefecture / state", ja: "都道府県・州")
    static let locality = Text(en: "City", ja: "市区町村")
    static let street = Text(en: "Street", ja: "番地")
    static let labels = Text(en: "Labels", ja: "ラベル")
    static let labelsHint = Text(en: "Separate with commas", ja: "カンマ(、)で区切ります")
    static let group = Text(en: "Group", ja: "グループ")
    static let companions = Text(en: "Companions", ja: "同行者")
    static let notes = Text(en: "Notes", ja: "メモ")
    static let photos = Text(en: "Photos", ja: "写真")
    static let addPhoto = Text(en: "Add a photo", ja: "写真を追加")
    static let photoHint = Text(en: "JPEG, PNG, WebP or GIF up to 5 MB; stored encrypted.", ja: "JPEG・PNG・WebP・GIF、5 MB まで。暗号化して保存します。")
    static let uploading = Text(en: "Uploading…", ja: "アップロード中…")
    static let noPhotos = Text(en: "No photos.", ja: "写真はありません。")
    static let save = Text(en: "Save", ja: "保存")
    static let cancel = Text(en: "Cancel", ja: "キャンセル")
    static let empty = Text(en: "No visits yet. Add the first one.", ja: "訪問記録はまだありません。最初の1件を追加しましょう。")
    static let noMatch = Text(en: "No visits match these filters.", ja: "条件に合う訪問はありません。")
    static let filter = Text(en: "Filter", ja: "絞り込み")
    static let clear = Text(en: "Clear", ja: "解除")
    static let from = Text(en: "From", ja: "開始日")
    static let to = Text(en: "To", ja: "終了日")
    static let near = Text(en: "Near (lat,lon)", ja: "付近(緯度,経度)")
    static let radius = Text(en: "Radius (km)", ja: "半径(km)")
    static let map = Text(en: "Map", ja: "地図")
    static let list = Text(en: "List", ja: "一覧")
    static let history = Text(en: "History", ja: "履歴")
    static let historyIntro = Text(en: "Every version of this visit, from the signed log.", ja: "署名付きの記録に残る、この訪問のすべての版です。")
    static let verifyTitle = Text(en: "Check the log", ja: "記録の検証")
    static let verifyIntro = Text(en: "Checks every record's hash, its place in the chain and the Ed25519 signature, and that the visits match their last record.",
                                  ja: "各記録のハッシュ、チェーン上の位置、Ed25519 署名、そして訪問が最後の記録と一致することを確認します。")
    static let intact = Text(en: "Consistent", ja: "矛盾なし")
    static let broken = Text(en: "Tampering found", ja: "改ざんを検出")
    static let records = Text(en: "Records", ja: "記録数")
    static let head = Text(en: "Chain head", ja: "チェーンの先頭")
    static let publicKey = Text(en: "Public key (Ed25519)", ja: "公開鍵(Ed25519)")
    static let places = Text(en: "Places", ja: "場所")
    static let mostVisited = Text(en: "Most visited", ja: "よく訪れる場所")
    static let perMonth = Text(en: "Visits per month", ja: "月ごとの訪問数")
    static let count = Text(en: "Visits", ja: "訪問数")
    static let month = Text(en: "Month", ja: "月")
    static let transfer = Text(en: "Import & export", ja: "取り込みと書き出し")
    static let exportTitle = Text(en: "Export", ja: "書き出し")
    static let exportGeoJSON = Text(en: "Export GeoJSON (with signed log)", ja: "GeoJSON で書き出す(署名付き記録を含む)")
    static let exportGPX = Text(en: "Export GPX", ja: "GPX で書き出す")
    static let exportNote = Text(en: "Photos are not exported. The GeoJSON file carries every record, its signature and the public key, so anyone can check it without Hibi.",
                                 ja: "写真は書き出しません。GeoJSON ファイルにはすべての記録・署名・公開鍵が含まれるため、日々がなくても誰でも検証できます。")
    static let importTitle = Text(en: "Import GeoJSON or GPX", ja: "GeoJSON または GPX を取り込む")
    static let importButton = Text(en: "Import", ja: "取り込む")
    static let imported = Text(en: "Imported %@ visits.", ja: "%@ 件の訪問を取り込みました。")
    static let importedSavedPlaces = Text(en: "Added %@ saved places.", ja: "保存した場所を %@ 件追加しました。")
    static let approximateTime = Text(en: "time approximate", ja: "時刻は推定")
    static let importNote = Text(en: "All or nothing: if any item is wrong, nothing is imported and the position of the problem is shown. GPX waypoints and route points without a time take the file's time (else now) and the label “time approximate”; GPX track points go to your location history, and the stays found in them wait under Detected stays. A Hibi takeout's location-points.csv restores your location history. Google Takeout's \"Saved Places.json\" becomes your saved places (a place Google wrote at [0, 0] is skipped). The result says what was added and skipped.",
                                 ja: "すべてか無しか: 1件でも誤りがあれば何も取り込まず、問題の位置を表示します。時刻のない GPX のウェイポイントとルートポイントはファイルの時刻(なければ現在時刻)と「時刻は推定」のラベルを付けて取り込みます。GPX のトラックポイントは位置履歴に保存し、そこから見つかった滞在は「検出された滞在」で確認できます。Hibi のデータ書き出しの location-points.csv を選ぶと位置履歴を復元します。Google データエクスポートの「Saved Places.json」は保存した場所になります([0, 0] の場所はスキップ)。結果に追加とスキップの内訳を表示します。")
    static let file = Text(en: "File", ja: "ファイル")
    static let webhook = Text(en: "Chain head webhook", ja: "チェーン先頭の Webhook")
    static let webhookIntro = Text(en: "After each change Hibi POSTs the chain head (sequence number and hash) to this URL, so a copy lives outside this server.",
                                   ja: "変更のたびに、チェーンの先頭(番号とハッシュ)をこの URL に POST します。サーバーの外に控えが残ります。")
    static let webhookURL = Text(en: "Webhook URL", ja: "Webhook の URL")
    static let sendNow = Text(en: "Send the head now", ja: "今すぐ先頭を送る")
    static let lastSent = Text(en: "Last sent: %@", ja: "最終送信: %@")

    /// What became of the last send, in words; the receiver's own error text is never shown.
    static func webhookOutcome(_ stored: String) -> Text {
        switch OutboundHTTP.Outcome(rawValue: stored) {
        case .delivered: Text(en: "delivered", ja: "送信しました")
        case .refused: Text(en: "not sent: the address is on this server's own network", ja: "未送信: このサーバー自身のネットワーク上のアドレスです")
        case .failed, nil: Text(en: "failed (the receiver did not accept it)", ja: "失敗しました(受信側が受け付けませんでした)")
        }
    }
    static let notSet = Text(en: "not set", ja: "未設定")
    static let signedLog = Text(en: "Signed log", ja: "署名付き記録")
    static let verifyLink = Text(en: "Check the log", ja: "記録を検証")
    static let actionCreate = Text(en: "created", ja: "作成")
    static let actionEdit = Text(en: "edited", ja: "編集")
    static let actionDelete = Text(en: "deleted", ja: "削除")
    static let mapPrivate = Text(en: "Private map: your visits on the built-in world outline, no tiles from other sites.",
                                 ja: "プライベートな地図: 内蔵の世界の輪郭に訪問を表示し、ほかのサイトからタイルを読み込みません。")
    static let mapOffline = Text(en: "Map tiles are unavailable; showing the world outline.", ja: "地図タイルを読み込めません。世界の輪郭を表示しています。")
    static let openVisit = Text(en: "Open", ja: "開く")
    static let visitsCount = CountText(one: Text(en: "%@ visit", ja: "%@ 件"), other: Text(en: "%@ visits", ja: "%@ 件"))

    static func action(_ action: VisitAction) -> Text {
        switch action {
        case .create: actionCreate
        case .edit: actionEdit
        case .delete: actionDelete
        }
    }

    static func reason(_ reason: ChainProblemReason) -> Text {
        switch reason {
        case .changed: Text(en: "was changed outside Hibi (its hash does not match its content)", ja: "日々の外で変更されました(内容とハッシュが一致しません)")
        case .removed: Text(en: "was removed", ja: "削除されています")
        case .reordered: Text(en: "is out of order (records were swapped or moved)", ja: "順序が正しくありません(記録が入れ替えられたか移動されています)")
        case .badSignature: Text(en: "has a signature that does not match", ja: "署名が一致しません")
        case .visitChanged: Text(en: "does not match the visit as stored now (the visit was changed outside Hibi)", ja: "現在保存されている訪問と一致しません(訪問が日々の外で変更されました)")
        case .truncated: Text(en: "was acknowledged by your webhook but is no longer in the log as sent (records were removed from its end)",
                              ja: "Webhook が受け取ったはずなのに、送ったときの形でログに残っていません(末尾の記録が削除されています)")
        }
    }
}

enum VisitStrings {
    /// One sentence for people: "Intact: 12 records." or "Record #5 (visit …) was removed."
    static func verifyMessage(_ report: ChainReport, language: Language) -> String {
        guard let problem = report.problem else {
            // Honest about what a check inside the server can show: records cut off the end, with the stored
            // head moved back, leave a log consistent with itself. Only the webhook's copy reveals that.
            return Text(en: "Consistent with itself: \(report.records) records, every signature and link checks out. Records removed from the end would show only against the head your webhook received.",
                        ja: "ログ自体に矛盾はありません: \(report.records) 件の記録の署名とつながりをすべて確認しました。末尾から削除された記録は、Webhook が受け取った先頭と照らし合わせたときにだけ分かります。")(language)
        }
        let visit = problem.visitId.map { Text(en: " (visit \($0))", ja: "(訪問 \($0))")(language) } ?? ""
        let reason = VisitStrings.reason(problem.reason)(language)
        return Text(en: "Record #\(problem.seq)\(visit) \(reason).", ja: "記録 #\(problem.seq)\(visit)が\(reason)。")(language)
    }
}
