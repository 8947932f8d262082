import Foundation

/// One line of a day's health: a total for what adds up over a day (steps, distance, energy, sleep,
/// workout minutes), an average for rates (heart rate), the last reading for states (weight, body fat).
public struct HealthDayLine: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case total, average, latest }
    public let type: String
    public let kind: Kind
    /// In the type's canonical unit (kg, km, kcal, h, count/min, …).
    public let value: Double
    public let unit: String
    public let records: Int
}

public enum HealthDay {
    /// The day's lines in a fixed order (the known types first, then others by name). Imported types Hibi
    /// does not know are summed when their unit is a count or an amount, else shown as the latest reading.
    public static func summarize(_ records: [HealthRecord]) -> [HealthDayLine] {
        let byType = Dictionary(grouping: records, by: \.type)
        let order = HealthDataType.allCases.map(\.rawValue)
        return byType.keys.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
            .compactMap { type -> HealthDayLine? in
                // Sleep has its own section (by night, stages and sources counted once); a sum of its records double-counts.
                guard type != HealthDataType.sleep.rawValue else { return nil }
                guard let group = byType[type], let newest = group.filter(\.value.isFinite).max(by: { $0.start < $1.start }) else { return nil }
                let known = HealthDataType(rawValue: type)
                let unit = known?.canonicalUnit ?? newest.unit
                let values = group.map(\.value).filter(\.isFinite)
                guard !values.isEmpty else { return nil }
                if known?.isCumulative == true {
                    return HealthDayLine(type: type, kind: .total, value: values.finiteSum, unit: unit, records: group.count)
                }
                if known == .heartRate || known == .restingHeartRate || known == .heartRateVariability {
                    return HealthDayLine(type: type, kind: .average, value: values.finiteMean ?? 0, unit: unit, records: group.count)
                }
                return HealthDayLine(type: type, kind: .latest, value: newest.value, unit: unit, records: group.count)
            }
    }
}

