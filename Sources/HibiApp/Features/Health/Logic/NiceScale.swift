import Foundation

/// Chart axes on round numbers: a step of 1, 2, 2.5 or 5 times a power of ten, and bounds on whole steps,
/// so ticks read 60, 62, 64 rather than 3163.6, 6618.0.
public struct NiceScale: Sendable, Equatable {
    public let low: Double
    public let high: Double
    public let step: Double

    /// At most about `maxTicks` ticks covering `low...high`; a flat or empty span gets a span of its own.
    public init(low: Double, high: Double, maxTicks: Int = 5) {
        var low = low.isFinite ? low : 0, high = high.isFinite ? high : 1
        if high < low { swap(&low, &high) }
        if high - low < 1e-9 {
            let spread = max(abs(low) * 0.05, 1)
            low -= spread; high += spread
        }
        let raw = (high - low) / Double(max(1, maxTicks - 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10
        step = nice * magnitude
        self.low = (low / step).rounded(.down) * step
        self.high = (high / step).rounded(.up) * step
    }

    public var ticks: [Double] {
        let count = Int(saturating: ((high - low) / step).rounded())
        // Computed from the index and rounded to the step's digits, so 3 × 0.2 is 0.6, not 0.6000000000000001.
        let power = pow(10, Double(fractionDigits))
        return (0...max(0, min(count, 50))).map { index in
            ((low + Double(index) * step) * power).rounded() / power
        }
    }

    /// Digits after the decimal point that the step needs (2.5 → 1, 0.25 → 2, 500 → 0).
    public var fractionDigits: Int {
        var digits = 0
        var scaled = step
        while digits < 6, abs(scaled - scaled.rounded()) > 1e-9 * max(1, abs(scaled)) {
            scaled *= 10
            digits += 1
        }
        return digits
    }
}
