import Foundation

/// A JSON value written one way only: keys sorted, no spaces, numbers in their shortest exact form.
/// The visits log signs this text, so the same visit must come out byte-identical every time; health
/// records use it for their metadata, where it is also far cheaper than JSONSerialization.
public indirect enum CanonicalJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([CanonicalJSON])
    case object([String: CanonicalJSON])

    public func render() -> String {
        var out: [UInt8] = []
        render(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func render(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case let .int(value): out.append(contentsOf: String(value).utf8)
        case let .double(value): Self.number(value, into: &out)
        case let .string(value): Self.quote(value, into: &out)
        case let .array(values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.render(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            // Sorted by UTF-8 bytes, which is what Python's sort_keys does for these ASCII keys.
            for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.render(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func number(_ value: Double, into out: inout [UInt8]) {
        // Whole numbers print without ".0" so other languages' serialisers agree on them.
        if value == value.rounded(), abs(value) < 1e15 {
            out.append(contentsOf: String(Int64(saturating: value)).utf8)
        } else {
            out.append(contentsOf: "\(value)".utf8)
        }
    }

    static func quote(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { quote(utf8: $0, into: &out) }
    }

    /// Byte by byte: everything from 0x80 up is part of a multi-byte scalar and is copied unchanged,
    /// exactly as appending the scalars would.
    static func quote(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case ..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(Hex.digits[Int(byte >> 4)])
                out.append(Hex.digits[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Lowercase hex without Foundation's `String(format:)`, which costs microseconds a byte.
public enum Hex {
    static let digits = Array("0123456789abcdef".utf8)

    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower- or upper-case hex back into bytes; nil for an odd length or any other character.
    public static func data(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
