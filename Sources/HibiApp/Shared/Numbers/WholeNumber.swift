import Foundation

/// The one way a floating value becomes an integer in server code. `Int(aDouble)` traps when the value is
/// not finite or does not fit ("Double value cannot be converted to Int because the result would be greater
/// than Int.max"), and a value read back from a file, a request or the database can be anything: one
/// imported step count of 1e19 stopped every page that showed it. Here the value saturates at the type's
/// ends instead (NaN becomes zero), which is always a number a page can show; values that are implausible
/// are refused earlier by validation (`HealthRules.validate`), this is the last line, not the only one.
/// `scripts/check-traps.py` flags any other conversion of a floating value.
extension FixedWidthInteger {
    /// `value` rounded by `rule` (toward zero by default, as `Int(_:)` does), clamped to `min...max`; NaN is 0.
    @inlinable
    public init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .towardZero) {
        let whole = value.rounded(rule)
        if whole.isNaN {
            self = 0
        } else if whole >= Double(Self.max) {
            // Double(Int64.max) rounds up to 2^63, which does not fit: `>=` keeps the conversion below in range.
            self = .max
        } else if whole <= Double(Self.min) {
            self = .min
        } else {
            self.init(whole)  // trap-check: whole is an integral value strictly inside min...max (checked above)
        }
    }
}

extension Sequence<Double> {
    /// The sum of the finite values, held inside ±`greatestFiniteMagnitude`: two stored values near the largest
    /// double add up to infinity, which JSON cannot carry (the API answered 500) and no page can show.
    public var finiteSum: Double {
        var total = 0.0
        for value in self where value.isFinite {
            total = Swift.min(Double.greatestFiniteMagnitude, Swift.max(-Double.greatestFiniteMagnitude, total + value))
        }
        return total
    }

    /// The mean of the finite values (nil when there are none), from `finiteSum`, so always finite.
    public var finiteMean: Double? {
        let finite = filter(\.isFinite)
        return finite.isEmpty ? nil : finite.finiteSum / Double(finite.count)
    }
}
