enum HealthStrings {
    static let health = Text(en: "Health", ja: "健康")
    static let overview = Text(en: "Overview", ja: "概要")
    static let records = Text(en: "Records", ja: "記録")
    static let addRecord = Text(en: "Add a record", ja: "記録を追加")
    static let type = Text(en: "Type", ja: "種類")
    static let value = Text(en: "Value", ja: "値")
    static let unit = Text(en: "Unit", ja: "単位")
    static let time = Text(en: "Time", ja: "日時")
    static let endTime = Text(en: "End (optional)", ja: "終了(任意)")
    static let source = Text(en: "Source", ja: "記録元")
    static let add = Text(en: "Add", ja: "追加")
    static let save = Text(en: "Save", ja: "保存")
    static let edit = Text(en: "Edit", ja: "編集")
    static let delete = Text(en: "Delete", ja: "削除")
    static let filter = Text(en: "Filter", ja: "絞り込み")
    static let allTypes = Text(en: "All types", ja: "すべての種類")
    static let from = Text(en: "From", ja: "開始日")
    static let to = Text(en: "To", ja: "終了日")
    static let noRecords = Text(en: "No records yet. Add one above or import your Apple Health export.", ja: "まだ記録がありません。上のフォームから追加するか、Apple ヘルスケアの書き出しを読み込んでください。")
    static let recordSaved = Text(en: "Record saved.", ja: "記録を保存しました。")
    static let deleteRecordConfirm = Text(en: "Delete this record? It cannot be undone.", ja: "この記録を削除しますか?元に戻せません。")
    static let deleteGoalConfirm = Text(en: "Delete this goal? Its progress is not kept.", ja: "この目標を削除しますか?進み具合は残りません。")
    static let recordDeleted = Text(en: "Record deleted.", ja: "記録を削除しました。")
    static let newBadge = Text(en: "New badge: %@", ja: "新しいバッジ: %@")
    static let importTitle = Text(en: "Import & export", ja: "読み込みと書き出し")
    static let appleHealth = Text(en: "Apple Health export", ja: "Apple ヘルスケアの書き出し")
    static let appleHealthHelp = Text(en: "On iPhone: Health → your picture → Export All Health Data. Upload export.zip as it is, or export.xml. Strava's bulk export ZIP (activities.csv with its activities folder) is read here too.",
                                      ja: "iPhone のヘルスケア → プロフィール写真 → 「すべてのヘルスケアデータを書き出す」。export.zip をそのまま、または export.xml をアップロードしてください。Strava の一括エクスポートの ZIP(activities.csv と activities フォルダ)もここで読み込めます。")
    static let chooseFile = Text(en: "File", ja: "ファイル")
    static let upload = Text(en: "Upload and import", ja: "アップロードして読み込む")
    static let importing = Text(en: "Importing…", ja: "読み込み中…")
    /// The same words as the report's lines under it ("added", "already there"): the headline said "duplicates skipped".
    static let importDone = Text(en: "Import finished: %@ added, %@ already there.", ja: "読み込み完了: %@ 件追加、%@ 件は取り込み済みでした。")
    static let jobCounts = Text(en: "%1 added, %2 already there", ja: "%1 件追加、%2 件は取り込み済み")
    static func jobState(_ state: ImportState) -> Text {
        switch state {
        case .queued: Text(en: "waiting", ja: "待機中")
        case .running: Text(en: "importing", ja: "読み込み中")
        case .done: Text(en: "finished", ja: "完了")
        case .failed: Text(en: "failed", ja: "失敗")
        }
    }
    static let importFailed = Text(en: "Import failed", ja: "読み込みに失敗しました")
    static let recentImports = Text(en: "Recent imports", ja: "最近の読み込み")
    static let electrocardiograms = Text(en: "Electrocardiograms (from Apple Health)", ja: "心電図(Apple ヘルスケアから)")
    static let csv = Text(en: "CSV", ja: "CSV")
    static let csvHelp = Text(en: "Columns: type,value,unit,start,end,source,device,category (times in ISO-8601).", ja: "列: type,value,unit,start,end,source,device,category(日時は ISO-8601)。")
    static let csvImport = Text(en: "Import CSV", ja: "CSV を読み込む")
    static let csvExport = Text(en: "Download all records as CSV", ja: "すべての記録を CSV でダウンロード")
    static let trends = Text(en: "Trends", ja: "傾向")
    static let insights = Text(en: "Insights", ja: "インサイト")
    static let everyDay = Text(en: "every day", ja: "毎日")
    static let noDeadline = Text(en: "no deadline", ja: "期限なし")
    static let deadlineOptional = Text(en: "Deadline (optional)", ja: "期限(任意)")
    static let deadlineHelp = Text(en: "Leave empty for no deadline: steps, energy and distance then count per day (10,000 steps a day).",
                                   ja: "空欄なら期限なし。歩数・エネルギー・距離は1日ごとに数えます(1日1万歩など)。")
    static let period = Text(en: "Period", ja: "期間")
    static let allTime = Text(en: "All time", ja: "全期間")
    /// "Your Heart rate runs from Apr 2016 to Sep 2018", then a link reading `showIt`.
    static let dataRuns = Text(en: "Your %@ runs from %@ to %@", ja: "%@の記録は%@から%@までです")
    static let showIt = Text(en: "show it", ja: "表示する")
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// A title inside a sentence: "Heart rate" → "heart rate", but "VO2 max" stays as it is.
    static func inSentence(_ title: String) -> String {
        let letters = Array(title)
        guard letters.count > 1, letters[0].isUppercase, letters[1].isLowercase else { return title }
        return letters[0].lowercased() + String(letters.dropFirst())
    }

