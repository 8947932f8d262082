import Foundation

/// The words of the location history pages and answers, in English and Japanese.
enum LocationStrings {
    static let staysTitle = Text(en: "Detected stays", ja: "検出された滞在")
    static let staysIntro = Text(en: "Places where your location history stayed within a short distance for a while. Confirm one to make it a signed visit, or dismiss it.",
                                 ja: "位置履歴が一定時間ほぼ同じ場所にとどまっていた所です。確定すると署名付きの訪問になります。不要なら却下してください。")
    static let noStays = Text(en: "No stays waiting. Import a GPX track or a Google location history file, or connect OwnTracks or Overland.",
                              ja: "確認待ちの滞在はありません。GPX のトラックや Google の位置履歴を取り込むか、OwnTracks・Overland を接続してください。")
    static let noStaysInHistory = Text(en: "No stays waiting: your location history holds no stay still to decide.",
                                       ja: "確認待ちの滞在はありません。位置履歴に、まだ判断していない滞在はありません。")
    static let confirm = Text(en: "Confirm", ja: "確定")
    static let dismiss = Text(en: "Dismiss", ja: "却下")
    static let confirmed = Text(en: "The stay is now a signed visit.", ja: "滞在を署名付きの訪問にしました。")
    static let dismissed = Text(en: "The stay was dismissed; it will not be offered again.", ja: "滞在を却下しました。再び提案されることはありません。")
    static let from = Text(en: "Arrived", ja: "到着")
    static let until = Text(en: "Left", ja: "出発")
    static let points = Text(en: "Points", ja: "地点数")
    static let name = Text(en: "Name", ja: "名前")
    static let recent = Text(en: "Recently decided", ja: "最近の判断")
    static let settingsTitle = Text(en: "How stays are found", ja: "滞在の検出条件")
    static let settingsIntro = Text(en: "A stay is a time spent within this distance for at least this long.",
                                    ja: "この距離の範囲内にこの時間以上とどまると滞在とみなします。")
    static let distance = Text(en: "Distance (m)", ja: "距離(m)")
    static let duration = Text(en: "Duration (minutes)", ja: "時間(分)")
    static let save = Text(en: "Save", ja: "保存")
    static let saved = Text(en: "Saved. New stays are found with these settings.", ja: "保存しました。今後の滞在はこの条件で検出します。")
    static let importTitle = Text(en: "Import location history", ja: "位置履歴の取り込み")
    static let importNote = Text(en: "GPX tracks, Google Takeout Records.json, semantic location history (timelineObjects), the phone's Timeline.json, OwnTracks Recorder .rec files, TCX and FIT activities (Garmin, Google Fit, Strava, Wahoo) or a Hibi takeout's location-points.csv, up to 64 MB. Larger files: hibi visits import-locations.",
                                 ja: "GPX のトラック、Google Takeout の Records.json、セマンティック位置履歴(timelineObjects)、スマートフォンの Timeline.json、OwnTracks Recorder の .rec ファイル、TCX・FIT のアクティビティ(Garmin、Google Fit、Strava、Wahoo)、Hibi のデータ書き出しの location-points.csv(64 MB まで)。大きなファイルは hibi visits import-locations で。")
    static let formatsExpected = Text(en: "expected GPX, TCX, FIT, an OwnTracks Recorder .rec file, a Google location history JSON file or a Hibi takeout's location-points.csv",
                                      ja: "GPX、TCX、FIT、OwnTracks Recorder の .rec ファイル、Google の位置履歴 JSON ファイル、または Hibi のデータ書き出しの location-points.csv が必要です")
    static let archiveToHealth = Text(en: "a ZIP archive: import a Strava export (or an Apple Health export.zip) on the Health import page, which makes workouts of its activities and adds their points to this history",
                                      ja: "ZIP アーカイブです。Strava のエクスポート(または Apple ヘルスケアの export.zip)は健康の取り込みページで読み込んでください。アクティビティがワークアウトになり、その地点がこの位置履歴に加わります")
    static let importButton = Text(en: "Import", ja: "取り込む")
    static let imported = Text(en: "Imported: %@ new points.", ja: "取り込みました: 新しい地点 %@ 件。")
    static let file = Text(en: "File", ja: "ファイル")
    static let liveTitle = Text(en: "Live location from your phone", ja: "スマートフォンからの現在地")
    static let liveIntro = Text(en: "OwnTracks (HTTP mode): the first URL, your username, and a personal API token with write access as the password. Overland: the second URL, with the same kind of token as its access token (sent as Authorization: Bearer).",
                                ja: "OwnTracks(HTTP モード): 1つ目の URL、ユーザー名、パスワードとして書き込み可能な個人用 API トークン。Overland: 2つ目の URL と、同じ種類のトークンをアクセストークンとして設定します(Authorization: Bearer で送られます)。")
    static let status: [StayStatus: Text] = [
        .open: Text(en: "Waiting", ja: "確認待ち"), .confirmed: Text(en: "Confirmed", ja: "確定済み"),
        .dismissed: Text(en: "Dismissed", ja: "却下済み"), .merged: Text(en: "Already a visit", ja: "既存の訪問"),
    ]

    static func trackPointsStored(_ count: Int, duplicates: Int, _ l: Language) -> String {
        l == .ja ? "トラックポイント \(count) 件を保存" + (duplicates > 0 ? "(保存済み \(duplicates) 件をスキップ)" : "")
            : "\(count) track point\(count == 1 ? "" : "s") stored" + (duplicates > 0 ? " (\(duplicates) already stored)" : "")
    }

    static func staysOffered(_ count: Int, _ l: Language) -> String {
        l == .ja ? "確認待ちの滞在 \(count) 件を検出" : "\(count) stay\(count == 1 ? "" : "s") detected to confirm"
    }

    static func pointsStored(_ count: Int, duplicates: Int, _ l: Language) -> String {
        l == .ja ? "地点 \(count) 件を保存" + (duplicates > 0 ? "(保存済み \(duplicates) 件をスキップ)" : "")
            : "\(count) point\(count == 1 ? "" : "s") stored" + (duplicates > 0 ? " (\(duplicates) already stored)" : "")
    }

    /// The report's lines plus what was stored and found, for the web result and the CLI.
    static func summary(_ result: LocationImportResult, _ l: Language) -> [String] {
        var lines = result.report.lines(l)
        lines.append(result.shape == "gpx" ? trackPointsStored(result.pointsStored, duplicates: result.pointDuplicates, l)
                                           : pointsStored(result.pointsStored, duplicates: result.pointDuplicates, l))
        lines.append(staysOffered(result.staysOffered, l))
        return lines
    }
}
