import ArgumentParser
import Foundation
import HibiApp

struct VisitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits", abstract: "Visits: check the signed log.", subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every user's visit log (or one user's) and name the first bad record. Exits 1 if any log is broken.")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "Username to check (default: every account)") var username: String?
        @Flag(name: .customLong("all-signatures"), help: "Check every record's signature, not only the head's (slower)")
        var allSignatures = false

        func run() async throws {
            let core = try await runReportingFatal { try await options.openCore(logLevel: .warning) }
            let feature = core.features.visits
            var users = try await core.users.all()
            if let username {
                users = users.filter { $0.username == username.lowercased() }
                if users.isEmpty {
                    printError("No account named \(username).")
                    await core.database.shutdown()
                    throw ExitCode.failure
                }
            }
            var broken = false
            for user in users {
                let report = try await feature.service.verify(userID: user.id, allSignatures: allSignatures)
                print("\(user.username)\t\(report.intact ? "intact" : "BROKEN")\t\(VisitsFeature.message(report))")
                if !report.intact { broken = true }
            }
            await core.database.shutdown()
            if broken { throw ExitCode.failure }
        }
    }
}
