import ArgumentParser
import Foundation
import HibiApp

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import data from other apps.", subcommands: [AppleHealth.self, DiaryImportCommand.self, ImportAllCommand.self, AppleHealthScan.self])

    /// The XML tokenizer alone over an export, for Benchmarks/health-import.sh (hidden: not a user's command).
    struct AppleHealthScan: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "apple-health-scan", abstract: "Tokenize an export and print its tag count.",
                                                        shouldDisplay: false)
        @Argument(help: "Path to export.zip or export.xml") var file: String

        func run() throws {
            do {
                let (events, bytes) = try AppleHealthImporter.scan(path: file)
                print("\(events) tags, \(bytes) bytes")
            } catch {
                printError("\(error)")
                throw ExitCode.failure
            }
        }
    }

    struct AppleHealth: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apple-health",
            abstract: "Import an Apple Health export (export.zip or export.xml) or a Strava bulk export ZIP. Re-running resumes an interrupted import and skips duplicates.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "Username to import for") var user: String
        @Flag(help: "No progress bar (for scripts)") var quiet = false
        @Argument(help: "Path to export.zip or export.xml, or Strava's export ZIP") var file: String

        func run() async throws {
            try await options.withCore { core in
                let account = try await account(named: user, in: core)
                guard FileManager.default.isReadableFile(atPath: file) else {
                    printError("Cannot read \(file).")
                    throw ExitCode.failure
                }
                let importer = core.features.health.importer
                let started = Date()
                let bar = ProgressBar(enabled: !quiet && isatty(STDERR_FILENO) != 0 || ProcessInfo.processInfo.environment["HIBI_PROGRESS"] == "1")
                do {
                    let job = try await importer.prepare(path: file, fileName: (file as NSString).lastPathComponent, user: account, uploadPath: nil, now: Date())
                    if job.checkpoint > 0 { printError("Resuming an interrupted import after \(job.checkpoint) records.") }
                    let result = try await importer.run(job: job, path: file, user: account) { progress in bar.draw(progress) }
                    bar.finish()
                    let seconds = Date().timeIntervalSince(started)
                    print("Imported \(result.job.inserted) new records, skipped \(result.job.duplicates) duplicates in \(String(format: "%.1f", seconds)) s.")
                    for line in result.job.report.lines(.en) { print("  \(line)") }
                    for badge in result.newBadges { print("New badge: \(badge.name(.en)) (\(badge.name(.ja)))") }
                } catch let error as HealthError {
                    bar.finish()
                    printError(error.message(.en))
                    throw ExitCode.failure
                }
            }
        }
    }
}

/// A one-line progress bar on stderr, redrawn in place.
final class ProgressBar: @unchecked Sendable {
    let enabled: Bool
    private var lastPercent = -1
    private let started = Date()

    init(enabled: Bool) { self.enabled = enabled }

    func draw(_ job: ImportJob) {
        guard enabled else { return }
        let fraction = job.totalBytes > 0 ? min(1, Double(job.bytesDone) / Double(job.totalBytes)) : 0
        let percent = Int(fraction * 100)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = Int(saturating: fraction * Double(width))
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(job.inserted + job.duplicates) / elapsed : 0
        let line = "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%3d%%  %lld records  %.0f/s", percent, job.inserted + job.duplicates, rate)
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }

    func finish() {
        if enabled, lastPercent >= 0 { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
    }
}
