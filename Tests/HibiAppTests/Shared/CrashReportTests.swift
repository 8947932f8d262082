import Foundation
import Testing
@testable import HibiApp

/// Issue 13, item 9: crash reports stay out of the JSON log.
struct CrashReportTests {
    @Test func reportsGoToAPrivateFolderUnlessTheOperatorChoseAPlace() {
        let setting = CrashReports.setting(current: nil, dataDirectory: "/srv/hibi")
        #expect(setting?.contains("output-to=/srv/hibi/crash-reports") == true)
        #expect(setting?.contains("format=json") == true && setting?.contains("interactive=no") == true)
        #expect(CrashReports.setting(current: "enable=yes,output-to=/var/crash", dataDirectory: "/srv/hibi") == nil)
        #expect(CrashReports.setting(current: "enable=no", dataDirectory: "/srv/hibi") == nil)
        #expect(CrashReports.setting(current: "color=no", dataDirectory: "/srv/hibi") != nil)
    }

    /// The real server process: after start-up its environment sends crash reports to the data directory.
    @Test func theServerRestartsItselfWithReportsInItsDataDirectory() async throws {
        let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/hibi").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "swift build --build-tests builds the hibi executable")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-crash-\(UUID().uuidString)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--data-dir", directory]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = nil
        environment["HIBI_RESOURCES_DIR"] = TestApp.resourcesDirectory
        environment["HIBI_DATABASE_URL"] = "sqlite:" + (directory as NSString).appendingPathComponent("hibi.sqlite")
        environment["HIBI_PORT"] = String(Int.random(in: 20_000...60_000))
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var seen = ""
        for _ in 0..<200 {
            let raw = FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/environ") ?? Data()
            seen = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.first { $0.hasPrefix("SWIFT_BACKTRACE=") } ?? ""
            if !seen.isEmpty { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(seen.contains("output-to=\(directory)/crash-reports"))
        let mode = (try FileManager.default.attributesOfItem(atPath: directory + "/crash-reports")[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o700)
    }
}
