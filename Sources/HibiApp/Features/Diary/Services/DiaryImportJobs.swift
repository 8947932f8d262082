import Foundation
import Logging
import NIOCore
import SQLKit
import ServiceLifecycle
import Synchronization

/// A diary import that outlives its request: the upload kept on disk, the entries dealt with and the report
/// so far saved after every part (`DiaryForeignImport.Checkpoint`), so the page can show the progress and a
/// restart goes on where the import stopped (the Apple Health import's way, `health_import_jobs`).
public struct DiaryImportJob: Sendable, Equatable {
    public enum State: String, Codable, Sendable { case running, done, failed }

    public let id: String
    public let userID: String
    public let fileName: String
    public var state: State
    /// Entries in the file (0 until the journals have been read through) and entries dealt with.
    public var total: Int
    public var done: Int
    /// The report so far, then the whole report.
    public var checkpoint: DiaryForeignImport.Checkpoint?
    public var error: Text?
    /// Runs started: one that stopped the process twice is not resumed a third time.
    public var attempts: Int
    public var uploadPath: String?
    public var createdAt: Date
    public var finishedAt: Date?
}

/// Diary imports that outlive their request (`DiaryImportJobStore`).
enum DiaryImportJobSchema {
    static let migration = Migration(version: 32, name: "diary-import-jobs") { sql, _ in
        try await sql.create(table: "diary_import_jobs")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("state", type: .text, .notNull)
            .column("file_name", type: .text, .notNull)
            .column("upload_path", type: .text)
            .column("total", type: .bigint, .notNull)
            .column("done", type: .bigint, .notNull)
            .column("checkpoint_sealed", type: .blob)
            .column("error_en", type: .text)
            .column("error_ja", type: .text)
            .column("attempts", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("finished_at", type: .bigint)
            .run()
        try await sql.create(index: "diary_import_jobs_user").on("diary_import_jobs").column("user_id").run()
    }
}

/// The jobs' rows. The report is sealed like the diary (it names entries and photo files), bound to its job.
public struct DiaryImportJobStore: Sendable {
    let database: Database
    let box: SealedBoxService

    static func context(userID: String, _ id: String) -> String { "diary-import-job:\(userID):\(id)" }

    public func create(id: String, userID: String, fileName: String, uploadPath: String, now: Date) async throws -> DiaryImportJob {
        let job = DiaryImportJob(id: id, userID: userID, fileName: String(fileName.prefix(200)), state: .running,
                                 total: 0, done: 0, checkpoint: nil, error: nil, attempts: 0, uploadPath: uploadPath, createdAt: now, finishedAt: nil)
        try await DiaryImportJobRow.insert([DiaryImportJobRow(
            id: job.id, userID: userID, state: job.state.rawValue, fileName: job.fileName, uploadPath: uploadPath, total: 0, done: 0,
            checkpointSealed: nil, errorEn: nil, errorJa: nil, attempts: 0, createdAt: UnixTime(now).seconds, finishedAt: nil)], into: database.sql).run()
        return job
    }

    /// Counts a run starting.
    func started(_ job: DiaryImportJob) async throws {
        try await database.sql.raw("UPDATE diary_import_jobs SET attempts = attempts + 1 WHERE id = \(bind: job.id)").run()
    }

    /// Saves where the job is; written after the part's entries are committed, so a restart never skips one.
    func progress(_ job: DiaryImportJob, total: Int, checkpoint: DiaryForeignImport.Checkpoint) async throws {
        let sealed = try box.seal(try JSONEncoder().encode(checkpoint), context: Self.context(userID: job.userID, job.id))
        try await database.sql.update("diary_import_jobs").set("total", to: SQLBind(total)).set("done", to: SQLBind(checkpoint.done))
            .set("checkpoint_sealed", to: SQLBind(sealed)).where("id", .equal, job.id).run()
    }

    /// Ends the job with its report, or failed with why (the report so far is kept).
    func finish(_ job: DiaryImportJob, report: DiaryImportReport?, error: Text?, now: Date) async throws {
        var update = database.sql.update("diary_import_jobs").set("state", to: SQLBind((error == nil ? DiaryImportJob.State.done : .failed).rawValue))
            .set("upload_path", to: SQLLiteral.null).set("finished_at", to: SQLBind(UnixTime(now).seconds))
            .set("error_en", to: SQLBind(error?.en)).set("error_ja", to: SQLBind(error?.ja))
        if let report {
            let checkpoint = DiaryForeignImport.Checkpoint(done: report.entries, report: report)
            let sealed = try box.seal(try JSONEncoder().encode(checkpoint), context: Self.context(userID: job.userID, job.id))
            update = update.set("checkpoint_sealed", to: SQLBind(sealed)).set("done", to: SQLBind(checkpoint.done)).set("total", to: SQLBind(checkpoint.done))
        }
        try await update.where("id", .equal, job.id).run()
    }

