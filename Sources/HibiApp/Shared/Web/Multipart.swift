import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A parsed multipart/form-data body: text fields and uploaded files (with their declared names).
public struct MultipartForm: Sendable {
    public struct File: Sendable {
        public let filename: String
        public let contentType: String?
        public let data: Data
    }

    public private(set) var fields: [String: String] = [:]
    /// Every file part in the order sent, with its field name: an `<input type=file multiple>` sends several under one name.
    public private(set) var orderedFiles: [(name: String, file: File)] = []

    public subscript(_ name: String) -> String? { fields[name] }

    /// The last file sent under `name`. A file input left empty still sends a part with an empty
    /// filename; that counts as no file.
    public func file(_ name: String) -> File? {
        guard let file = orderedFiles.last(where: { $0.name == name })?.file, !file.data.isEmpty else { return nil }
        return file
    }

    /// All non-empty files sent under one field name, in order.
    public func files(_ name: String) -> [File] {
        orderedFiles.filter { $0.name == name && !$0.file.data.isEmpty }.map(\.file)
    }

    public var asForm: FormData { FormData(fields: fields) }

    static func boundary(of contentType: String) -> String? { MultipartHeader.boundary(of: contentType) }

    public static func parse(_ buffer: ByteBuffer, contentType: String) throws -> MultipartForm {
        guard let boundary = boundary(of: contentType) else {
            throw RequestError.invalidField("Content-Type", Text(en: "has no multipart boundary", ja: "multipart の境界がありません"))
        }
        let parser = MultipartParser(boundary: boundary)
        var form = MultipartForm()
        var headers: [String: String] = [:]
        var body = ByteBuffer()
        parser.onHeader = { name, value in headers[name.lowercased()] = value }
        parser.onBody = { chunk in body.writeBuffer(&chunk) }
        parser.onPartComplete = {
            let disposition = headers["content-disposition"] ?? ""
            if let name = Self.parameter("name", in: disposition) {
                if let filename = Self.parameter("filename", in: disposition) {
                    let file = File(filename: filename, contentType: headers["content-type"], data: Data(buffer: body))
                    form.orderedFiles.append((name, file))
                } else if form.fields[name] == nil {
                    form.fields[name] = String(buffer: body)
                }
            }
            headers = [:]
            body = ByteBuffer()
        }
        do {
            try parser.execute(buffer)
        } catch {
            throw RequestError.invalidField("body", Text(en: "is not valid multipart/form-data", ja: "multipart/form-data として正しくありません"))
        }
        return form
    }

    static func parameter(_ name: String, in header: String) -> String? { MultipartHeader.parameter(name, in: header) }
}

extension Request {
    public var isMultipart: Bool {
        headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
    }

    /// Collects and parses a multipart body within `limit` bytes.
    public mutating func multipart(limit: Int) async throws -> MultipartForm {
        guard let contentType = headers[.contentType], isMultipart else { throw RequestError.unsupportedMediaType }
        return try MultipartForm.parse(try await collectBody(limit: limit), contentType: contentType)
    }
}

/// A request body whose first bytes were already read (to check a form's CSRF token): yields those,
/// then the rest of the original stream. The iterator lives in a box because it moves from the
/// middleware to the route; the two never read it at the same time (the route runs after the
/// middleware's read finished), which is why the unchecked Sendable is sound.
struct PrefixedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    final class Rest: @unchecked Sendable {
        var iterator: RequestBody.AsyncIterator
        init(_ iterator: RequestBody.AsyncIterator) { self.iterator = iterator }
    }
    let prefix: ByteBuffer
    let rest: Rest

    struct AsyncIterator: AsyncIteratorProtocol {
        var prefix: ByteBuffer?
        let rest: Rest
        mutating func next() async throws -> ByteBuffer? {
            if let first = prefix {
                prefix = nil
                if first.readableBytes > 0 { return first }
            }
            return try await rest.iterator.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(prefix: prefix, rest: rest) }
}

extension Request {
    /// Reads only the first part of a multipart body (at most `limit` bytes) and puts what was read
    /// back in front of the rest of the body for the route.
    mutating func multipartLeadingField(limit: Int) async throws -> MultipartLeadingField {
        guard let contentType = headers[.contentType], let boundary = MultipartForm.boundary(of: contentType) else { return .invalid }
        var iterator = body.makeAsyncIterator()
        var seen = ByteBuffer()
        var result = MultipartLeadingField.incomplete
        while result == .incomplete {
            guard var chunk = try await iterator.next() else {
                result = .invalid
                break
            }
            seen.writeBuffer(&chunk)
            result = seen.withUnsafeReadableBytes { MultipartLeadingField.read($0, boundary: boundary) }
            if result == .incomplete, seen.readableBytes > limit { result = .invalid }
        }
        body = RequestBody(asyncSequence: PrefixedRequestBody(prefix: seen, rest: .init(iterator)))
        return result
    }
}
