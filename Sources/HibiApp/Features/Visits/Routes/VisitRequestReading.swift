import Foundation
import Hummingbird

/// What the visits pages and API read from a request the same way.
enum VisitRequestReading {
    /// The signed-in person's time zone; an unknown identifier falls back to UTC.
    static func zone(_ user: User) -> TimeZone { TimeZone(identifier: user.timeZone) ?? .gmt }

    static func query(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in request.uri.formQuery { result[String(key)] = String(value) }
        return result
    }
}