    public func find(id: String, userID: String) async throws -> DiaryImportJob? {
        try await DiaryImportJobRow.select(database.sql).where("id", .equal, id).where("user_id", .equal, userID)
            .first(decoding: DiaryImportJobRow.self).map(job)
    }

    /// The person's latest jobs, newest first.
    public func list(userID: String, limit: Int = 3) async throws -> [DiaryImportJob] {
        try await DiaryImportJobRow.select(database.sql).where("user_id", .equal, userID)
            .orderBy("created_at", .descending).orderBy("id", .descending).limit(limit).all(decoding: DiaryImportJobRow.self).map(job)
    }

    /// The person's job still running, if any: one import per person, across instances.
    public func active(userID: String) async throws -> DiaryImportJob? {
        try await DiaryImportJobRow.select(database.sql).where("user_id", .equal, userID)
            .where("state", .equal, DiaryImportJob.State.running.rawValue).first(decoding: DiaryImportJobRow.self).map(job)
    }

    /// Jobs still running, of everyone: those no instance holds were interrupted.
    func running() async throws -> [DiaryImportJob] {
        try await DiaryImportJobRow.select(database.sql).where("state", .equal, DiaryImportJob.State.running.rawValue)
            .all(decoding: DiaryImportJobRow.self).map(job)
    }

    /// The job a row holds, its report opened.
    func job(_ row: DiaryImportJobRow) throws -> DiaryImportJob {
        let checkpoint = try row.checkpointSealed.map {
            try JSONDecoder().decode(DiaryForeignImport.Checkpoint.self, from: try box.open($0, context: Self.context(userID: row.userID, row.id)))
        }
        return DiaryImportJob(
            id: row.id, userID: row.userID, fileName: row.fileName, state: DiaryImportJob.State(rawValue: row.state) ?? .failed,
            total: Int(clamping: row.total), done: Int(clamping: row.done), checkpoint: checkpoint,
            error: row.errorEn.map { Text(en: $0, ja: row.errorJa ?? $0) }, attempts: Int(clamping: row.attempts), uploadPath: row.uploadPath,
            createdAt: UnixTime(seconds: row.createdAt).date, finishedAt: row.finishedAt.map { UnixTime(seconds: $0).date })
    }
}

/// Runs diary import jobs under a lease named after the job, renewed while it runs: if this instance dies,
/// another one (or this one after its restart) resumes the job from its last checkpoint once the lease expires.
public struct DiaryImportRunner: Sendable {
    let imports: DiaryForeignImport
    let jobs: DiaryImportJobStore
    let leases: JobLeases
    let users: any PeopleDirectory
    let logger: Logger
    /// Where uploads wait for their job: under the media directory, outside `tmp/` (kept across a restart).
    let directory: String
    /// The platform's clock: a resumed job's times, and its lease's expiry.
    let clock: WallClock
    /// How long a holder that stopped renewing keeps the job before another instance may resume it.
    var lease: TimeInterval = 30
    /// How long a request waits for its import to end before answering that it runs on (202, or the page's progress).
    var wait: Double = 10

    static func leaseName(_ id: String) -> String { "diary-import:" + id }

    static let stoppedTwice = Text(
        en: "This import stopped the server twice and was not resumed again. Entries imported before that are kept; check the file, or ask the administrator.",
        ja: "このインポートはサーバーを 2 回停止させたため、再開しませんでした。それまでに取り込んだ日記は残っています。ファイルを確認するか、管理者に相談してください。")
    static let uploadGone = Text(en: "The uploaded file is gone; upload it again.", ja: "アップロードされたファイルがありません。もう一度アップロードしてください。")

    /// Runs the job to its end (from its checkpoint) and returns it as it ended; nil when another instance holds it.
    func run(_ job: DiaryImportJob) async throws -> DiaryImportJob? {
        try await leases.run(Self.leaseName(job.id), lease: lease, logger: logger) { try await runHeld(job) }
    }

