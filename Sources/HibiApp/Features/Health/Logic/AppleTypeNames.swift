/// Friendly names for Apple Health types Hibi keeps as they are ("BodyMassIndex" → "Body mass index" / "BMI"):
/// lists and filters showed Apple's identifiers.
public enum AppleTypeNames {
    static let known: [String: Text] = [
        "BodyMassIndex": Text(en: "Body mass index", ja: "BMI"),
        "FlightsClimbed": Text(en: "Flights climbed", ja: "上った階数"),
        "DistanceCycling": Text(en: "Cycling distance", ja: "サイクリングの距離"),
        "DistanceSwimming": Text(en: "Swimming distance", ja: "水泳の距離"),
        "BasalEnergyBurned": Text(en: "Resting energy", ja: "安静時消費エネルギー"),
        "AppleExerciseTime": Text(en: "Exercise minutes", ja: "エクササイズ時間"),
        "AppleStandTime": Text(en: "Stand minutes", ja: "スタンド時間"),
        "AppleStandHour": Text(en: "Stand hours", ja: "スタンドした時間"),
        "HeartRateVariabilitySDNN": Text(en: "Heart rate variability", ja: "心拍変動"),
        "OxygenSaturation": Text(en: "Blood oxygen", ja: "血中酸素"),
        "RespiratoryRate": Text(en: "Respiratory rate", ja: "呼吸数"),
        "WalkingHeartRateAverage": Text(en: "Walking heart rate", ja: "歩行時の平均心拍数"),
        "VO2Max": Text(en: "Cardio fitness (VO₂ max)", ja: "最大酸素摂取量"),
        "Height": Text(en: "Height", ja: "身長"),
        "LeanBodyMass": Text(en: "Lean body mass", ja: "除脂肪体重"),
        "DietaryWater": Text(en: "Water", ja: "水分"),
        "DietaryEnergyConsumed": Text(en: "Dietary energy", ja: "摂取エネルギー"),
        "MindfulSession": Text(en: "Mindful minutes", ja: "マインドフルネス"),
        "SleepAnalysis": Text(en: "Sleep", ja: "睡眠"),
        "HeadphoneAudioExposure": Text(en: "Headphone audio level", ja: "ヘッドフォンの音量"),
        "EnvironmentalAudioExposure": Text(en: "Noise level", ja: "環境音レベル"),
        "WalkingSpeed": Text(en: "Walking speed", ja: "歩行速度"),
        "WalkingStepLength": Text(en: "Step length", ja: "歩幅"),
        "WalkingDoubleSupportPercentage": Text(en: "Double support time", ja: "両足支持時間"),
        "WalkingAsymmetryPercentage": Text(en: "Walking asymmetry", ja: "歩行非対称性"),
        "BodyTemperature": Text(en: "Body temperature", ja: "体温"),
        "BloodGlucose": Text(en: "Blood glucose", ja: "血糖値"),
        "StairAscentSpeed": Text(en: "Stair speed: up", ja: "階段の速度(上り)"),
        "StairDescentSpeed": Text(en: "Stair speed: down", ja: "階段の速度(下り)"),
        "SixMinuteWalkTestDistance": Text(en: "Six-minute walk", ja: "6分間歩行距離"),
        "DietaryFatTotal": Text(en: "Fat", ja: "脂質"),
        "DietaryProtein": Text(en: "Protein", ja: "たんぱく質"),
        "DietaryCarbohydrates": Text(en: "Carbohydrates", ja: "炭水化物"),
        "BloodPressure": Text(en: "Blood pressure (pair)", ja: "血圧(最高・最低)"),
        "Food": Text(en: "Meal", ja: "食事"),
        "HandwashingEvent": Text(en: "Handwashing", ja: "手洗い"),
        "ToothbrushingEvent": Text(en: "Toothbrushing", ja: "歯みがき"),
    ]

    /// The friendly name of an Apple identifier (with or without its HK… prefix); unknown ones in words.
    public static func title(_ identifier: String) -> Text {
        let short = AppleHealthMapping.shortName(identifier)
        if let known = known[short] { return known }
        let words = spaced(short)
        return Text(en: words, ja: words)
    }

    /// "FlightsClimbed" → "Flights climbed"; a run of capitals stays one word ("VO2Max" → "VO2 max").
    static func spaced(_ name: String) -> String {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let previous = index > 0 ? characters[index - 1] : nil
            let startsWord = character.isUppercase && !current.isEmpty
                && (previous?.isLowercase == true || next?.isLowercase == true)
            if startsWord { words.append(current); current = "" }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.enumerated().map { index, word in
            index == 0 || word.count > 1 && word.allSatisfy({ $0.isUppercase || $0.isNumber }) ? word : word.lowercased()
        }.joined(separator: " ")
    }
}
