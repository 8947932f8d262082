import Foundation

/// UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, in the usual text form.
/// Rows added in bulk (a health import adds millions) get keys that grow with time, so the primary-key
/// B-tree is appended to instead of being written at a random page for every row.
public enum TimeOrderedID {
    public static func make(now: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(milliseconds: UInt64(saturating: max(0, now.timeIntervalSince1970 * 1000)), using: &generator)
    }

    static func make(milliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        // Two draws, not one per byte: each draw from the system generator is a getrandom() call.
        let high = generator.next(), low = generator.next()
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * (index - 6))) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * (index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }
}
