import ArgumentParser
import Foundation
import HibiApp

/// `hibi export all --user NAME`: the person's takeout, the same ZIP as Settings → "Download all my data".
struct ExportAllCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Export all of a user's data (diary, health, visits, profile), decrypted, as one ZIP archive.")
    @OptionGroup var options: ConfigOptions
    @Option(help: "Username whose data to export") var user: String
    @Option(name: .shortAndLong, help: "Archive to write (written as FILE.partial, renamed when complete)") var output: String

    func run() async throws {
        try await options.withCore { core in
            let account = try await account(named: user, in: core)
            do {
                try await writeArchive(to: output) { emit in try await core.features.accounts.takeout.write(user: account, now: Date(), to: emit) }
                printError("Exported all of \(user)'s data to \(output).")
            } catch {
                printError((error as? DiaryError)?.message(.en) ?? (error as? Fatal)?.description ?? "Export failed: \(error)")
                throw ExitCode.failure
            }
        }
    }
}

/// `hibi import all --user NAME FILE`: a takeout (from this or another Hibi) into an account.
struct ImportAllCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Import a Hibi takeout (export all) into a user's account: diary, health records, visits.")
    @OptionGroup var options: ConfigOptions
    @Option(help: "Username to import for") var user: String
    @Argument(help: "Path to the takeout ZIP") var file: String

    func run() async throws {
        try await options.withCore { core in
            let account = try await account(named: user, in: core)
            guard FileManager.default.isReadableFile(atPath: file) else {
                printError("Cannot read \(file).")
                throw ExitCode.failure
            }
            do {
                // Read from the file as it is needed, never whole: its inflated size is bounded by the reader.
                let result = try await core.features.accounts.takeout.importTakeout(path: file, user: account, now: Date())
                print("Imported \(result.diaryEntries) diary entries, \(result.healthRecords) health records, \(result.visits) visits and \(result.locationPoints) location points for \(user).")
            } catch let error as any UserFacingError {
                printError(error.message(.en))
                throw ExitCode.failure
            }
        }
    }
}
