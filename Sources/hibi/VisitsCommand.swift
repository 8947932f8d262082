import ArgumentParser
import Foundation
import HibiApp

struct VisitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits", abstract: "Visits: check the signed log, import location history.", subcommands: [Verify.self, ImportLocations.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every user's visit log (or one user's) and name the first bad record. Exits 1 if any log is broken.")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "Username to check (default: every account)") var username: String?
        @Flag(name: .customLong("all-signatures"), help: "Check every record's signature, not only the head's (slower)")
        var allSignatures = false

        func run() async throws {
            try await options.withCore { core in
                let feature = core.features.visits
                var users = try await core.users.all()
                if let username {
                    users = users.filter { $0.username == username.lowercased() }
                    if users.isEmpty {
                        printError("No account named \(username).")
                        throw ExitCode.failure
                    }
                }
                var broken = false
                for user in users {
                    let report = try await feature.service.verify(userID: user.id, allSignatures: allSignatures)
                    print("\(user.username)\t\(report.intact ? "intact" : "BROKEN")\t\(VisitsFeature.message(report))")
                    if !report.intact { broken = true }
                }
                if broken { throw ExitCode.failure }
            }
        }
    }

    struct ImportLocations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-locations",
            abstract: "Import location history (GPX, TCX or FIT tracks, OwnTracks Recorder .rec files, Google Takeout Records.json, semantic history or Timeline.json) of any size and detect stays to confirm.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "Username to import for") var user: String
        @Argument(help: "Path to the .gpx, .tcx, .fit, .rec or .json file") var file: String

        func run() async throws {
            try await options.withCore { core in
                let account = try await account(named: user, in: core)
                let started = Date()
                do {
                    let stream = try LocationFileStream(path: file)
                    let result = try await core.features.visits.locations.importFile(userID: account.id, stream: stream, now: Date())
                    let seconds = Date().timeIntervalSince(started)
                    for line in VisitsFeature.importSummary(result) { print(line) }
                    print(String(format: "Done in %.1f s.", seconds))
                } catch let error as LocationError {
                    printError(error.message(.en))
                    throw ExitCode.failure
                } catch let error as VisitError {
                    printError(error.message(.en))
                    throw ExitCode.failure
                }
            }
        }
    }
}
