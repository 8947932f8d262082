import Foundation

/// What to answer to a GET/HEAD of a file, given its validators and the request's Range and conditional headers.
///
/// Choices made within RFC 9110 (section 14 and 13):
/// - One satisfiable byte range gives 206 with `Content-Range: bytes first-last/size`.
///   `bytes=N-` runs to the end, `bytes=-N` is the last N bytes (the whole file when N >= size).
/// - A range starting at or beyond the end, `bytes=-0`, or any range of an empty file gives 416 with
///   `Content-Range: bytes */size`.
/// - More than one range: Hibi ignores the Range header and sends the whole file with 200, as §14.2 allows
///   ("a server MAY ignore the Range header field"); it never sends multipart/byteranges. Players ask for one range.
/// - A syntactically invalid `bytes=` set (letters, first > last, missing numbers) is rejected with 416, which
///   §14.2 also allows ("MAY ignore or reject … an invalid ranges-specifier"); this is what nginx does too.
/// - A range unit other than `bytes` is ignored (200), as §14.2 requires.
/// - `If-Range` with a strong ETag or the exact Last-Modified date keeps the range; anything else (a weak or
///   outdated tag, another date) sends the whole file with 200 so the client never splices two versions.
/// - `If-None-Match` (or, without it, `If-Modified-Since`) that still matches gives 304.
public enum ByteRanges {
    public enum Spec: Equatable, Sendable {
        /// `first-` or `first-last`.
        case span(first: Int64, last: Int64?)
        /// `-length`: the final `length` bytes.
        case suffix(Int64)
    }

    public enum Parsed: Equatable, Sendable {
        /// Unknown range unit: must be ignored.
        case ignore
        case invalid
        case ranges([Spec])
    }

    public enum Decision: Equatable, Sendable {
        case full
        case partial(ClosedRange<Int64>)
        case unsatisfiable
        case notModified
    }

    public static func parse(_ header: String) -> Parsed {
        guard let equals = header.firstIndex(of: "=") else { return .invalid }
        let unit = header[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        guard unit == "bytes" else { return unit.isEmpty ? .invalid : .ignore }
        var specs: [Spec] = []
        for element in header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let item = element.trimmingCharacters(in: .whitespaces)
            // Empty list elements are allowed by the list syntax (RFC 9110 §5.6.1) and carry nothing.
            if item.isEmpty { continue }
            guard let dash = item.firstIndex(of: "-") else { return .invalid }
            let first = item[..<dash]
            let last = item[item.index(after: dash)...]
            if first.isEmpty {
                guard let length = number(last) else { return .invalid }
                specs.append(.suffix(length))
            } else {
                guard let start = number(first) else { return .invalid }
                if last.isEmpty {
                    specs.append(.span(first: start, last: nil))
                } else {
                    guard let end = number(last), end >= start else { return .invalid }
                    specs.append(.span(first: start, last: end))
                }
            }
        }
        return specs.isEmpty ? .invalid : .ranges(specs)
    }

    /// Digits only; values too large for Int64 saturate (they are then simply beyond any file).
    static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text) ?? Int64.max
    }

    /// The bytes one spec selects in a file of `size` bytes, or nil if it selects none.
    public static func resolve(_ spec: Spec, size: Int64) -> ClosedRange<Int64>? {
        guard size > 0 else { return nil }
        switch spec {
        case let .span(first, last):
            guard first < size else { return nil }
            return first...min(last ?? size - 1, size - 1)
        case let .suffix(length):
            guard length > 0 else { return nil }
            return max(0, size - length)...(size - 1)
        }
    }

    public static func decide(range: String?, ifRange: String?, ifNoneMatch: String?, ifModifiedSince: String?,
                              etag: String, lastModified: Date, size: Int64) -> Decision {
        if let ifNoneMatch {
            if etagListMatches(ifNoneMatch, etag: etag, weak: true) { return .notModified }
        } else if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince),
                  floor(lastModified.timeIntervalSince1970) <= since.timeIntervalSince1970 {
            return .notModified
        }
        guard let range else { return .full }
        if let ifRange, !ifRangeMatches(ifRange, etag: etag, lastModified: lastModified) { return .full }
        switch parse(range) {
        case .ignore: return .full
        case .invalid: return .unsatisfiable
        case let .ranges(specs):
            guard specs.count == 1 else { return .full }
            return resolve(specs[0], size: size).map(Decision.partial) ?? .unsatisfiable
        }
    }

    /// If-Range needs a strong validator: the exact strong ETag, or exactly the Last-Modified date.
    static func ifRangeMatches(_ value: String, etag: String, lastModified: Date) -> Bool {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            return !value.hasPrefix("W/") && !etag.hasPrefix("W/") && value == etag
        }
        guard let date = HTTPDate.parse(value) else { return false }
        return date.timeIntervalSince1970 == floor(lastModified.timeIntervalSince1970)
    }

    /// If-None-Match uses weak comparison: `W/"x"` matches `"x"`; `*` matches any current file.
    static func etagListMatches(_ list: String, etag: String, weak: Bool) -> Bool {
        let strip: (String) -> String = { $0.hasPrefix("W/") ? String($0.dropFirst(2)) : $0 }
        for candidate in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if candidate == "*" { return true }
            if weak ? strip(candidate) == strip(etag) : candidate == etag { return true }
        }
        return false
    }

    /// A strong validator from what changes when the file does (size and modification time).
    public static func etag(size: Int64, modifiedMillis: Int64) -> String {
        "\"\(String(size, radix: 16))-\(String(modifiedMillis, radix: 16))\""
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the one date format HTTP senders must use.
public enum HTTPDate {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    public static func format(_ date: Date) -> String { formatter().string(from: date) }

    public static func parse(_ text: String) -> Date? { formatter().date(from: text.trimmingCharacters(in: .whitespaces)) }
}
