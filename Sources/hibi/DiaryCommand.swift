import ArgumentParser
import Foundation
import HibiApp

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export data to files.", subcommands: [DiaryExportCommand.self, ExportAllCommand.self])
}

/// `hibi export diary`: the same ZIP archive as the web's export, written to a file or stdout.
struct DiaryExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary", abstract: "Export a user's whole diary as a ZIP archive: diary.json and the photos as files.")
    @OptionGroup var options: ConfigOptions
    @Option(help: "Username whose diary to export") var user: String
    @Option(name: .shortAndLong, help: "Archive to write (default: stdout)") var output: String?

    func run() async throws {
        try await options.withCore { core in
            let account = try await account(named: user, in: core)
            let transfer = core.features.diary.transfer
            do {
                let plan = try await transfer.planExport(userID: account.id)
                try await writeArchive(to: output) { emit in try await transfer.writeArchive(plan, now: Date(), to: emit) }
                if let output { printError("Exported \(plan.entryCount) entries to \(output).") }
            } catch {
                printError((error as? DiaryError)?.message(.en) ?? (error as? Fatal)?.description ?? "Export failed: \(error)")
                throw ExitCode.failure
            }
        }
    }
}

/// `hibi import diary`: restores an export (the ZIP archive, or an older JSON file) into a user's diary.
struct DiaryImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary", abstract: "Import a diary: a Hibi export (.zip, or .json from an older Hibi), Day One (.json or .zip), Daylio (.csv or .daylio), Journey (.zip). Entries already there are skipped.")
    @OptionGroup var options: ConfigOptions
    @Option(help: "Username to import for") var user: String
    @Argument(help: "Path to the export") var file: String

    func run() async throws {
        try await options.withCore { core in
            let account = try await account(named: user, in: core)
            guard FileManager.default.isReadableFile(atPath: file) else {
                printError("Cannot read \(file).")
                throw ExitCode.failure
            }
            do {
                // A Hibi export is read from the file as it is needed, never whole: what it may inflate to is bounded.
                let report = try await core.features.diary.imports.importFile(path: file, userID: account.id, timeZone: TimeZone(identifier: account.timeZone) ?? .gmt, now: Date())
                if report.format == .hibi { print("Imported \(report.added) new entries.") } else { report.lines(.en, listing: .max).forEach { print($0) } }
            } catch let error as DiaryError {
                printError(error.message(.en))
                throw ExitCode.failure
            }
        }
    }
}
