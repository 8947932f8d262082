import Foundation
import Logging
import ServiceLifecycle

/// Sends reminder webhooks. The slot is claimed in the database before the POST, so a reminder is
/// sent at most once per slot, whatever restarts or overlapping ticks happen.
public struct ReminderSender: Sendable {
    let reminders: HealthReminderStore
    let outbound: OutboundHTTP
    let logger: Logger
    /// How late a send may still be (e.g. the server was restarting at the time).
    public var grace: TimeInterval = 15 * 60

    public init(reminders: HealthReminderStore, outbound: OutboundHTTP = OutboundHTTP(), logger: Logger) {
        self.reminders = reminders
        self.outbound = outbound
        self.logger = logger
    }

    /// One pass: returns how many webhooks were sent.
    @discardableResult
    public func tick(now: Date) async -> Int {
        var sent = 0
        guard let due = try? await reminders.withWebhooks() else { return 0 }
        for (reminder, zoneName) in due {
            let zone = TimeZone(identifier: zoneName) ?? .gmt
            guard let url = reminder.webhookURL,
                  let slot = ReminderSchedule.dueSlot(minuteOfDay: reminder.minuteOfDay, weekdays: reminder.weekdays, timeZone: zone, now: now, grace: grace),
                  slot > (reminder.lastSentSlot ?? Int64.min) else { continue }
            guard (try? await reminders.claim(id: reminder.id, slot: slot)) == true else { continue }
            if await post(url: url, reminder: reminder, slot: slot) { sent += 1 }
        }
        return sent
    }

    func post(url: String, reminder: Reminder, slot: Int64) async -> Bool {
        let body: [String: Any] = ["app": "Hibi", "kind": "health-reminder", "id": reminder.id, "message": reminder.message,
                                   "scheduledAt": Date(timeIntervalSince1970: TimeInterval(slot)).formatted(.iso8601)]
        guard let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else { return false }
        let outcome = await outbound.postJSON(data, to: url)
        if outcome != .delivered { logger.warning("reminder webhook \(outcome.rawValue)", metadata: ["reminder": "\(reminder.id)"]) }
        return outcome == .delivered
    }
}

/// Background work of the health feature while the server runs: resumes imports no instance is running
/// (a previous run, or another instance that died, left them unfinished), and sends reminder webhooks
/// every little while.
struct HealthBackgroundService: Service {
    let health: HealthService
    let importer: AppleHealthImporter
    let sender: ReminderSender
    let users: any PeopleDirectory
    let launcher: HealthImportLauncher
    let logger: Logger
    /// The platform's clock (tests move it): when a job failed, which reminders are due.
    var clock: WallClock = .system
    var interval: Duration = .seconds(20)

    static let stoppedTwice = Text(
        en: "This import stopped the server twice and was not resumed again. Records imported before that are kept; check the file, or ask the administrator.",
        ja: "このインポートはサーバーを 2 回停止させたため、再開しませんでした。それまでに取り込んだ記録は残っています。ファイルを確認するか、管理者に相談してください。")

    /// Picks up the web uploads whose lease has expired: its holder stopped (this instance before a
    /// restart, or another one that died). A job another live instance runs keeps its lease fresh.
    /// Returns the jobs launched here.
    @discardableResult
    func resumeInterrupted() async -> [String] {
        await resume((try? await health.jobs.interruptedUploads()) ?? [])
    }

    /// Resumes those of `jobs` (as listed a moment ago) that are still interrupted and no instance holds.
    func resume(_ jobs: [ImportJob]) async -> [String] {
        var launched: [String] = []
        for listed in jobs {
            guard let path = listed.uploadPath else { continue }
            let lease = HealthImportLauncher.leaseName(uploadPath: path)
            // A live lease, this instance's own included: the job is running (or about to), leave it.
            guard (try? await launcher.leases.isHeld(lease)) == false else { continue }
            // Claimed before anything is decided, so two instances never both fail or both resume a job.
            guard (try? await launcher.leases.claim(lease, lease: launcher.lease)) == true else { continue }
            // Read again under the lease: between the list and the claim another instance may have resumed the
            // job, finished it, removed its upload and released the lease; that job is done, not "file gone".
            guard let job = try? await health.jobs.interruptedUpload(id: listed.id) else {
                try? await launcher.leases.release(lease)
                continue
            }
            guard FileManager.default.fileExists(atPath: path), let user = try? await users.find(id: job.userID) else {
                try? await health.jobs.setState(job.id, .failed, error: Text(en: "The uploaded file is gone; upload it again.",
                                                                              ja: "アップロードされたファイルがありません。もう一度アップロードしてください。"), now: clock.now())
                try? await launcher.leases.release(lease)
                continue
            }
            // Each run counts itself when it starts; two runs that never finished both ended with the process
            // (an out-of-memory kill, say). A third would most likely do the same, at every start: give up.
            if job.attempts >= 2 {
                try? await health.jobs.setState(job.id, .failed, error: Self.stoppedTwice, now: clock.now())
                try? await launcher.leases.release(lease)
                logger.warning("health import not resumed: it stopped the server twice", metadata: ["job": "\(job.id)"])
                continue
            }
            logger.notice("resuming health import", metadata: ["job": "\(job.id)"])
            launcher.launch(job: job, path: path, user: user)
            launched.append(job.id)
        }
        return launched
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await resumeInterrupted()
                await sender.tick(now: clock.now())
                try await Task.sleep(for: interval)
            }
        }
    }
}

/// Runs an uploaded import off the request under a lease named after its upload, and removes the upload
/// when the job is over. While the import runs the lease is renewed; if this instance dies, another one
/// resumes the job from its last committed checkpoint once the lease has expired.
struct HealthImportLauncher: Sendable {
    let importer: AppleHealthImporter
    let leases: JobLeases
    let logger: Logger
    /// How long a holder that stopped renewing keeps the job before another instance may resume it.
    var lease: TimeInterval = 30

    static func leaseName(uploadPath: String) -> String {
        "health-import:" + (uploadPath as NSString).lastPathComponent
    }

    func launch(job: ImportJob, path: String, user: User) {
        Task.detached(priority: .utility) {
            do {
                let ran: Void? = try await leases.run(Self.leaseName(uploadPath: path), lease: lease, logger: logger) {
                    _ = try await importer.run(job: job, path: path, user: user)
                }
                // nil: another instance holds the job and runs it.
                if ran != nil { try? FileManager.default.removeItem(atPath: path) }
            } catch is HealthError {
                try? FileManager.default.removeItem(atPath: path)
            } catch {
                // Left in place: the next pass resumes it from the checkpoint.
                logger.error("health import interrupted", metadata: ["job": "\(job.id)"])
            }
        }
    }
}

/// Turns the share card's SVG into a PNG with rsvg-convert (Debian's librsvg2-bin).
public struct ShareCardRenderer: Sendable {
    public var executable = "/usr/bin/rsvg-convert"

    public init() {}

    public func png(svg: String) async throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw HealthError.renderFailed }
        // A share card is a few hundred kilobytes; ten seconds is far more than rsvg-convert needs for it.
        guard let result = try? await ChildProcess.run(executable, ["--format=png"], input: Data(svg.utf8), outputLimit: 16 << 20,
                                                       timeout: .seconds(10)),
              result.succeeded, result.output.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { throw HealthError.renderFailed }
        return result.output
    }
}
