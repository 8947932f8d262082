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
    public private(set) var files: [String: File] = [:]

    public subscript(_ name: String) -> String? { fields[name] }

    /// A file input left empty still sends a part with an empty filename; that counts as no file.
    public func file(_ name: String) -> File? {
        guard let file = files[name], !file.data.isEmpty else { return nil }
        return file
    }

    public var asForm: FormData { FormData(fields: fields) }

    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

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
                    form.files[name] = File(filename: filename, contentType: headers["content-type"], data: Data(buffer: body))
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

    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == name {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}

extension Request {
    public var isMultipart: Bool {
        headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
    }

    /// Collects and parses a multipart body within `limit` bytes.
    public mutating func multipart(limit: Int) async throws -> MultipartForm {
        guard let contentType = headers[.contentType], isMultipart else { throw RequestError.unsupportedMediaType }
        let buffer: ByteBuffer
        do {
            buffer = try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limitBytes: limit)
        }
        return try MultipartForm.parse(buffer, contentType: contentType)
    }
}
