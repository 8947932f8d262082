import ArgumentParser
import Foundation
import HibiApp

/// `hibi backup -o FILE`: the whole instance in one archive while it keeps serving;
/// `hibi backup --verify FILE`: the signature checked with this instance's data key, every member against the manifest.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the whole instance (every table, every media file, a manifest) to one archive, or verify one.")
    @OptionGroup var options: ConfigOptions
    @Option(name: .shortAndLong, help: "Archive to write (written as FILE.partial, renamed when complete)") var output: String?
    @Option(help: "Check an existing backup's signature with this instance's data key, and every member against its manifest") var verify: String?
    @Flag(help: "With --verify: check the members of a backup whose signature cannot be checked (an older Hibi's, or another instance's)") var allowUnverified = false
    @Flag(help: "No progress bar (for scripts)") var quiet = false

    func run() async throws {
        let bar = BackupProgressBar(enabled: !quiet && (isatty(STDERR_FILENO) != 0 || ProcessInfo.processInfo.environment["HIBI_PROGRESS"] == "1"))
        if let verify {
            do {
                let config = try options.load()
                let box = try RestoreKey.load(masterKey: config.masterKey, dataDirectory: config.dataDirectory)
                let result = try BackupVerifier.verify(path: verify, box: box, allowUnverified: allowUnverified) { bar.draw($0) }
                bar.finish()
                print("OK: \(verify): \(result.tables) tables, \(result.files) files, \(result.bytes) bytes match the manifest.")
            } catch let error as any CustomStringConvertible where error is BackupError || error is EncryptionError {
                bar.finish()
                printError(error.description)
                throw ExitCode.failure
            }
            return
        }
        guard let output else { throw ValidationError("Give -o FILE to write a backup, or --verify FILE to check one.") }
        try await options.withCore { core in
            let service = core.features.backups.service
            do {
                let manifest = try await service.write(to: output) { bar.draw($0) }
                bar.finish()
                let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value ?? 0
                let rows = manifest.tables.reduce(0) { $0 &+ $1.rows }
                print("Backed up \(rows) rows in \(manifest.tables.count) tables and \(manifest.files.count) files (schema \(manifest.schemaVersion)) to \(output): \(size) bytes.")
            } catch let error as BackupError {
                bar.finish()
                printError(error.description)
                throw ExitCode.failure
            }
        }
    }
}

/// `hibi restore FILE`: into an empty database of either engine, all or nothing.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into an empty database (SQLite or PostgreSQL) and data directory, all or nothing.")
    @OptionGroup var options: ConfigOptions
    @Argument(help: "The backup archive") var file: String
    @Flag(help: "Replace a target that already holds data") var replace = false
    @Flag(help: "Restore a backup whose signature cannot be checked (an older Hibi's, without manifest.mac, or another instance's), after a warning that says what cannot be checked") var allowUnverified = false
    @Flag(help: "No progress bar (for scripts)") var quiet = false

    func run() async throws {
        let config = try options.load()
        let bar = BackupProgressBar(enabled: !quiet && (isatty(STDERR_FILENO) != 0 || ProcessInfo.processInfo.environment["HIBI_PROGRESS"] == "1"))
        let logger = makeLogger(level: .warning)
        // Opened without migrating or recording a key check: the restore writes the schema itself.
        let database: Database
        do {
            database = try await Database.open(config.database, logger: logger)
        } catch {
            printError(String(describing: error))
            throw ExitCode.failure
        }
        do {
            let box = try RestoreKey.load(masterKey: config.masterKey, dataDirectory: config.dataDirectory)
            let service = RestoreService(database: database, dataDirectory: config.dataDirectory, mediaDirectory: config.mediaDirectory, box: box, logger: logger,
                                         signingKey: VisitsSigningKey())
            let manifest = try await service.restore(from: file, replace: replace, allowUnverified: allowUnverified,
                                                     warn: { printError("Warning: \($0.en)") }) { bar.draw($0) }
            bar.finish()
            let rows = manifest.tables.reduce(0) { $0 &+ $1.rows }
            print("Restored \(rows) rows in \(manifest.tables.count) tables and \(manifest.files.count) files from \(file) (made \(manifest.createdAt), schema \(manifest.schemaVersion)) into \(config.database.engineName). Sessions are not carried over: everyone signs in again.")
        } catch let error as any CustomStringConvertible where error is BackupError || error is EncryptionError {
            bar.finish()
            printError("Restore failed, nothing was changed: \(error.description)")
            await database.shutdown()
            throw ExitCode.failure
        } catch {
            bar.finish()
            printError("Restore failed, nothing was changed: \(String(describing: error).prefix(500))")
            await database.shutdown()
            throw ExitCode.failure
        }
        await database.shutdown()
    }
}

/// A one-line progress bar for backups and restores, redrawn in place on stderr when a percentage changes. A backup
/// makes its two halves at once (the media files and the tables snapshot), so each phase keeps its own bar on the
/// line instead of the two taking turns on one.
final class BackupProgressBar: @unchecked Sendable {
    let enabled: Bool
    private let lock = NSLock()
    /// Phases in the order they were first heard of, with their last drawn percentage.
    private var phases: [(name: String, percent: Int)] = []

    init(enabled: Bool) { self.enabled = enabled }

    func draw(_ progress: BackupProgress) {
        guard enabled else { return }
        let fraction = progress.total > 0 ? min(1, max(0, Double(progress.done) / Double(progress.total))) : 1
        let percent = Int(fraction * 100)
        lock.lock(); defer { lock.unlock() }
        if let index = phases.firstIndex(where: { $0.name == progress.phase }) {
            guard phases[index].percent != percent else { return }
            phases[index].percent = percent
        } else {
            phases.append((progress.phase, percent))
        }
        let width = 20
        let line = "\r" + phases.map { phase in
            let filled = phase.percent * width / 100
            return "\(phase.name) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(phase.percent)%"
        }.joined(separator: "  ") + "   "
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }

    func finish() {
        if enabled, lock.withLock({ !phases.isEmpty }) { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
    }
}
