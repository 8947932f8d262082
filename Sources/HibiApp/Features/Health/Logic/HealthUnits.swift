import Foundation

/// Unit handling: everything is stored in the type's canonical unit; input in any supported unit
/// is converted on the way in, and shown in the user's preferred unit on the way out.
public enum HealthUnits {
    /// Multiplier from `unit` to the canonical unit of `type`, or nil if the unit does not fit.
    public static func factor(from unit: String, for type: HealthDataType) -> Double? {
        // Units almost never carry spaces; Foundation's trimming cost 3% of an import when always run.
        let u = unit.first == " " || unit.last == " " || unit.first == "\t" || unit.last == "\t" ? unit.trimmingCharacters(in: .whitespaces) : unit
        switch type {
        case .weight:
            switch u.lowercased() {
            case "kg": return 1
            case "g": return 0.001
            case "lb", "lbs": return 0.45359237
            case "st": return 6.35029318
            default: return nil
            }
        case .activeCalories, .activitySummary:
            switch u {
            case "kcal", "Cal", "cal_kcal": return 1
            case "kJ", "kj": return 1 / 4.184
            case "cal": return 0.001
            default: return nil
            }
        case .walkingRunningDistance:
            switch u.lowercased() {
            case "km": return 1
            case "m": return 0.001
            case "mi": return 1.609344
            case "ft": return 0.0003048
            case "yd": return 0.0009144
            default: return nil
            }
        case .steps:
            return ["count", "steps", ""].contains(u.lowercased()) ? 1 : nil
        case .heartRate, .restingHeartRate:
            return ["count/min", "bpm", "/min"].contains(u.lowercased()) ? 1 : nil
        case .heartRateVariability:
            switch u.lowercased() {
            case "ms": return 1
            case "s": return 1000
            default: return nil
            }
        case .bodyFat:
            return u == "%" ? 1 : nil
        case .sleep:
            switch u.lowercased() {
            case "h", "hr": return 1
            case "min": return 1.0 / 60
            default: return nil
            }
        case .bloodPressureSystolic, .bloodPressureDiastolic:
            switch u.lowercased() {
            case "mmhg": return 1
            case "kpa": return 7.50061683
            default: return nil
            }
        case .workout:
            switch u.lowercased() {
            case "min": return 1
            case "h", "hr": return 60
            case "s", "sec": return 1.0 / 60
            default: return nil
            }
        }
    }

    public static func normalize(_ value: Double, unit: String, type: HealthDataType) throws(HealthError) -> Double {
        guard let factor = factor(from: unit, for: type) else { throw .unknownUnit(unit: unit, type: type.rawValue) }
        return value * factor
    }

    /// The unit the user reads values of `type` in.
    public static func displayUnit(for type: HealthDataType, preferences: UnitPreferences) -> String {
        switch type {
        case .weight: preferences.weight.rawValue
        case .walkingRunningDistance: preferences.distance.rawValue
        case .activeCalories, .activitySummary: preferences.energy.rawValue
        default: type.canonicalUnit
        }
    }

    /// A unit as a person reads it: Apple's "count/min" is beats per minute for a heart, a count has no unit
    /// of its own (the type's title says what is counted), and minutes and hours are words in Japanese.
    public static func label(_ unit: String, type: HealthDataType?) -> Text {
        switch unit {
        case "count/min" where type == .heartRate || type == .restingHeartRate: Text(en: "bpm", ja: "拍/分")
        case "count/min": Text(en: "/min", ja: "回/分")
        case "count": Text(en: "", ja: "")
        case "min": Text(en: "min", ja: "分")
        case "h", "hr": Text(en: "h", ja: "時間")
        case "s": Text(en: "s", ja: "秒")
        case "m": Text(en: "m", ja: "m")
        default: Text(en: unit, ja: unit)
        }
    }

    public static func display(_ canonical: Double, type: HealthDataType, preferences: UnitPreferences) -> Double {
        let unit = displayUnit(for: type, preferences: preferences)
        guard let factor = factor(from: unit, for: type), factor != 0 else { return canonical }
        return canonical / factor
    }

    /// Units offered in the entry form for a type.
    public static func inputUnits(for type: HealthDataType) -> [String] {
        switch type {
        case .weight: ["kg", "lb"]
        case .walkingRunningDistance: ["km", "mi", "m"]
        case .activeCalories: ["kcal", "kJ"]
        case .sleep: ["h", "min"]
        case .bloodPressureSystolic, .bloodPressureDiastolic: ["mmHg", "kPa"]
        default: [type.canonicalUnit]
        }
    }

    /// Plausible range in the canonical unit, for manual entry and CSV.
    public static func plausibleRange(for type: HealthDataType) -> ClosedRange<Double> {
        switch type {
        case .weight: 1...500
        case .steps: 0...200_000
        case .activeCalories, .activitySummary: 0...20_000
        case .heartRate: 20...250
        case .restingHeartRate: 20...200
        // SDNN from a watch: a few ms in illness to about 250 ms in young athletes at rest.
        case .heartRateVariability: 1...500
        case .bodyFat: 1...75
        case .walkingRunningDistance: 0...300
        case .sleep: 0...24
        case .bloodPressureSystolic: 50...260
        case .bloodPressureDiastolic: 30...180
        case .workout: 0...1440
        }
    }
}

