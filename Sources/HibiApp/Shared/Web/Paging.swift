import Foundation

/// Numbers read from a query string, in one place for web and API alike, so no route multiplies or
/// adds an unchecked number a client chose (`/diary?page=9223372036854775807` once trapped the process).
public enum QueryNumber {
    /// For the API: absent gives nil, anything outside `range` is a 400 naming the parameter.
    public static func strict(_ raw: String?, name: String, range: ClosedRange<Int>) throws(RequestError) -> Int? {
        guard let raw, !raw.isEmpty else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw .invalidParameter(name, Text(en: "must be a whole number from \(range.lowerBound) to \(range.upperBound)",
                                               ja: "\(range.lowerBound)〜\(range.upperBound) の整数にしてください"))
        }
        return value
    }

    /// For pages: a link edited by hand shows the nearest page instead of an error.
    public static func clamped(_ raw: String?, range: ClosedRange<Int>, default fallback: Int) -> Int {
        guard let raw, let value = Int(raw.trimmingCharacters(in: .whitespaces)) else { return fallback }
        return min(max(value, range.lowerBound), range.upperBound)
    }
}

/// A page of a list. Both bounds are small enough that `offset` cannot overflow.
public struct PageRequest: Sendable, Equatable {
    public static let maxPage = 1_000_000
    public static let maxPerPage = 1000

    public let page: Int
    public let perPage: Int

    public init(page: Int, perPage: Int) {
        self.page = min(max(page, 1), Self.maxPage)
        self.perPage = min(max(perPage, 1), Self.maxPerPage)
    }

    /// At most 10⁹: well inside Int and every database's integer.
    public var offset: Int { (page - 1) * perPage }

    /// Web pages: clamped.
    public static func web(page raw: String?, perPage: Int) -> PageRequest {
        PageRequest(page: QueryNumber.clamped(raw, range: 1...maxPage, default: 1), perPage: perPage)
    }

    /// API: `page` and `perPage` (or the names given) checked, out of range is a 400.
    public static func api(page: String?, perPage: String?, defaultPerPage: Int, maxPerPage: Int,
                           names: (page: String, perPage: String) = ("page", "perPage")) throws(RequestError) -> PageRequest {
        PageRequest(page: try QueryNumber.strict(page, name: names.page, range: 1...maxPage) ?? 1,
                    perPage: try QueryNumber.strict(perPage, name: names.perPage, range: 1...min(maxPerPage, Self.maxPerPage)) ?? defaultPerPage)
    }
}
