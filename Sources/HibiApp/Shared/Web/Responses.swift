import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// An HTML page as a response. Pages are never cached: they show personal data.
public struct HTMLPage: ResponseGenerator {
    let node: Node
    let status: HTTPResponse.Status

    public init(_ node: Node, status: HTTPResponse.Status = .ok) {
        self.node = node
        self.status = status
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: "<!doctype html>" + node.render()))
        )
    }
}

/// JSON with a chosen status, encoded with ISO-8601 dates like every API answer.
public struct JSONBody<Value: Encodable & Sendable>: ResponseGenerator {
    let value: Value
    let status: HTTPResponse.Status

    public init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONCoding.encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

public enum JSONCoding {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The last line against a stored value that sums or averages past the largest double (ranges at import and
        // `finiteSum` are the first): JSON has no infinity, and the default refused the whole answer with a 500.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        // ISO-8601 as before, but a refusal names its field: the built-in strategy's error had an empty coding
        // path here, so "2024-12-31" for a deadline was answered as a JSON syntax error.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: dateMarker)
        }
        return decoder
    }

    static let dateMarker = "hibi.expected-date-time"

    /// Decodes JSON, turning every decoding failure into a 4xx that names the field and, where known, the expected form.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try decoder.decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw RequestError.missingField(key.stringValue)
        } catch let DecodingError.valueNotFound(_, context) {
            throw RequestError.missingField(context.codingPath.map(\.stringValue).joined(separator: "."))
        } catch let DecodingError.typeMismatch(_, context) {
            throw RequestError.invalidField(context.codingPath.map(\.stringValue).joined(separator: "."),
                                            Text(en: "has the wrong type", ja: "型が正しくありません"))
        } catch let DecodingError.dataCorrupted(context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            if context.debugDescription == dateMarker {
                throw RequestError.invalidField(field.isEmpty ? "date" : field,
                                                Text(en: "must be a date and time with a time zone, such as 2024-05-01T09:00:00Z",
                                                     ja: "2024-05-01T09:00:00Z のようなタイムゾーン付きの日時で指定してください"))
            }
            if context.codingPath.isEmpty { throw RequestError.malformedJSON("syntax error") }
            throw RequestError.invalidField(field, Text(en: "is not valid", ja: "値が正しくありません"))
        }
    }
}

/// Fields of an application/x-www-form-urlencoded body.
public struct FormData: Sendable {
    public let fields: [String: String]

    public init(fields: [String: String]) {
        self.fields = fields
    }

    public init(body: String) {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if fields[key] == nil { fields[key] = value }
        }
        self.fields = fields
    }

    static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    public subscript(_ name: String) -> String? { fields[name] }

    /// A field the form must carry; missing or blank is the user's 400, not a crash.
    public func required(_ name: String) throws -> String {
        guard let value = fields[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RequestError.missingField(name)
        }
        return value
    }

    public func bool(_ name: String) -> Bool {
        guard let value = fields[name] else { return false }
        return ["on", "true", "1", "yes"].contains(value.lowercased())
    }
}

extension Request {
    /// Whether JSON text holds the escape \u0000 (an odd run of backslashes before "u0000", so an escaped
    /// backslash followed by the letters "u0000" is not mistaken for it).
    static func containsEscapedNUL(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        let pattern = Array("u0000".utf8)
        var index = 1
        while index + pattern.count <= bytes.count {
            if bytes[index] == UInt8(ascii: "u"), Array(bytes[index..<index + pattern.count]) == pattern {
                var backslashes = 0
                var back = index - 1
                while back >= 0, bytes[back] == UInt8(ascii: "\\") { backslashes += 1; back -= 1 }
                if backslashes % 2 == 1 { return true }
            }
            index += 1
        }
        return false
    }

    /// The whole body within `limit` bytes; a larger one is a 413 that states this route's limit.
    public mutating func collectBody(limit: Int) async throws -> ByteBuffer {
        do {
            return try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limitBytes: limit)
        }
    }

    /// Collects and parses a form body, within the size limit.
    public mutating func form(limit: Int = 64 * 1024) async throws -> FormData {
        FormData(body: String(buffer: try await collectBody(limit: limit)))
    }

    /// Decodes a JSON body, turning every decoding failure into a 4xx that names the field.
    public mutating func json<T: Decodable>(_ type: T.Type, limit: Int) async throws -> T {
        if let contentType = headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw RequestError.unsupportedMediaType
        }
        let data = Data(buffer: try await collectBody(limit: limit))
        if Self.containsEscapedNUL(data) {
            // Valid JSON, but PostgreSQL cannot store U+0000 in text: refuse it here for every route at once.
            throw RequestError.invalidField("body", Text(en: "contains a NUL character (\\u0000)", ja: "NUL 文字(\\u0000)を含んでいます"))
        }
        return try JSONCoding.decode(T.self, from: data)
    }
}

extension URI {
    /// The query as a browser's GET form sends it: `+` is a space (application/x-www-form-urlencoded).
    /// Hummingbird's `queryParameters` only percent-decodes, so a search for "coffee walk" typed in a
    /// form arrived as "coffee+walk" and found nothing.
    public var formQuery: FlatDictionary<Substring, Substring> {
        guard let query, !query.isEmpty else { return .init() }
        return .init(query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (key: FormData.decode(parts[0])[...], value: (parts.count > 1 ? FormData.decode(parts[1]) : "")[...])
        })
    }
}
