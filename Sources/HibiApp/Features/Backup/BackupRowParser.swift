import Foundation

/// Reads one JSON-lines row of a format 1 backup (a JSON array of scalars, as Hibi wrote them up to 118f429) straight into
/// typed values, without Foundation's JSONDecoder: decoding every line through it (an enum per value and
/// a `try?` cascade per number) was most of a restore's CPU time. Strict JSON: a value of the wrong kind
/// for its column, a malformed number or string, invalid UTF-8 or trailing bytes make the line refused.
enum BackupRowParser {
    static func parse(_ line: UnsafeBufferPointer<UInt8>, columns: [BackupManifest.Column], into values: inout [BackupValue]) -> Bool {
        values.removeAll(keepingCapacity: true)
        var cursor = Cursor(bytes: line)
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: "[")) else { return false }
        cursor.skipSpace()
        if cursor.take(UInt8(ascii: "]")) {
            cursor.skipSpace()
            return columns.isEmpty && cursor.atEnd
        }
        for (index, column) in columns.enumerated() {
            if index > 0 {
                cursor.skipSpace()
                guard cursor.take(UInt8(ascii: ",")) else { return false }
                cursor.skipSpace()
            }
            guard let value = cursor.value(for: column.type) else { return false }
            values.append(value)
        }
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: "]")) else { return false }
        cursor.skipSpace()
        return cursor.atEnd
    }

    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { at >= bytes.count }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        mutating func take(word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { return false }
            at += count
            return true
        }

        mutating func value(for type: BackupColumnType) -> BackupValue? {
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "n"): return take(word: "null") ? .null : nil
            case UInt8(ascii: "t"): return type == .boolean && take(word: "true") ? .boolean(true) : nil
            case UInt8(ascii: "f"): return type == .boolean && take(word: "false") ? .boolean(false) : nil
            case UInt8(ascii: "\""):
                guard type == .text || type == .blob, let string = string() else { return nil }
                if type == .text { return .text(string) }
                return Data(base64Encoded: string).map { .blob($0) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number(for: type)
            default: return nil
            }
        }

        /// A JSON string; the common case (no escapes) is one UTF-8 validation of the bytes as they are.
        mutating func string() -> String? {
            at += 1 // the opening quote
            let start = at
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                    at += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
                if byte < 0x20 { return nil }
                at += 1
            }
            return nil
        }

        private mutating func escapedString(from start: Int) -> String? {
            var out: [UInt8] = Array(bytes[start..<at])
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""): return String(validating: out, as: UTF8.self)
                case 0..<0x20: return nil
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            // A high surrogate must be followed by its low half.
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: return nil
                    }
                default: out.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - at >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                at += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// A JSON number: an integer token (digits only) for integer columns, any number for real ones.
        private mutating func number(for type: BackupColumnType) -> BackupValue? {
            let start = at
            var integral = true
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): break
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"): integral = false
                default:
                    return finishNumber(start: start, integral: integral, type: type)
                }
                at += 1
            }
            return finishNumber(start: start, integral: integral, type: type)
        }

        private func finishNumber(start: Int, integral: Bool, type: BackupColumnType) -> BackupValue? {
            let token = UnsafeBufferPointer(rebasing: bytes[start..<at])
            guard Self.isJSONNumber(token) else { return nil }
            switch type {
            case .integer:
                guard integral, let number = Self.int64(token) else { return nil }
                return .integer(number)
            case .real:
                if integral, let number = Self.int64(token) { return .real(Double(number)) }
                guard let number = Double(String(decoding: token, as: UTF8.self)), number.isFinite else { return nil }
                return .real(number)
            default: return nil
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        static func isJSONNumber(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
            var i = 0
            let n = token.count
            func digits() -> Int {
                let from = i
                while i < n, token[i] >= UInt8(ascii: "0"), token[i] <= UInt8(ascii: "9") { i += 1 }
                return i - from
            }
            if i < n, token[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n else { return false }
            if token[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
            if i < n, token[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return false }
            }
            if i < n, token[i] == UInt8(ascii: "e") || token[i] == UInt8(ascii: "E") {
                i += 1
                if i < n, token[i] == UInt8(ascii: "+") || token[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return false }
            }
            return i == n
        }

        /// Digits with an optional minus, refused on overflow (Int64.min included).
        static func int64(_ token: UnsafeBufferPointer<UInt8>) -> Int64? {
            var i = 0
            let negative = token.first == UInt8(ascii: "-")
            if negative { i = 1 }
            guard i < token.count else { return nil }
            var value: Int64 = 0
            while i < token.count {
                let digit = Int64(token[i] &- UInt8(ascii: "0"))
                guard digit >= 0, digit <= 9 else { return nil }
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                value = next
                i += 1
            }
            return value
        }
    }
}
