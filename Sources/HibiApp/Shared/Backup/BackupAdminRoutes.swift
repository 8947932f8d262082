import Foundation
import Hummingbird
import Prometheus
import ServiceLifecycle

/// `/admin/backups`: what the schedule wrote lately, its size and whether it verified.
struct BackupAdminRoutes: Sendable {
    let runs: BackupRunStore
    let settings: BackupSettings

    func register(on router: some RouterMethods<AdminContext>) {
        router.get(RouterPath(AccountPaths.adminBackups)) { _, context in
            let me = context.user
            return HTMLPage(BackupViews.page(context: context.base, me: me, settings: settings, runs: try await runs.recent(limit: 20)))
        }
    }
}

enum BackupStrings {
    static let title = Text(en: "Backups", ja: "バックアップ")
    static let off = Text(en: "Scheduled backups are off. Set HIBI_BACKUP_DIR (and HIBI_BACKUP_EVERY, HIBI_BACKUP_KEEP) to turn them on; The command hibi backup -o FILE works at any time.",
                          ja: "定期バックアップはオフです。HIBI_BACKUP_DIR(と HIBI_BACKUP_EVERY、HIBI_BACKUP_KEEP)を設定すると有効になります。コマンド hibi backup -o FILE はいつでも使えます。")
    static func on(_ l: Language, _ directory: String, _ every: String, _ keep: Int) -> String {
        Text(en: "Every \(every) into \(directory), keeping the last \(keep).", ja: "\(every) ごとに \(directory) へ。最新 \(keep) 件を保持します。")(l)
    }
    static let none = Text(en: "No scheduled backup yet.", ja: "定期バックアップはまだありません。")
    static let started = Text(en: "Started", ja: "開始")
    static let file = Text(en: "File", ja: "ファイル")
    static let size = Text(en: "Size", ja: "サイズ")
    static let verified = Text(en: "Verified", ja: "検証")
    static let yes = Text(en: "verified", ja: "検証済み")
    static let running = Text(en: "running", ja: "実行中")
    static let failed = Text(en: "failed", ja: "失敗")
}

enum BackupViews {
    static func page(context: HibiRequestContext, me: User, settings: BackupSettings, runs: [BackupRun]) -> Node {
        let l = context.language
        let S = BackupStrings.self
        return Layout.page(title: S.title(l), context: context) {
            el("h1") { S.title(l) }
            AccountViews.adminNav(l, current: AccountPaths.adminBackups)
            if let directory = settings.directory {
                el("p", .id("backup-schedule")) { S.on(l, directory, every(settings.interval), settings.keep) }
            } else {
                el("p", .id("backup-schedule")) { S.off(l) }
            }
            if runs.isEmpty {
                el("p") { S.none(l) }
            } else {
                el("div", .class("overflow-auto card")) {
                    el("table", .id("backups")) {
                        el("thead") {
                            el("tr") {
                                el("th") { S.started(l) }
                                el("th") { S.file(l) }
                                el("th") { S.size(l) }
                                el("th") { S.verified(l) }
                            }
                        }
                        el("tbody") {
                            for run in runs {
                                el("tr") {
                                    el("td") { AccountViews.formatDate(run.startedAt, user: me, language: l) }
                                    el("td") { run.fileName }
                                    el("td") { run.bytes.map { ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) } ?? "—" }
                                    el("td") {
                                        if run.verified { S.yes(l) } else if run.finishedAt == nil { S.running(l) } else { S.failed(l) + (run.error.map { ": " + $0 } ?? "") }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func every(_ interval: TimeInterval) -> String {
        let seconds = Int(saturating: interval)
        if seconds % 86400 == 0 { return "\(seconds / 86400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
