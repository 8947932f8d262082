import Foundation
import Logging
import Prometheus
import SQLKit
import ServiceLifecycle

/// Scheduled backups, from HIBI_BACKUP_DIR, HIBI_BACKUP_EVERY and HIBI_BACKUP_KEEP. Off unless a folder is given.
public struct BackupSettings: FeatureSettings, Equatable {
    public var directory: String?
    public var interval: TimeInterval = 24 * 3600
    public var keep: Int = 7

    public init(directory: String? = nil, interval: TimeInterval = 24 * 3600, keep: Int = 7) {
        self.directory = directory
        self.interval = interval
        self.keep = keep
    }

    public static var defaults: BackupSettings { BackupSettings() }

    public static func load(environment: [String: String]) throws(ConfigError) -> BackupSettings {
        var settings = BackupSettings()
        if let dir = environment["HIBI_BACKUP_DIR"], !dir.isEmpty { settings.directory = dir }
        if let raw = environment["HIBI_BACKUP_EVERY"], !raw.isEmpty {
            guard let seconds = parseInterval(raw) else {
                throw ConfigError(setting: "HIBI_BACKUP_EVERY", reason: "\"\(raw)\" is not an interval like 30m, 6h or 1d (at least 1m)")
            }
            settings.interval = seconds
        }
        if let raw = environment["HIBI_BACKUP_KEEP"], !raw.isEmpty {
            guard let keep = Int(raw), (1...10_000).contains(keep) else {
                throw ConfigError(setting: "HIBI_BACKUP_KEEP", reason: "\"\(raw)\" is not a number of backups to keep (1-10000)")
            }
            settings.keep = keep
        }
        return settings
    }

    /// "90s", "30m", "24h", "7d": a whole number and one unit, at least a minute, at most a year.
    public static func parseInterval(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, let number = Int(trimmed.dropLast()), number > 0 else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86400
        default: return nil
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow, seconds >= 60, seconds <= 366 * 86400 else { return nil }
        return TimeInterval(seconds)
    }

    /// The archives a schedule wrote, newest first: the name carries the time, so name order is time order.
    static func archives(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("hibi-") && $0.hasSuffix(".hibi-backup") }
            .sorted(by: >)
    }

    static func fileName(at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "hibi-%04d%02d%02dT%02d%02d%02dZ.hibi-backup", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}

extension AppConfig {
    /// The backup schedule's settings (`HIBI_BACKUP_*`, `BackupFeature.settings`).
    public var backups: BackupSettings {
        get { self[settings: BackupSettings.self] }
        set { self[settings: BackupSettings.self] = newValue }
    }
}

/// One scheduled backup as the database remembers it.
public struct BackupRun: Sendable, Equatable {
    public let id: String
    public let startedAt: Date
    public let finishedAt: Date?
    public let fileName: String
    public let bytes: Int64?
    public let verified: Bool
    public let error: String?
}

enum BackupSchema {
    /// Scheduled backups: one row per run, and the platform's lease table (`JobLeases`, first needed here) so
    /// that of several instances on one database only one writes a backup at a time.
    static let migration = Migration(version: 12, name: "backup-runs") { sql, _ in
        try await sql.create(table: "backup_runs")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("started_at", type: .bigint, .notNull)
            .column("finished_at", type: .bigint)
            .column("file_name", type: .text, .notNull)
            .column("bytes", type: .bigint)
            .column("verified", type: .boolean, .notNull)
            .column("error", type: .text)
            .run()
        try await sql.create(index: "backup_runs_started").on("backup_runs").column("started_at").run()
        // The lease table came with scheduled backups; every background job claims through it since (migration 14).
        try await JobLeaseSchema.createTable(sql)
    }
}

public struct BackupRunStore: Sendable {
    let database: Database
    static let leaseName = "scheduled-backup"

    public init(database: Database) {
        self.database = database
    }

    /// Takes the lease if it is free or expired; true when this holder has it (`JobLeases`, shared by all
    /// background work).
    func claim(holder: String, now: Date, lease: TimeInterval) async throws -> Bool {
        try await JobLeases(database: database, holder: holder).claim(Self.leaseName, now: now, lease: lease)
    }

    func release(holder: String) async throws {
        try await JobLeases(database: database, holder: holder).release(Self.leaseName)
    }

    func start(id: String, fileName: String, now: Date) async throws {
        try await BackupRunRow.insert([BackupRunRow(id: id, startedAt: UnixTime(now).seconds, finishedAt: nil, fileName: fileName, bytes: nil,
                                                    verified: false, error: nil)], into: database.sql).run()
    }