    /// The run itself, with the job's lease held.
    func runHeld(_ job: DiaryImportJob) async throws -> DiaryImportJob {
        try await jobs.started(job)
        guard let path = job.uploadPath, FileManager.default.fileExists(atPath: path),
              let user = try await users.find(id: job.userID) else {
            try await jobs.finish(job, report: nil, error: Self.uploadGone, now: clock.now())
            return try await jobs.find(id: job.id, userID: job.userID) ?? job
        }
        do {
            let report = try await imports.importFile(path: path, userID: user.id, timeZone: TimeZone(identifier: user.timeZone) ?? .gmt,
                                                      now: clock.now(), resume: job.checkpoint) { total, checkpoint in
                try await jobs.progress(job, total: total, checkpoint: checkpoint)
            }
            try await jobs.finish(job, report: report, error: nil, now: clock.now())
        } catch let error as any UserFacingError {
            // The file's own fault: nothing to resume; the report so far stays with the job.
            try await jobs.finish(job, report: nil, error: Text(en: error.message(.en), ja: error.message(.ja)), now: clock.now())
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        try? FileManager.default.removeItem(atPath: path)
        return try await jobs.find(id: job.id, userID: job.userID) ?? job
    }

    /// How a launched run ended: the job as it ended (nil: another instance runs it), or the error that
    /// stopped it (a user-facing one is the file's fault and already recorded on the job).
    final class Outcome: Sendable {
        let result = Mutex<Result<DiaryImportJob?, any Error>?>(nil)

        /// The result once there is one, waiting at most `seconds` (polled: the run goes on after the wait).
        func wait(seconds: Double) async -> Result<DiaryImportJob?, any Error>? {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if let result = result.withLock({ $0 }) { return result }
                try? await Task.sleep(for: .milliseconds(25))
            }
            return result.withLock { $0 }
        }
    }

    /// Starts the job off the request.
    @discardableResult
    func launch(_ job: DiaryImportJob) -> Outcome {
        let outcome = Outcome()
        Task.detached(priority: .utility) {
            let result: Result<DiaryImportJob?, any Error>
            do {
                result = .success(try await run(job))
            } catch {
                // Not the file's fault (the database went away, say): left running with its upload, and the
                // next pass resumes it from the checkpoint.
                if !(error is any UserFacingError) { logger.error("diary import interrupted", metadata: ["job": "\(job.id)"]) }
                result = .failure(error)
            }
            outcome.result.withLock { $0 = result }
        }
        return outcome
    }

    /// Takes an upload (streamed to `directory`), makes its job and starts it; waits up to `wait` seconds for
    /// it to end, so a small file's report comes back with the request. The job's lease is claimed before
    /// its row exists: the resume pass must not take a job this instance is about to start.
    func start<Body: AsyncSequence & Sendable>(upload: Body, fileName: String, userID: String, now: Date, wait: Double,
                                               name: () -> String? = { nil }) async throws -> (DiaryImportJob, Result<DiaryImportJob?, any Error>?)
    where Body.Element == ByteBuffer {
        let path = try await DiaryTransfer.spool(upload, into: directory, limit: DiaryForeignImport.maxUploadBytes)
        do {
            let id = UUID().uuidString.lowercased()
            _ = try await leases.claim(Self.leaseName(id), lease: lease)
            let job = try await jobs.create(id: id, userID: userID, fileName: name() ?? fileName, uploadPath: path, now: now)
            return (job, await launch(job).wait(seconds: wait))
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    /// The job as it ended while its request waited, or nil while it still runs; the import's own error (a
    /// file that is not an export, say) is thrown as it always was, with its status.
    static func ended(_ job: DiaryImportJob, _ result: Result<DiaryImportJob?, any Error>?) throws -> DiaryImportJob? {
        switch result {
        case let .failure(error as any UserFacingError): throw error
        case let .success(ended?) where ended.state == .failed:
            throw DiaryError.importInvalid(ended.error ?? uploadGone)
        case let .success(ended?) where ended.state == .done: return ended
        default: return nil
        }
    }

    /// Resumes the jobs whose run stopped (their lease expired: this instance before a restart, or another
    /// that died). Returns the tasks started here.
    @discardableResult
    func resumeInterrupted() async -> [Outcome] {
        var launched: [Outcome] = []
        for listed in (try? await jobs.running()) ?? [] {
            let name = Self.leaseName(listed.id)
            // A live lease, this instance's own included: the job is running, leave it.
            guard (try? await leases.isHeld(name)) == false else { continue }
            // Read again: between the list and now the job may have finished on another instance.
            guard let job = try? await jobs.find(id: listed.id, userID: listed.userID), job.state == .running else { continue }
            // Each run counts itself when it starts; two that never finished both ended with the process.
            if job.attempts >= 2 {
                guard (try? await leases.claim(name, lease: lease)) == true else { continue }
                try? await jobs.finish(job, report: nil, error: Self.stoppedTwice, now: clock.now())
                if let path = job.uploadPath { try? FileManager.default.removeItem(atPath: path) }
                try? await leases.release(name)
                logger.warning("diary import not resumed: it stopped the server twice", metadata: ["job": "\(job.id)"])
                continue
            }
            logger.notice("resuming diary import", metadata: ["job": "\(job.id)", "done": "\(job.done)"])
            launched.append(launch(job))
        }
        return launched
    }
}

/// Resumes interrupted diary imports while the server runs (every little while, so a job another instance
/// dropped is taken over too).
struct DiaryImportBackgroundService: Service {
    let runner: DiaryImportRunner
    var interval: Duration = .seconds(20)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await runner.resumeInterrupted()
                try await Task.sleep(for: interval)
            }
        }
    }
}
