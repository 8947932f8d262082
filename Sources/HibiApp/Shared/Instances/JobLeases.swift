import Foundation
import Logging
import SQLKit

/// The platform's lease table. Its first columns are created inside Backup's migration 12 ("backup-runs", where
/// scheduled backups first needed a lease), which calls `createTable`; migration 14 adds the heartbeat. Declared here,
/// by its owner, so the step that ran keeps its version, name and effect while the table is Shared's.
enum JobLeaseSchema {
    /// The table as migration 12 made it: a step that ran is never changed, so neither is this.
    static func createTable(_ sql: any SQLDatabase) async throws {
        try await sql.create(table: "job_leases")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("holder", type: .text, .notNull)
            .column("lease_until", type: .bigint, .notNull)
            .run()
    }

    /// The lease table of scheduled backups (migration 12) becomes the one claim mechanism of all
    /// background work; the heartbeat says when the holder last showed it is alive. Change counters let
    /// per-instance caches check themselves against the database.
    static let heartbeat = Migration(version: 14, name: "job-lease-heartbeat-change-counters") { sql, _ in
        try await sql.alter(table: "job_leases").column("heartbeat_at", type: .bigint, .notNull, .default(SQLLiteral.numeric("0"))).run()
        try await ChangeCounters.createTable(sql)
    }
}

/// Background work claimed in the database so that, of several instances on one database, exactly one
/// does each piece. A lease has a holder (one id per running instance) and an expiry the holder pushes
/// forward while it works (the heartbeat); once it has expired (the holder died) any instance may take
/// it over. Every statement is a single atomic UPDATE, so SQLite (one instance) runs the same code.
public struct JobLeases: Sendable {
    let database: Database
    /// Who claims: one id per running instance (`AppCore.instanceID`).
    public let holder: String
    /// Tells leases' expiry; the platform's clock, so tests can move time.
    let clock: WallClock

    public init(database: Database, holder: String, clock: WallClock = .system) {
        self.database = database
        self.holder = holder
        self.clock = clock
    }

    static func seconds(_ date: Date) -> Int64 { Int64(saturating: date.timeIntervalSince1970.rounded(.down)) }

    /// Takes `name` if it is free, expired or already ours; true when this holder has it afterwards.
    /// Insert-if-absent, then one conditional UPDATE: two instances asking at once cannot both get it.
    public func claim(_ name: String, now: Date? = nil, lease: TimeInterval) async throws -> Bool {
        let now = now ?? clock.now()
        let nowSeconds = Self.seconds(now), until = Self.seconds(now + lease)
        try await JobLeaseRow.insert([JobLeaseRow(name: name, holder: "", leaseUntil: 0, heartbeatAt: 0)], into: database.sql)
            .ignoringConflicts(with: ["name"]).run()
        let rows = try await database.sql.raw("""
            UPDATE job_leases SET holder = \(bind: holder), lease_until = \(bind: until), heartbeat_at = \(bind: nowSeconds)
            WHERE name = \(bind: name) AND (lease_until < \(bind: nowSeconds) OR holder = \(bind: holder)) RETURNING name
            """).all()
        return !rows.isEmpty
    }

    /// Pushes the expiry forward; false when the lease was lost (taken over after it expired).
    public func renew(_ name: String, now: Date? = nil, lease: TimeInterval) async throws -> Bool {
        let now = now ?? clock.now()
        let rows = try await database.sql.raw("""
            UPDATE job_leases SET lease_until = \(bind: Self.seconds(now + lease)), heartbeat_at = \(bind: Self.seconds(now))
            WHERE name = \(bind: name) AND holder = \(bind: holder) RETURNING name
            """).all()
        return !rows.isEmpty
    }

    /// Frees the lease at once (work finished), so the next claim need not wait for the expiry.
    public func release(_ name: String) async throws {
        try await database.sql.raw("UPDATE job_leases SET lease_until = 0 WHERE name = \(bind: name) AND holder = \(bind: holder)").run()
    }

    /// True while some holder's lease on `name` has not expired.
    public func isHeld(_ name: String, now: Date? = nil) async throws -> Bool {
        let now = now ?? clock.now()
        return try await JobLeaseRow.select(database.sql).where("name", .equal, name).where("lease_until", .greaterThanOrEqual, Self.seconds(now))
            .first(decoding: JobLeaseRow.self) != nil
    }

    /// Runs `work` only if the lease can be claimed, renewing it every third of `lease` while it runs,
    /// and releases it afterwards. Returns nil when another instance holds it.
    public func run<T: Sendable>(_ name: String, lease: TimeInterval, logger: Logger? = nil,
                                 _ work: @escaping @Sendable () async throws -> T) async throws -> T? {
        guard try await claim(name, lease: lease) else { return nil }
        let heartbeat = Task {
            let every = Duration.milliseconds(Int64(saturating: max(lease / 3, 0.2) * 1000))
            while !Task.isCancelled {
                try? await Task.sleep(for: every)
                if Task.isCancelled { break }
                do {
                    if try await renew(name, lease: lease) == false {
                        logger?.warning("lease lost to another instance", metadata: ["lease": "\(name)"])
                        break
                    }
                } catch {
                    // A database hiccup: try again next beat; the lease lasts three beats.
                    logger?.warning("lease renewal failed", metadata: ["lease": "\(name)"])
                }
            }
        }
        defer { heartbeat.cancel() }
        // The heartbeat is stopped and waited for before the release: a renewal still in flight would
        // otherwise land after it and hold the lease for another `lease` seconds after the work is done.
        do {
            let result = try await work()
            heartbeat.cancel()
            await heartbeat.value
            try? await release(name)
            return result
        } catch {
            heartbeat.cancel()
            await heartbeat.value
            try? await release(name)
            throw error
        }
    }
}

/// A row of `job_leases`: who holds a piece of background work and until when (Unix seconds).
struct JobLeaseRow: TableRow {
    static let table = "job_leases"
    var name: String
    var holder: String
    var leaseUntil: Int64
    var heartbeatAt: Int64

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, holder, leaseUntil = "lease_until", heartbeatAt = "heartbeat_at"
    }
}