    func finish(id: String, now: Date, bytes: Int64?, verified: Bool, error: String?) async throws {
        try await database.sql.update("backup_runs")
            .set("finished_at", to: SQLBind(Int64(saturating: now.timeIntervalSince1970)))
            .set("bytes", to: bytes.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .set("verified", to: SQLBind(verified))
            .set("error", to: error.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .where("id", .equal, SQLBind(id)).run()
    }

    public func recent(limit: Int = 10) async throws -> [BackupRun] {
        try await BackupRunRow.select(database.sql).orderBy("started_at", .descending).limit(limit)
            .all(decoding: BackupRunRow.self).map(\.run)
    }

    /// When the last backup that was written and verified started.
    public func lastGood() async throws -> Date? {
        let row = try await database.sql.raw("SELECT MAX(started_at) AS t FROM backup_runs WHERE verified = \(bind: true)").first()
        return try row?.decode(column: "t", as: Int64?.self).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}

extension BackupService {
    /// Writes the archive `name` into `directory` (made private if new), verifies every member, and returns
    /// its size: what a scheduled backup and "Back up now" both do.
    func writeVerified(directory: String, name: String, now: Date,
                       progress: @escaping @Sendable (BackupProgress) throws -> Void = { _ in }) async throws -> Int64? {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = (directory as NSString).appendingPathComponent(name)
        try await write(to: path, now: now, progress: progress)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        _ = try BackupVerifier.verify(path: path, box: box)
        return bytes
    }
}

/// Writes a backup when one is due, verifies it, and keeps the newest `keep`. Several instances may run
/// this against one database: the lease decides which one writes.
public struct BackupScheduler: Sendable {
    let settings: BackupSettings
    let runs: BackupRunStore
    let backup: BackupService
    let holder: String
    let logger: Logger
    /// When a run finished (its start is the `now` a tick is given).
    let clock: WallClock
    /// Longest a backup may take before another instance may start one.
    var lease: TimeInterval = 6 * 3600

    public init(settings: BackupSettings, runs: BackupRunStore, backup: BackupService, logger: Logger,
                holder: String = UUID().uuidString.lowercased(), clock: WallClock = .system) {
        self.clock = clock
        self.settings = settings
        self.runs = runs
        self.backup = backup
        self.holder = holder
        self.logger = logger
    }

    /// One pass: returns the run written, or nil when none was due or another instance holds the lease.
    @discardableResult
    public func tick(now: Date) async throws -> BackupRun? {
        guard let directory = settings.directory else { return nil }
        if let last = try await runs.recent(limit: 1).first, now.timeIntervalSince(last.startedAt) < settings.interval { return nil }
        guard try await runs.claim(holder: holder, now: now, lease: lease) else { return nil }
        // Asked again under the lease: another instance may have finished one in between.
        if let last = try await runs.recent(limit: 1).first, now.timeIntervalSince(last.startedAt) < settings.interval {
            try await runs.release(holder: holder)
            return nil
        }
        let id = UUID().uuidString.lowercased()
        let name = BackupSettings.fileName(at: now)
        try await runs.start(id: id, fileName: name, now: now)
        var bytes: Int64?
        var verified = false
        var failure: String?
        do {
            bytes = try await backup.writeVerified(directory: directory, name: name, now: now)
            verified = true
            for old in BackupSettings.archives(in: directory).dropFirst(settings.keep) {
                try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(old))
            }
            logger.notice("scheduled backup written", metadata: ["file": "\(name)", "bytes": "\(bytes ?? 0)"])
        } catch let error as BackupError {
            failure = error.description
        } catch {
            failure = String(describing: error).prefix(300).description
        }
        if let failure { logger.error("scheduled backup failed", metadata: ["file": "\(name)", "reason": "\(failure)"]) }
        let finished = clock.now()
        try await runs.finish(id: id, now: finished, bytes: bytes, verified: verified, error: failure)
        try await runs.release(holder: holder)
        return BackupRun(id: id, startedAt: now, finishedAt: finished, fileName: name, bytes: bytes, verified: verified, error: failure)
    }
}

/// Runs the scheduler while the server runs, and keeps the age of the last good backup in /metrics.
struct BackupSchedulerService: Service {
    let scheduler: BackupScheduler
    let runs: BackupRunStore
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let clock: WallClock
    var interval: Duration = .seconds(60)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await pass()
                try await Task.sleep(for: interval)
            }
        }
    }

    /// One check at the clock's time, what `run` does every `interval`: writes a backup if one is due (the run
    /// written, or nil), and sets the age of the last good one in /metrics. A test calls it with its own clock.
    @discardableResult
    func pass() async -> BackupRun? {
        // The registry hands back the same gauge for the same name.
        let age = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "hibi", subsystem: "backup", metricName: "last_success_age", unitName: "seconds",
            helpText: "Seconds since the last scheduled backup that was written and verified (-1: none yet)"))
        do {
            let written = try await scheduler.tick(now: clock.now())
            let last = try await runs.lastGood()
            age.set(last.map { clock.now().timeIntervalSince($0) } ?? -1)
            return written
        } catch {
            logger.warning("backup schedule check failed", metadata: ["reason": "\(String(describing: error).prefix(200))"])
            return nil
        }
    }
}
