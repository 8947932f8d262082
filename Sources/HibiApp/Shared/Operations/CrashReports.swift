import Foundation

/// Where a crash report goes. Swift's backtracer writes to the standard output by default, with registers
/// and memory around them, into the same stream as the JSON log; a log shipper would then carry raw
/// memory (a diary text being decrypted, a key) off the machine. `hibi serve` therefore starts itself
/// again with the backtracer writing JSON reports into a private folder of the data directory, leaving
/// only one line on standard error. An operator's own `SWIFT_BACKTRACE` with `output-to` is respected.
public enum CrashReports {
    public static let environmentKey = "SWIFT_BACKTRACE"

    public static func directory(dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("crash-reports")
    }

    /// The setting to start with, or nil when the current one already sends reports somewhere chosen.
    public static func setting(current: String?, dataDirectory: String) -> String? {
        if let current, current.contains("output-to=") || current.contains("enable=no") { return nil }
        return ["enable=yes", "interactive=no", "color=no", "threads=crashed", "registers=none", "images=none", "sanitize=yes",
                "format=json", "output-to=\(directory(dataDirectory: dataDirectory))"].joined(separator: ",")
    }
}
