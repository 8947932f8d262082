import Foundation

/// Parameters of multipart headers (`boundary=…`, `name=…`, `filename=…`). Foundation only, so the
/// fuzzer (scripts/fuzz) builds these files alone.
public enum MultipartHeader {
    public static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    public static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == name {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}

/// The first part of a multipart body, read before anything else so the CSRF token of a form can be
/// checked without reading (or parsing) the upload behind it. Hibi's forms put `_csrf` first; browsers
/// send fields in document order.
public enum MultipartLeadingField: Equatable, Sendable {
    /// More bytes are needed to finish the first part.
    case incomplete
    case field(name: String, value: String)
    /// The body does not start with a text part (or is not multipart at all).
    case invalid

    static let maxHeaderBytes = 2048

    public static func read(_ bytes: UnsafeRawBufferPointer, boundary: String) -> MultipartLeadingField {
        let delimiter = Array("--\(boundary)".utf8)
        var index = 0
        // A CRLF before the first delimiter is allowed (RFC 2046 calls it the preamble's end).
        if bytes.count >= 2, bytes[0] == 0x0D, bytes[1] == 0x0A { index = 2 }
        guard bytes.count >= index + delimiter.count + 2 else { return prefixMatches(bytes, from: index, delimiter) ? .incomplete : .invalid }
        for byte in delimiter {
            guard bytes[index] == byte else { return .invalid }
            index += 1
        }
        guard bytes[index] == 0x0D, bytes[index + 1] == 0x0A else { return .invalid }
        index += 2
        let headersStart = index
        guard let headersEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: headersStart) else {
            return bytes.count - headersStart > maxHeaderBytes ? .invalid : .incomplete
        }
        guard headersEnd - headersStart <= maxHeaderBytes else { return .invalid }
        let headers = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[headersStart..<headersEnd]), as: UTF8.self)
        var name: String?
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" else { continue }
            let value = String(pair[1])
            if MultipartHeader.parameter("filename", in: value) != nil { return .invalid }
            name = MultipartHeader.parameter("name", in: value)
        }
        guard let name else { return .invalid }
        let valueStart = headersEnd + 4
        guard let valueEnd = find([0x0D, 0x0A] + delimiter, in: bytes, from: valueStart) else { return .incomplete }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        return .field(name: name, value: value)
    }

    private static func prefixMatches(_ bytes: UnsafeRawBufferPointer, from start: Int, _ delimiter: [UInt8]) -> Bool {
        var i = start, j = 0
        while i < bytes.count, j < delimiter.count {
            if bytes[i] != delimiter[j] { return false }
            i += 1
            j += 1
        }
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            var j = 0
            while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
            if j == needle.count { return i }
            i += 1
        }
        return nil
    }
}

