import Foundation
import Logging

/// One JSON object a line on stderr, with personal data removed by `LogRedaction`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String
    let write: @Sendable (String) -> Void

    public init(label: String, level: Logger.Level, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    /// A line that cannot be written (a full disk behind a redirected stderr, a closed pipe) is dropped:
    /// `FileHandle.write(_:)` traps on a write error, and a log line is never worth the server.
    public static let standardError: @Sendable (String) -> Void = { line in
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [String: Any] = [
            "ts": Self.timestamp(Date()),
            "level": event.level.rawValue,
            "msg": LogRedaction.scrub(event.message.description),
            "logger": label,
        ]
        for (key, value) in merged {
            let name = key == "hb.request.id" ? "request_id" : key
            object[name] = LogRedaction.isSensitive(key: key) ? LogRedaction.placeholder : Self.render(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
              let line = String(data: data, encoding: .utf8) else { return }
        write(line)
    }

    static func render(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case let .string(text): return LogRedaction.scrub(text)
        case let .stringConvertible(convertible): return LogRedaction.scrub(convertible.description)
        case let .array(items): return items.map(render)
        case let .dictionary(items):
            var object: [String: Any] = [:]
            for (key, item) in items {
                object[key] = LogRedaction.isSensitive(key: key) ? LogRedaction.placeholder : render(item)
            }
            return object
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true).timeSeparator(.colon))
    }
}
