import Foundation
import Hummingbird
import Prometheus
import ServiceLifecycle
import Synchronization
import Logging

/// `/admin/backups`: what the schedule wrote lately, its size and whether it verified, and "Back up now".
struct BackupAdminRoutes: Sendable {
    let runs: BackupRunStore
    let settings: BackupSettings
    let now: BackupNow

    func register(on router: some RouterMethods<AdminContext>) {
        router.get(RouterPath(BackupPaths.admin), use: page)
        router.post(RouterPath(BackupPaths.backUpNow), use: backUpNow)
    }

    @Sendable func page(_ request: Request, context: AdminContext) async throws -> HTMLPage {
        let me = context.user
        return HTMLPage(BackupViews.page(context: context.base, me: me, settings: settings, runs: try await runs.recent(limit: 20),
                                         progress: now.state(), directory: now.directory))
    }

    @Sendable func backUpNow(_ request: Request, context: AdminContext) async throws -> Response {
        now.start()
        return Response.redirect(to: BackupPaths.admin, type: .found)
    }
}

/// "Back up now": one backup at a time, written with the scheduled backups (or under the data directory's
/// `backups` folder when no schedule is set), verified, and recorded in the same list; its progress is kept
/// here for the page, which refreshes itself while it runs.
final class BackupNow: Sendable {
    struct State: Sendable {
        var running = false
        var phases: [String: BackupProgress] = [:]
    }

    let directory: String
    let runs: BackupRunStore
    let backup: BackupService
    let logger: Logger
    let clock: WallClock
    private let current = Mutex(State())

    init(settings: BackupSettings, dataDirectory: String, runs: BackupRunStore, backup: BackupService, logger: Logger, clock: WallClock) {
        self.clock = clock
        directory = settings.directory ?? (dataDirectory as NSString).appendingPathComponent("backups")
        self.runs = runs
        self.backup = backup
        self.logger = logger
    }

    func state() -> State { current.withLock { $0 } }

    /// Starts a backup unless one is running here; the schedule's lease keeps another instance's out.
    func start() {
        let began = current.withLock { state -> Bool in
            if state.running { return false }
            state = State(running: true)
            return true
        }
        guard began else { return }
        Task.detached { [self] in
            defer { current.withLock { $0.running = false } }
            let holder = UUID().uuidString.lowercased()
            let started = clock.now()
            do {
                guard try await runs.claim(holder: holder, now: started, lease: 6 * 3600) else { return }
                let id = UUID().uuidString.lowercased()
                // Never over a file of the same second (a scheduled backup may have just written one).
                var name = BackupSettings.fileName(at: started)
                for n in 2...99 where FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name)) {
                    name = BackupSettings.fileName(at: started).replacingOccurrences(of: "Z.hibi-backup", with: "Z-\(n).hibi-backup")
                }
                try await runs.start(id: id, fileName: name, now: started)
                var bytes: Int64?
                var verified = false
                var failure: String?
                do {
                    bytes = try await backup.writeVerified(directory: directory, name: name, now: started) { [self] progress in
                        current.withLock { $0.phases[progress.phase] = progress }
                    }
                    verified = true
                } catch let error as BackupError {
                    failure = error.description
                } catch {
                    failure = String(describing: error).prefix(300).description
                }
                try await runs.finish(id: id, now: clock.now(), bytes: bytes, verified: verified, error: failure)
                try await runs.release(holder: holder)
            } catch {
                logger.error("backup now failed", metadata: ["reason": "\(error)"])
            }
        }
    }
}

