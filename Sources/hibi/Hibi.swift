import ArgumentParser
import Foundation
import HibiApp
import Logging

@main
struct Hibi: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hibi",
        abstract: "Hibi (日々): a private life journal on your own server.",
        version: hibiVersion,
        subcommands: [Serve.self, Migrate.self, UserCommand.self, Version.self] + extraCommands + [BackupCommand.self, RestoreCommand.self]
    )
}

/// Options every command that touches the data shares; flags win over HIBI_* variables.
struct ConfigOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Data directory (HIBI_DATA_DIR, default ./data)")
    var dataDirectory: String?
    @Option(name: .customLong("database-url"), help: "sqlite:PATH or postgres://… (HIBI_DATABASE_URL)")
    var databaseURL: String?
    @Option(help: "Address to listen on (HIBI_HOST, default 127.0.0.1)")
    var host: String?
    @Option(help: "Port to listen on (HIBI_PORT, default 8080)")
    var port: String?
    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (HIBI_LOG_LEVEL)")
    var logLevel: String?
    @Option(name: .customLong("public-url"), help: "URL users reach Hibi at; https makes cookies Secure (HIBI_PUBLIC_URL)")
    var publicURL: String?

    func load() throws -> AppConfig {
        do {
            return try AppConfig.load(
                environment: ProcessInfo.processInfo.environment,
                overrides: .init(dataDirectory: dataDirectory, databaseURL: databaseURL, host: host, port: port,
                                 logLevel: logLevel, publicURL: publicURL)
            )
        } catch {
            throw Fatal(error.description)
        }
    }

    /// Opens the core, runs `body` and closes the database on every way out, an error included: a
    /// pool dropped without `shutdown()` traps in debug builds (a mistyped username crashed `user create`).
    func withCore<T>(logLevel: Logger.Level? = .warning, _ body: (AppCore) async throws -> T) async throws -> T {
        let core = try await runReportingFatal { try await openCore(logLevel: logLevel) }
        do {
            let result = try await body(core)
            await core.database.shutdown()
            return result
        } catch {
            await core.database.shutdown()
            throw error
        }
    }

    /// Opens storage for a one-off command, turning known start-up failures into one clear line.
    func openCore(logLevel: Logger.Level? = nil) async throws -> AppCore {
        var config = try load()
        if let logLevel { config.logLevel = logLevel }
        do {
            return try await AppCore.open(config, logger: makeLogger(level: config.logLevel), for: .command)
        } catch let error as any CustomStringConvertible where error is DatabaseError || error is EncryptionError {
            throw Fatal(error.description)
        }
    }
}

/// An error whose message is the whole story: printed as one line, exit status 1.
struct Fatal: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the web server (migrates the database first).")
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        try redirectCrashReports(dataDirectory: config.dataDirectory)
        let logger = makeLogger(level: config.logLevel)
        let core: AppCore
        do {
            try preflight(config)
            core = try await AppCore.open(config, logger: logger)
        } catch let error as Fatal {
            printError(error.description)
            throw ExitCode.failure
        } catch let error as any CustomStringConvertible where error is DatabaseError || error is EncryptionError || error is ConfigError
                    || error is OpenAPIDocument.CompositionError {
            printError(error.description)
            throw ExitCode.failure
        } catch let error as any CustomStringConvertible {
            // Anything else that stops start-up (a missing face model, say) is still one line, not a trace.
            printError("Hibi cannot start: \(error.description)")
            throw ExitCode.failure
        }
        logger.notice("Hibi \(hibiVersion) listening on http://\(config.host):\(config.port) (database: \(config.database.engineName))")
        let app = await buildApplication(core: core)
        try await app.runService()
    }
}

/// Starts this same process again (same pid, same arguments) with crash reports going to private files
/// instead of the log stream; see `CrashReports`. The runtime reads SWIFT_BACKTRACE only at start-up.
func redirectCrashReports(dataDirectory: String) throws {
    let environment = ProcessInfo.processInfo.environment
    guard let setting = CrashReports.setting(current: environment[CrashReports.environmentKey], dataDirectory: dataDirectory) else { return }
    try FileManager.default.createDirectory(atPath: CrashReports.directory(dataDirectory: dataDirectory), withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    setenv(CrashReports.environmentKey, setting, 1)
    let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", arguments)
    // Only reached when exec failed: serve anyway, with the default backtracer.
    printError("Crash reports could not be redirected (\(String(cString: strerror(errno)))); continuing.")
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and print the schema version.")
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        try await options.withCore { core in
            let version = try await Migrator(database: core.database, logger: core.logger).currentVersion()
            print("Database schema is at version \(version) (\(core.config.database.engineName)).")
        }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version.")
    func run() { print("hibi \(hibiVersion)") }
}

func printError(_ message: String) {
    try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
}

/// The account a command acts for; an unknown name ends the command with one line (the database closed first).
func account(named username: String, in core: AppCore) async throws -> User {
    guard let account = try await core.users.find(username: username) else {
        printError("No user named \(username).")
        throw ExitCode.failure
    }
    return account
}

/// Streams an archive to `output`, or to stdout without one. A file is written beside the target as
/// `FILE.partial` (mode 0600) and renamed only when complete, so a failed export never looks finished and
/// leaves nothing behind.
func writeArchive(to output: String?, _ body: (_ emit: (Data) async throws -> Void) async throws -> Void) async throws {
    guard let output else {
        // A closed pipe or a full disk is an error the command reports, not a trap (`write(_:)` traps).
        try await body { try FileHandle.standardOutput.write(contentsOf: $0) }
        return
    }
    let temporary = output + ".partial"
    guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
        throw Fatal("Cannot write \(temporary).")
    }
    do {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        try await body { try handle.write(contentsOf: $0) }
        try handle.close()
        guard rename(temporary, output) == 0 else { throw Fatal("Cannot rename \(temporary) to \(output).") }
    } catch {
        try? FileManager.default.removeItem(atPath: temporary)
        throw error
    }
}

/// Runs `body`; a `Fatal` becomes its one line on stderr and exit status 1 instead of a stack of context.
func runReportingFatal<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as Fatal {
        printError(error.description)
        throw ExitCode.failure
    } catch let error as AccountError {
        printError(error.message(.en))
        throw ExitCode.failure
    }
}

/// Checks that must pass before the server binds: feature modules add theirs here.
func preflight(_ config: AppConfig) throws {
    let openAPI = (config.resourcesDirectory as NSString).appendingPathComponent("openapi/base.json")
    guard FileManager.default.fileExists(atPath: openAPI) else {
        throw Fatal("Resources not found at \(config.resourcesDirectory) (no openapi/base.json); run Hibi from its folder or set HIBI_RESOURCES_DIR.")
    }
}
