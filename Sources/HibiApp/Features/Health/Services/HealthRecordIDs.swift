import Foundation

/// Record ids for a bulk import: the same UUIDv7 shape as `TimeOrderedID` (48-bit milliseconds, version
/// 7, RFC 9562 variant, uppercase 8-4-4-4-12), but with the random bits drawn from a SplitMix64 stream
/// seeded once per batch from the system generator, and formatted by hand. Per record, the system
/// generator's two getrandom() calls and UUID's printf-based formatting were ~10% of an import (perf).
/// Ids are keys, never secrets: every read checks the owner.
/// Within one generator the ids ascend (RFC 9562 §6.2, a counter in the random bits seeded at random):
/// each record's id lands at the right edge of the `id` index, where SQLite appends to a full page,
/// instead of at a random spot among the batch's ids, which split pages half-empty.
struct HealthRecordIDs {
    private let milliseconds: UInt64
    private var state: UInt64
    /// The 12 bits after the version, then the 62 after the variant, counted up from a random start.
    private var counterHigh: UInt64
    private var counterLow: UInt64
    private static let hex = Array("0123456789ABCDEF".utf8)

    init(now: Date) {
        milliseconds = UInt64(saturating: max(0, now.timeIntervalSince1970 * 1000))
        var system = SystemRandomNumberGenerator()
        state = system.next()
        counterHigh = 0
        counterLow = 0
        counterHigh = random() & 0x0FFF
        // Below 2^61, so a batch never carries into the 12 high bits in practice (handled all the same).
        counterLow = random() & 0x1FFF_FFFF_FFFF_FFFF
    }

    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> String {
        let high = counterHigh, low = counterLow
        counterLow = (counterLow &+ 1) & 0x3FFF_FFFF_FFFF_FFFF
        if counterLow == 0 { counterHigh = (counterHigh &+ 1) & 0x0FFF }
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