enum BackupStrings {
    static let title = Text(en: "Backups", ja: "バックアップ")
    static let off = Text(en: "Scheduled backups are off. Set HIBI_BACKUP_DIR (and HIBI_BACKUP_EVERY, HIBI_BACKUP_KEEP) to turn them on; The command hibi backup -o FILE works at any time.",
                          ja: "定期バックアップはオフです。HIBI_BACKUP_DIR(と HIBI_BACKUP_EVERY、HIBI_BACKUP_KEEP)を設定すると有効になります。コマンド hibi backup -o FILE はいつでも使えます。")
    static func on(_ l: Language, _ directory: String, _ every: String, _ keep: Int) -> String {
        Text(en: "Every \(every) into \(directory), keeping the last \(keep).", ja: "\(every)ごとに \(directory) へ。最新 \(keep) 件を保持します。")(l)
    }
    static let none = Text(en: "No scheduled backup yet.", ja: "定期バックアップはまだありません。")
    static let started = Text(en: "Started", ja: "開始")
    static let file = Text(en: "File", ja: "ファイル")
    static let size = Text(en: "Size", ja: "サイズ")
    static let verified = Text(en: "Verified", ja: "検証")
    static let yes = Text(en: "verified", ja: "検証済み")
    static let running = Text(en: "running", ja: "実行中")
    static let failed = Text(en: "failed", ja: "失敗")
    static let backUpNow = Text(en: "Back up now", ja: "今すぐバックアップ")
    static func writesTo(_ l: Language, _ directory: String) -> String {
        Text(en: "Writes a backup of the whole instance into \(directory), then checks it (every member's checksum).",
             ja: "インスタンス全体のバックアップを \(directory) に書き出し、検証します(各メンバーのチェックサム)。")(l)
    }
    static let inProgress = Text(en: "Backing up…", ja: "バックアップ中…")
    static let phaseNames = ["database": Text(en: "Database", ja: "データベース"), "files": Text(en: "Files", ja: "ファイル")]
}

enum BackupViews {
    static func page(context: HibiRequestContext, me: User, settings: BackupSettings, runs: [BackupRun],
                     progress: BackupNow.State = .init(), directory: String = "") -> Node {
        let l = context.language
        let S = BackupStrings.self
        return Layout.page(title: S.title(l), context: context) {
            // While a backup runs the page refreshes itself, so the bars move and the result appears.
            if progress.running { el("meta", .init("http-equiv", "refresh"), .init("content", "2")) }
            el("h1") { S.title(l) }
            Layout.adminNav(l, current: BackupPaths.admin)
            if let directory = settings.directory {
                el("p", .id("backup-schedule")) { S.on(l, directory, every(settings.interval, l), settings.keep) }
            } else {
                el("p", .id("backup-schedule")) { S.off(l) }
            }
            el("section", .class("card"), .id("backup-now")) {
                el("p") { S.writesTo(l, directory) }
                if progress.running {
                    el("p", .id("backup-running"), .role("status")) { S.inProgress(l) }
                    for phase in ["database", "files"] {
                        el("label", .for("backup-\(phase)")) {
                            (S.phaseNames[phase] ?? S.title)(l)
                            if let p = progress.phases[phase], p.total > 0 {
                                el("progress", .id("backup-\(phase)"), .init("max", String(p.total)), .value(String(min(p.done, p.total)))) { "" }
                            } else {
                                el("progress", .id("backup-\(phase)")) { "" }
                            }
                        }
                    }
                } else {
                    el("form", .method("post"), .action(BackupPaths.backUpNow), .id("backup-now-form")) {
                        Layout.csrfField(context)
                        el("button", .type("submit")) { S.backUpNow(l) }
                    }
                }
            }
            if runs.isEmpty {
                el("p") { S.none(l) }
            } else {
                el("div", .class("overflow-auto card")) {
                    el("table", .id("backups"), .class("cards")) {
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
                                    el("td", .class("nowrap"), .data("label", S.started(l))) { Layout.formatDate(run.startedAt, user: me, language: l) }
                                    el("td", .data("label", S.file(l))) { run.fileName }
                                    el("td", .data("label", S.size(l))) { run.bytes.map { ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) } ?? "—" }
                                    el("td", .data("label", S.verified(l))) {
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

    /// The schedule's interval in words ("1 day", "1日"): the page said "1m ごとに".
    static func every(_ interval: TimeInterval, _ l: Language) -> String {
        let seconds = Int(saturating: interval)
        let (count, unit): (Int, CountText) =
            if seconds > 0, seconds % 86400 == 0 { (seconds / 86400, CountText(one: Text(en: "%@ day", ja: "%@日"), other: Text(en: "%@ days", ja: "%@日"))) }
            else if seconds > 0, seconds % 3600 == 0 { (seconds / 3600, CountText(one: Text(en: "%@ hour", ja: "%@時間"), other: Text(en: "%@ hours", ja: "%@時間"))) }
            else if seconds > 0, seconds % 60 == 0 { (seconds / 60, CountText(one: Text(en: "%@ minute", ja: "%@分"), other: Text(en: "%@ minutes", ja: "%@分"))) }
            else { (seconds, CountText(one: Text(en: "%@ second", ja: "%@秒"), other: Text(en: "%@ seconds", ja: "%@秒"))) }
        return unit(l, count)
    }
}