    /// "Apr 2016" / "2016年4月".
    static func month(_ day: DayKey, _ language: Language) -> String {
        Text(en: "\(monthNames[(day.month - 1) % 12]) \(day.year)", ja: "\(day.year)年\(day.month)月")(language)
    }
    static let newer = Text(en: "Newer", ja: "新しい記録")
    static let older = Text(en: "Older", ja: "古い記録")
    static let pageNumber = Text(en: "Page %@", ja: "%@ ページ目")
    static let recordPages = Text(en: "Pages of records", ja: "記録のページ")
    static let confidence = Text(en: "confidence", ja: "信頼度")
    static let movingAverage = Text(en: "moving average", ja: "移動平均")
    static let dailyValues = Text(en: "values", ja: "値")
    static let goals = Text(en: "Goals", ja: "目標")
    static let profile = Text(en: "Profile", ja: "プロフィール")
    static let name = Text(en: "Name (private, only shown on a share card if you choose)", ja: "名前(非公開。シェアカードには選んだときだけ表示)")
    static let birthDate = Text(en: "Birth date", ja: "生年月日")
    static let height = Text(en: "Height (cm)", ja: "身長(cm)")
    static let targetWeight = Text(en: "Target weight", ja: "目標体重")
    static let units = Text(en: "Units", ja: "単位")
    static let newGoal = Text(en: "New goal", ja: "新しい目標")
    static let target = Text(en: "Target", ja: "目標値")
    static let deadline = Text(en: "Deadline", ja: "期限")
    static let noGoals = Text(en: "No goals yet.", ja: "目標はまだありません。")
    static let active = Text(en: "Active", ja: "進行中")
    static let achieved = Text(en: "Achieved", ja: "達成")
    static let missed = Text(en: "Missed", ja: "未達成")
    static let badges = Text(en: "Badges", ja: "バッジ")
    static let earnedOn = Text(en: "Earned %@", ja: "%@ に獲得")
    static let locked = Text(en: "Locked", ja: "未獲得")
    static let reminders = Text(en: "Reminders", ja: "リマインダー")
    static let remindersHelp = Text(en: "Reminders show here and, if you give a webhook URL, Hibi POSTs to it at that time.",
                                    ja: "リマインダーはここに表示されます。Webhook URL を入力すると、その時刻に Hibi が POST します。")
    static let message = Text(en: "Message", ja: "メッセージ")
    static let webhook = Text(en: "Webhook URL (optional)", ja: "Webhook URL(任意)")
    static let days = Text(en: "Days (none = every day)", ja: "曜日(未選択 = 毎日)")
    static let noReminders = Text(en: "No reminders.", ja: "リマインダーはありません。")
    static let next = Text(en: "Next: %@", ja: "次回: %@")
    static let share = Text(en: "Share card", ja: "シェアカード")
    static let shareHelp = Text(en: "Pick what the image shows. Nothing personal appears unless you tick it.", ja: "画像に載せる内容を選んでください。チェックしない限り個人情報は載りません。")
    static let weekSteps = Text(en: "This week's steps", ja: "今週の歩数")
    static let stepsToday = Text(en: "Steps today", ja: "今日の歩数")
    static let streak = Text(en: "Current streak", ja: "現在の連続記録")
    static let latestBadge = Text(en: "Latest badge", ja: "最新のバッジ")
    static let weightChange = Text(en: "Weight change this month", ja: "今月の体重の変化")
    static let includeName = Text(en: "My name (personal)", ja: "自分の名前(個人情報)")
    static let preview = Text(en: "Preview", ja: "プレビュー")
    static let downloadPNG = Text(en: "Download PNG", ja: "PNG をダウンロード")
    static let daysCount = CountText(one: Text(en: "%@ day", ja: "%@ 日"), other: Text(en: "%@ days", ja: "%@ 日"))
    static let weekdayNames = [Text(en: "Sun", ja: "日"), Text(en: "Mon", ja: "月"), Text(en: "Tue", ja: "火"), Text(en: "Wed", ja: "水"),
                               Text(en: "Thu", ja: "木"), Text(en: "Fri", ja: "金"), Text(en: "Sat", ja: "土")]
    static let shareTitle = Text(en: "My health this week", ja: "今週の健康記録")
    static let shareFooter = Text(en: "Recorded with Hibi", ja: "日々 で記録")
    static let other = Text(en: "Other (imported)", ja: "その他(読み込み)")

