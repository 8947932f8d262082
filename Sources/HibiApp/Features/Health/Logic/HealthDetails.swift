import Foundation

/// A record's kept metadata (a flat JSON object of Apple's attribute and metadata names) as labelled values
/// a person reads: search results showed `{"HKMetadataKeyHeartRateMotionContext":"0"}`.
public enum HealthDetails {
    struct Field {
        let label: Text
        var unit: Text? = nil
        var values: [String: Text] = [:]
    }

    static let fields: [String: Field] = [
        "HKMetadataKeyHeartRateMotionContext": Field(label: Text(en: "Activity when measured", ja: "計測時の状態"), values: [
            "0": Text(en: "not known", ja: "不明"), "1": Text(en: "at rest", ja: "安静時"), "2": Text(en: "active", ja: "活動中")]),
        "HKIndoorWorkout": Field(label: Text(en: "Where", ja: "場所"), values: [
            "0": Text(en: "outdoors", ja: "屋外"), "1": Text(en: "indoors", ja: "屋内")]),
        "HKWasUserEntered": Field(label: Text(en: "Entered by hand", ja: "手入力"), values: [
            "0": Text(en: "no", ja: "いいえ"), "1": Text(en: "yes", ja: "はい")]),
        "HKTimeZone": Field(label: Text(en: "Time zone", ja: "タイムゾーン")),
        "HKWeatherTemperature": Field(label: Text(en: "Temperature", ja: "気温")),
        "HKWeatherHumidity": Field(label: Text(en: "Humidity", ja: "湿度")),
        "HKElevationAscended": Field(label: Text(en: "Elevation gained", ja: "上昇した高度")),
        "HKAverageMETs": Field(label: Text(en: "Average METs", ja: "平均 METs")),
        "HKAverageSpeed": Field(label: Text(en: "Average speed", ja: "平均速度")),
        "HKMaximumSpeed": Field(label: Text(en: "Top speed", ja: "最高速度")),
        "HKLapLength": Field(label: Text(en: "Lap length", ja: "レーンの長さ")),
        "HKSwimmingLocationType": Field(label: Text(en: "Pool or open water", ja: "プールか屋外か"), values: [
            "0": Text(en: "not known", ja: "不明"), "1": Text(en: "pool", ja: "プール"), "2": Text(en: "open water", ja: "屋外")]),
        "totalDistance": Field(label: Text(en: "Distance", ja: "距離")),
        "totalEnergyBurned": Field(label: Text(en: "Energy", ja: "消費エネルギー")),
        "totalSwimmingStrokeCount": Field(label: Text(en: "Strokes", ja: "ストローク数")),
        "totalFlightsClimbed": Field(label: Text(en: "Flights climbed", ja: "上った階数")),
        "activeEnergyBurnedGoal": Field(label: Text(en: "Move goal", ja: "ムーブのゴール"), unit: Text(en: "kcal", ja: "kcal")),
        "appleMoveTime": Field(label: Text(en: "Move", ja: "ムーブ"), unit: Text(en: "min", ja: "分")),
        "appleMoveTimeGoal": Field(label: Text(en: "Move goal", ja: "ムーブのゴール"), unit: Text(en: "min", ja: "分")),
        "appleExerciseTime": Field(label: Text(en: "Exercise", ja: "エクササイズ"), unit: Text(en: "min", ja: "分")),
        "appleExerciseTimeGoal": Field(label: Text(en: "Exercise goal", ja: "エクササイズのゴール"), unit: Text(en: "min", ja: "分")),
        "appleStandHours": Field(label: Text(en: "Stand", ja: "スタンド"), unit: Text(en: "h", ja: "時間")),
        "appleStandHoursGoal": Field(label: Text(en: "Stand goal", ja: "スタンドのゴール"), unit: Text(en: "h", ja: "時間")),
        "members": Field(label: Text(en: "Readings", ja: "内訳")),
    ]

    /// "Label: value" for each kept name, in the stored (sorted) order; a name ending in "Unit" is the unit of
    /// the name before it. Names Hibi does not know are shown in words ("HKMetadataKeyFoo" → "foo").
    public static func labelled(_ json: String?, language: Language) -> [String] {
        guard let json, let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        var pairs: [String: String] = [:]
        for (key, value) in object {
            if let text = value as? String { pairs[key] = text } else if let number = value as? NSNumber { pairs[key] = number.stringValue }
        }
        return pairs.keys.sorted().compactMap { key -> String? in
            if key.hasSuffix("Unit"), pairs[String(key.dropLast(4))] != nil { return nil }
            guard let raw = pairs[key], !raw.isEmpty else { return nil }
            let field = fields[key]
            let label = field?.label(language) ?? spacedName(key)
            var value = field?.values[raw]?(language) ?? raw
            if let unit = pairs[key + "Unit"] {
                let shown = HealthUnits.label(unit, type: nil)(language)
                if !shown.isEmpty { value += " " + shown }
            } else if let unit = field?.unit?(language) {
                value += (language == .ja && ["分", "時間"].contains(unit) ? "" : " ") + unit
            }
            return "\(label): \(value)"
        }
    }

    static func spacedName(_ key: String) -> String {
        var name = key
        for prefix in ["HKMetadataKey", "HK"] where name.hasPrefix(prefix) {
            name = String(name.dropFirst(prefix.count))
            break
        }
        guard let first = name.first else { return key }
        return AppleTypeNames.spaced(first.uppercased() + name.dropFirst())
    }
}
