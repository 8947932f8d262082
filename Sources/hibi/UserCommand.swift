import ArgumentParser
import Foundation
import HibiApp

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage accounts.",
        subcommands: [Create.self, List.self, Disable.self, Enable.self, ResetPassword.self, Token.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account (the first one is always an administrator).")
        @OptionGroup var options: ConfigOptions
        @Argument(help: "Username (3-32: a-z, 0-9, . _ -)") var username: String
        @Option(name: .customLong("display-name")) var displayName: String?
        @Flag(help: "Make the account an administrator") var admin = false
        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input instead of prompting")
        var passwordStdin = false
        @Option(name: .customLong("language"), help: "en or ja") var language: String?

        func run() async throws {
            try await options.withCore { core in
                let password = try readPassword(fromStdin: passwordStdin, prompt: "Password for \(username): ", confirm: true)
                let isFirst = try await core.accounts.needsSetup()
                let user = try await runReportingFatal {
                    try await core.accounts.createUser(username: username, displayName: displayName, password: password,
                                                       isAdmin: admin || isFirst, language: language.flatMap(Language.init(rawValue:)),
                                                       now: Date())
                }
                print("Created \(user.isAdmin ? "administrator" : "user") \(user.username).")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await options.withCore { core in
                let users = try await core.users.all()
                if users.isEmpty {
                    print("No accounts yet. Create one with: hibi user create NAME (or open the web page).")
                }
                for user in users {
                    let flags = [user.isAdmin ? "admin" : nil, user.disabled ? "disabled" : nil].compactMap { $0 }
                    print("\(user.username)\t\(user.displayName)\t\(flags.isEmpty ? "-" : flags.joined(separator: ","))")
                }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an account and end its sessions.")
        @OptionGroup var options: ConfigOptions
        @Argument var username: String

        func run() async throws {
            try await setDisabled(options: options, username: username, disabled: true)
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled account.")
        @OptionGroup var options: ConfigOptions
        @Argument var username: String

        func run() async throws {
            try await setDisabled(options: options, username: username, disabled: false)
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Set a new password (prompted, from stdin, or generated) and end the account's sessions.")
        @OptionGroup var options: ConfigOptions
        @Argument var username: String
        @Flag(name: .customLong("password-stdin")) var passwordStdin = false
        @Flag(help: "Generate a temporary password and print it") var generate = false

        func run() async throws {
            try await options.withCore { core in
                guard let user = try await core.users.find(username: username.lowercased()) else {
                    printError("No account named \(username).")
                    throw ExitCode.failure
                }
                if generate {
                    let (_, temporary) = try await core.accounts.resetPassword(userID: user.id, now: Date())
                    print("Temporary password for \(user.username): \(temporary)")
                } else {
                    let password = try readPassword(fromStdin: passwordStdin, prompt: "New password for \(user.username): ", confirm: true)
                    try await runReportingFatal { try await core.accounts.setPassword(userID: user.id, password: password, now: Date()) }
                    print("Password changed for \(user.username); their sessions were ended.")
                }
            }
        }
    }
}

extension UserCommand {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a personal API token for an account and print it (shown once).")
        @OptionGroup var options: ConfigOptions
        @Argument var username: String
        @Option var name: String = "cli"
        @Option(help: "Comma-separated: read, write, diary. The administrator at the console may give all three.")
        var scopes: String = "read,write,diary"

        func run() async throws {
            try await options.withCore { core in
                guard let user = try await core.users.find(username: username.lowercased()) else {
                    printError("No account named \(username).")
                    throw ExitCode.failure
                }
                let name = try runReportingFatalSync { try AccountRules.validateTokenName(self.name) }
                let scopes = try runReportingFatalSync { try TokenScopes(names: self.scopes.split(separator: ",").map(String.init)) }
                let (secret, _) = try await core.tokens.create(userID: user.id, name: name, scopes: scopes, now: Date())
                print(secret)
            }
        }
    }
}

func runReportingFatalSync<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as AccountError {
        printError(error.message(.en))
        throw ExitCode.failure
    }
}

func setDisabled(options: ConfigOptions, username: String, disabled: Bool) async throws {
    try await options.withCore { core in
        guard let user = try await core.users.find(username: username.lowercased()) else {
            printError("No account named \(username).")
            throw ExitCode.failure
        }
        _ = try await core.accounts.setDisabled(userID: user.id, disabled: disabled, actingUserID: nil)
        print("\(user.username) is now \(disabled ? "disabled" : "enabled").")
    }
}

func readPassword(fromStdin: Bool, prompt: String, confirm: Bool) throws -> String {
    if fromStdin || isatty(STDIN_FILENO) == 0 {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw Fatal("No password on standard input.")
        }
        return line
    }
    guard let first = getpass(prompt).map({ String(cString: $0) }) else { throw Fatal("Could not read the password.") }
    if confirm {
        guard let second = getpass("Again: ").map({ String(cString: $0) }), second == first else {
            throw Fatal("The two passwords do not match.")
        }
    }
    return first
}