    /// Fills each %@ in turn.
    static func fill(_ template: String, _ arguments: String...) -> String {
        var result = template
        for argument in arguments {
            guard let range = result.range(of: "%@") else { break }
            result.replaceSubrange(range, with: argument)
        }
        return result
    }
}

/// Sleep: stage names and the day page's night, in English and Japanese.
enum SleepStrings {
    static func stage(_ stage: SleepNights.Stage) -> Text {
        switch stage {
        case .inBed: Text(en: "In bed", ja: "ベッドにいた時間")
        case .awake: Text(en: "Awake", ja: "覚醒")
        case .rem: Text(en: "REM", ja: "レム睡眠")
        case .core: Text(en: "Core", ja: "コア睡眠")
        case .deep: Text(en: "Deep", ja: "深い睡眠")
        case .asleep: Text(en: "Asleep (no stage)", ja: "睡眠(段階なし)")
        }
    }

    static let night = Text(en: "Sleep", ja: "睡眠")
    static let chartLabel = Text(en: "Sleep stages through the night", ja: "夜間の睡眠段階")
    static let fromTotals = Text(en: "Only totals were recorded for this night, so there is no chart over time.",
                                 ja: "この夜は合計時間だけが記録されているため、時間経過のグラフはありません。")

    static func asleep(_ hours: Double, start: String, end: String, _ l: Language) -> String {
        l == .ja ? "\(start)〜\(end)、睡眠 \(HealthFormat.number(hours)) 時間" : "\(start)–\(end), \(HealthFormat.number(hours)) h asleep"
    }

    static func hours(_ hours: Double, _ l: Language) -> String {
        l == .ja ? "\(HealthFormat.number(hours)) 時間" : "\(HealthFormat.number(hours)) h"
    }
}
