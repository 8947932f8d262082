/// Strings of the video pages, in English and Japanese.
enum VideoStrings {
    static let library = Text(en: "Library", ja: "ライブラリ")
    static let playlists = Text(en: "Playlists", ja: "プレイリスト")
    static let history = Text(en: "History", ja: "履歴")
    static let upload = Text(en: "Upload a video", ja: "動画をアップロード")
    static let uploadButton = Text(en: "Upload", ja: "アップロード")
    static let uploadHint = Text(en: "MP4 (H.264/AAC) or WebM plays everywhere. Up to %@ MB.", ja: "MP4(H.264/AAC)か WebM ならどこでも再生できます。%@ MB まで。")
    static let uploading = Text(en: "Uploading…", ja: "アップロード中…")
    static let processing = Text(en: "Examining the video…", ja: "動画を解析しています…")
    static let uploadDone = Text(en: "Uploaded.", ja: "アップロードしました。")
    static let uploadFailed = Text(en: "The upload failed:", ja: "アップロードに失敗しました:")
    static let uploadAborted = Text(en: "The upload was interrupted. Nothing was kept.", ja: "アップロードが中断されました。何も保存されていません。")
    static let chooseFile = Text(en: "Video file", ja: "動画ファイル")
    static let needsScript = Text(en: "Uploading needs JavaScript.", ja: "アップロードには JavaScript が必要です。")
    static let continueWatching = Text(en: "Continue watching", ja: "続きから見る")
    static let hide = Text(en: "Hide", ja: "非表示")
    static let hideFromContinue = Text(en: "Hide from “Continue watching”", ja: "「続きから見る」から外す")
    static let search = Text(en: "Search", ja: "検索")
    static let searchPlaceholder = Text(en: "Title", ja: "タイトル")
    static let tag = Text(en: "Tag", ja: "タグ")
    static let anyTag = Text(en: "Any tag", ja: "すべてのタグ")
    static let favoritesOnly = Text(en: "Favorites only", ja: "お気に入りのみ")
    static let minRating = Text(en: "Rating", ja: "評価")
    static let anyRating = Text(en: "Any rating", ja: "すべての評価")
    static let atLeast = Text(en: "%@ or more", ja: "%@ 以上")
    static let filter = Text(en: "Filter", ja: "絞り込む")
    static let clearFilter = Text(en: "Show all", ja: "すべて表示")
    static let noVideos = Text(en: "No videos yet. Upload one above.", ja: "動画はまだありません。上からアップロードしてください。")
    static let noMatches = Text(en: "No video matches this search.", ja: "条件に合う動画はありません。")
    static let shared = Text(en: "Shared", ja: "共有")
    static let favorite = Text(en: "Favorite", ja: "お気に入り")
    static let cannotPlay = Text(en: "Cannot play in a browser", ja: "ブラウザで再生できません")
    static let watched = Text(en: "Watched", ja: "視聴済み")
    static let scanLibrary = Text(en: "Scan shared folder", ja: "共有フォルダーをスキャン")
    static let scanned = Text(en: "Shared folder scanned: %@ added, %@ changed, %@ removed.", ja: "共有フォルダーをスキャンしました: 追加 %@、変更 %@、削除 %@。")
    static let play = Text(en: "Play", ja: "再生")
    static let pause = Text(en: "Pause", ja: "一時停止")
    static let restart = Text(en: "Restart", ja: "最初から")
    static let resumeFrom = Text(en: "Resuming at %@.", ja: "%@ から再開します。")
    static let shortcuts = Text(en: "Keyboard shortcuts", ja: "キーボードショートカット")
    static let shortcutList: [(String, Text)] = [
        ("Space / K", Text(en: "play or pause", ja: "再生・一時停止")),
        ("← / →", Text(en: "back or forward 5 s", ja: "5 秒戻る・進む")),
        ("J / L", Text(en: "back or forward 10 s", ja: "10 秒戻る・進む")),
        ("↑ / ↓", Text(en: "volume", ja: "音量")),
        ("0 / Home", Text(en: "restart", ja: "最初から")),
        ("M", Text(en: "mute", ja: "ミュート")),
        ("C", Text(en: "captions on or off", ja: "字幕の表示・非表示")),
        ("F", Text(en: "full screen", ja: "全画面")),
    ]
    static let details = Text(en: "Your notes", ja: "メモ")
    static let title = Text(en: "Title", ja: "タイトル")
    static let tags = Text(en: "Tags (comma separated)", ja: "タグ(カンマ区切り)")
    static let rating = Text(en: "Rating", ja: "評価")
    static let noRating = Text(en: "No rating", ja: "評価なし")
    static let markWatched = Text(en: "Watched", ja: "視聴済み")
    static let addToPlaylist = Text(en: "Add to playlist", ja: "プレイリストに追加")
    static let add = Text(en: "Add", ja: "追加")
    static let inPlaylists = Text(en: "In playlists:", ja: "含まれるプレイリスト:")
    static let noPlaylistsYet = Text(en: "No playlists yet.", ja: "プレイリストはまだありません。")
    static let createPlaylistFirst = Text(en: "Create a playlist", ja: "プレイリストを作成")
    static let about = Text(en: "About this file", ja: "ファイル情報")
    static let fileName = Text(en: "File", ja: "ファイル")
    static let size = Text(en: "Size", ja: "サイズ")
    static let length = Text(en: "Length", ja: "長さ")
    static let codecs = Text(en: "Codecs", ja: "コーデック")
    static let resolution = Text(en: "Resolution", ja: "解像度")
    static let playCount = Text(en: "Plays", ja: "再生回数")
    static let lastPlayed = Text(en: "Last played", ja: "最終再生")
    static let neverPlayed = Text(en: "never", ja: "なし")
    static let deleteVideo = Text(en: "Delete this video", ja: "この動画を削除")
    static let confirmDelete = Text(en: "Delete this video for good?", ja: "この動画を完全に削除しますか?")
    static let deleted = Text(en: "The video was deleted.", ja: "動画を削除しました。")
    static let captions = Text(en: "Captions", ja: "字幕")
    static let historyIntro = Text(en: "Videos you played, latest first.", ja: "再生した動画(新しい順)。")
    static let clearHistory = Text(en: "Clear history", ja: "履歴を消去")
    static let confirmClearHistory = Text(en: "Clear the whole history? Positions and play counts stay.", ja: "履歴をすべて消去しますか?再生位置と再生回数は残ります。")
    static let historyEmpty = Text(en: "Nothing played yet.", ja: "まだ何も再生していません。")
    static let historyCleared = Text(en: "History cleared.", ja: "履歴を消去しました。")
    static let newPlaylist = Text(en: "New playlist", ja: "新しいプレイリスト")
    static let name = Text(en: "Name", ja: "名前")
    static let create = Text(en: "Create", ja: "作成")
    static let rename = Text(en: "Rename", ja: "名前を変更")
    static let deletePlaylist = Text(en: "Delete playlist", ja: "プレイリストを削除")
    static let confirmDeletePlaylist = Text(en: "Delete this playlist? The videos stay.", ja: "このプレイリストを削除しますか?動画は残ります。")
    static let playAll = Text(en: "Play in order", ja: "順番に再生")
    static let moveUp = Text(en: "Move up", ja: "上へ")
    static let moveDown = Text(en: "Move down", ja: "下へ")
    static let remove = Text(en: "Remove", ja: "外す")
    static let playlistEmpty = Text(en: "This playlist is empty. Add videos from their page.", ja: "このプレイリストは空です。動画のページから追加してください。")
    static let videosCount = CountText(one: Text(en: "%@ video", ja: "%@ 本"), other: Text(en: "%@ videos", ja: "%@ 本"))
    static let nextInPlaylist = Text(en: "Next in “%@”:", ja: "「%@」の次:")
    static let playlistEnd = Text(en: "Last video of “%@”.", ja: "「%@」の最後の動画です。")
    static let saved = Text(en: "Saved.", ja: "保存しました。")
    static let added = Text(en: "Added to the playlist.", ja: "プレイリストに追加しました。")
}

extension Text {
    /// Fills each `%@` in turn.
    func callAsFunction(_ language: Language, _ arguments: [String]) -> String {
        var result = ""
        var remaining = arguments[...]
        for (index, part) in self(language).components(separatedBy: "%@").enumerated() {
            if index > 0 { result += remaining.popFirst() ?? "" }
            result += part
        }
        return result
    }
}