public enum HealthFormat {
    public static func number(_ value: Double, maxFractionDigits: Int = 1) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.\(maxFractionDigits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A number for reading, thousands grouped as the language writes them ("8,432"), on every page alike.
    /// (`number` stays ungrouped: it fills form fields and files that are read back.)
    public static func grouped(_ value: Double, maxFractionDigits: Int = 1, language: Language) -> String {
        guard value.isFinite else { return number(value, maxFractionDigits: maxFractionDigits) }
        let digits = max(0, min(maxFractionDigits, 6))
        return value.formatted(.number.precision(.fractionLength(0...digits)).grouping(.automatic)
            .locale(Locale(identifier: language == .ja ? "ja_JP" : "en_US")))
    }

    public static func value(_ canonical: Double, type: String, preferences: UnitPreferences, language: Language) -> String {
        guard let known = HealthDataType(rawValue: type) else { return grouped(canonical, maxFractionDigits: 2, language: language) }
        let shown = HealthUnits.display(canonical, type: known, preferences: preferences)
        let unit = HealthUnits.label(HealthUnits.displayUnit(for: known, preferences: preferences), type: known)(language)
        let digits = known == .steps ? 0 : (known == .walkingRunningDistance ? 2 : 1)
        let text = grouped(shown, maxFractionDigits: digits, language: language)
        // Japanese writes minutes and hours against the number ("30.5分"); symbols keep their space.
        let tight = language == .ja && ["分", "時間", "秒"].contains(unit)
        return unit.isEmpty ? text : text + (tight ? "" : " ") + unit
    }
}

/// Rules for values a person types in (or a CSV carries).
public enum HealthRules {
    public struct Entry: Sendable, Equatable {
        public var type: HealthDataType
        public var value: Double
        public var unit: String
        public var start: Date
        public var end: Date
    }

    public static func validate(type rawType: String, value: Double?, unit: String?, start: Date, end: Date?, now: Date) throws(HealthError) -> Entry {
        guard let type = HealthDataType(rawValue: rawType), HealthDataType.manual.contains(type) else { throw .unknownType(rawType) }
        guard let value, value.isFinite else { throw .notANumber }
        // Steps are counted: 12.5 was kept but shown as 12. Refused, saying why, rather than changed silently.
        if type == .steps, value.rounded() != value {
            throw .invalidField("value", Text(en: "steps are counted in whole numbers; \(HealthFormat.number(value, maxFractionDigits: 4)) is not one.",
                                              ja: "歩数は整数で入力してください(\(HealthFormat.number(value, maxFractionDigits: 4)) は整数ではありません)。"))
        }
        let unit = unit.flatMap { $0.isEmpty ? nil : $0 } ?? type.canonicalUnit
        let canonical = try HealthUnits.normalize(value, unit: unit, type: type)
        try checkRange(type, canonical)
        let end = end ?? start
        guard end >= start else { throw .endBeforeStart }
        // A few minutes of clock skew between a phone and the server is not the future.
        guard start <= now.addingTimeInterval(300) else { throw .futureDate }
        return Entry(type: type, value: canonical, unit: type.canonicalUnit, start: start, end: end)
    }

    /// A number typed into a form or written in a CSV, read by `NumberInput` (nil when empty).
    public static func number(_ text: String?, _ source: NumberInput.Source) throws(HealthError) -> Double? {
        do { return try NumberInput.parse(text, source) } catch { throw .unreadableNumber(error) }
    }

    /// The one range check every path applies (manual entry, the API, the CSV, Apple Health, takeout).
    public static func checkRange(_ type: HealthDataType, _ canonical: Double) throws(HealthError) {
        let range = HealthUnits.plausibleRange(for: type)
        guard range.contains(canonical) else {
            throw .outOfRange(type: type.rawValue, min: range.lowerBound, max: range.upperBound, unit: type.canonicalUnit)
        }
    }

    /// Kinds Hibi keeps as an import wrote them (FlightsClimbed, a unit it cannot convert, correlations) have no
    /// manual-entry range; this bound is far past any real measurement of any of them and keeps 1e19 out of sums.
    static let keptAsImported: ClosedRange<Double> = -1e9...1e9

    /// Whether an imported record's value (already in Hibi's unit when its kind is known) may be stored: the
    /// manual-entry range for the kinds a person can type, `keptAsImported` for the rest. Pure, for every import.
    public static func isPlausible(type: String, value: Double) -> Bool {
        guard value.isFinite else { return false }
        guard let known = HealthDataType(rawValue: type) else { return keptAsImported.contains(value) }
        return (try? checkRange(known, value)) != nil
    }
}
