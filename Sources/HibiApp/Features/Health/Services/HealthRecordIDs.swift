import Foundation

/// Record ids for a bulk import: the same UUIDv7 shape as `TimeOrderedID` (48-bit milliseconds, version
/// 7, RFC 9562 variant, uppercase 8-4-4-4-12), but with the random bits drawn from a SplitMix64 stream
/// seeded once per batch from the system generator, and formatted by hand. Per record, the system
/// generator's two getrandom() calls and UUID's printf-based formatting were ~10% of an import (perf).
/// Ids are keys, never secrets: every read checks the owner.
struct HealthRecordIDs {
    private let milliseconds: UInt64
    private var state: UInt64
    private static let hex = Array("0123456789ABCDEF".utf8)

    init(now: Date) {
        milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> String {
        let high = random(), low = random()
        // 48 bits of milliseconds, version 7 and 12 random bits; then the variant and 62 random bits.
        let bytes: (UInt64, UInt64) = (milliseconds << 16 | (0x7000 | high & 0x0FFF), 0x8000_0000_0000_0000 | low & 0x3FFF_FFFF_FFFF_FFFF)
        return String(unsafeUninitializedCapacity: 36) { out in
            var index = 0
            func put(_ word: UInt64, from: Int, to: Int) {
                var shift = 60 - from * 4
                for _ in from..<to {
                    out[index] = Self.hex[Int((word >> UInt64(shift)) & 0xF)]
                    index += 1
                    shift -= 4
                }
            }
            put(bytes.0, from: 0, to: 8); out[index] = 0x2D; index += 1
            put(bytes.0, from: 8, to: 12); out[index] = 0x2D; index += 1
            put(bytes.0, from: 12, to: 16); out[index] = 0x2D; index += 1
            put(bytes.1, from: 0, to: 4); out[index] = 0x2D; index += 1
            put(bytes.1, from: 4, to: 16)
            return index
        }
    }
}
