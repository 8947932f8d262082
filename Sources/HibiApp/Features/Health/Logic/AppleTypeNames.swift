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

    /// A record's category as a person reads it: a workout's activity ("Running" → ランニング), a sleep stage,
    /// a category sample's value. Unknown ones in words, as `title` does.
    static let categories: [String: Text] = [
        "Running": Text(en: "Running", ja: "ランニング"),
        "Walking": Text(en: "Walking", ja: "ウォーキング"),
        "Cycling": Text(en: "Cycling", ja: "サイクリング"),
        "Swimming": Text(en: "Swimming", ja: "水泳"),
        "Hiking": Text(en: "Hiking", ja: "ハイキング"),
        "Yoga": Text(en: "Yoga", ja: "ヨガ"),
        "Pilates": Text(en: "Pilates", ja: "ピラティス"),
        "Dance": Text(en: "Dance", ja: "ダンス"),
        "CardioDance": Text(en: "Cardio dance", ja: "カーディオダンス"),
        "SocialDance": Text(en: "Social dance", ja: "ソーシャルダンス"),
        "Elliptical": Text(en: "Elliptical", ja: "エリプティカル"),
        "Rowing": Text(en: "Rowing", ja: "ローイング"),
        "StairClimbing": Text(en: "Stair climbing", ja: "階段昇降"),
        "Stairs": Text(en: "Stairs", ja: "階段"),
        "StepTraining": Text(en: "Step training", ja: "ステップトレーニング"),
        "HighIntensityIntervalTraining": Text(en: "High-intensity interval training", ja: "HIIT"),
        "FunctionalStrengthTraining": Text(en: "Functional strength training", ja: "機能的筋力トレーニング"),
        "TraditionalStrengthTraining": Text(en: "Strength training", ja: "筋力トレーニング"),
        "CoreTraining": Text(en: "Core training", ja: "コアトレーニング"),
        "CrossTraining": Text(en: "Cross training", ja: "クロストレーニング"),
        "MixedCardio": Text(en: "Mixed cardio", ja: "ミックスカーディオ"),
        "Flexibility": Text(en: "Flexibility", ja: "柔軟運動"),
        "Cooldown": Text(en: "Cooldown", ja: "クールダウン"),
        "MindAndBody": Text(en: "Mind and body", ja: "マインド&ボディ"),
        "PreparationAndRecovery": Text(en: "Preparation and recovery", ja: "準備とリカバリー"),
        "JumpRope": Text(en: "Jump rope", ja: "縄跳び"),
        "Boxing": Text(en: "Boxing", ja: "ボクシング"),
        "Kickboxing": Text(en: "Kickboxing", ja: "キックボクシング"),
        "MartialArts": Text(en: "Martial arts", ja: "武道"),
        "TaiChi": Text(en: "Tai chi", ja: "太極拳"),
        "Climbing": Text(en: "Climbing", ja: "クライミング"),
        "Tennis": Text(en: "Tennis", ja: "テニス"),
        "TableTennis": Text(en: "Table tennis", ja: "卓球"),
        "Badminton": Text(en: "Badminton", ja: "バドミントン"),
        "Soccer": Text(en: "Soccer", ja: "サッカー"),
        "Basketball": Text(en: "Basketball", ja: "バスケットボール"),
        "Baseball": Text(en: "Baseball", ja: "野球"),
        "Volleyball": Text(en: "Volleyball", ja: "バレーボール"),
        "Golf": Text(en: "Golf", ja: "ゴルフ"),
        "DownhillSkiing": Text(en: "Downhill skiing", ja: "スキー"),
        "CrossCountrySkiing": Text(en: "Cross-country skiing", ja: "クロスカントリースキー"),
        "Snowboarding": Text(en: "Snowboarding", ja: "スノーボード"),
        "SkatingSports": Text(en: "Skating", ja: "スケート"),
        "SurfingSports": Text(en: "Surfing", ja: "サーフィン"),
        "PaddleSports": Text(en: "Paddling", ja: "パドルスポーツ"),
        "WaterFitness": Text(en: "Water fitness", ja: "水中フィットネス"),
        "WheelchairWalkPace": Text(en: "Wheelchair (walk pace)", ja: "車いす(ウォーキングペース)"),
        "WheelchairRunPace": Text(en: "Wheelchair (run pace)", ja: "車いす(ランニングペース)"),
        "HandCycling": Text(en: "Hand cycling", ja: "ハンドサイクリング"),
        "Play": Text(en: "Play", ja: "遊び"),
        "Other": Text(en: "Other", ja: "その他"),
        // Sleep stages and category samples.
        "InBed": Text(en: "In bed", ja: "ベッドにいた時間"),
        "Asleep": Text(en: "Asleep", ja: "睡眠"),
        "AsleepUnspecified": Text(en: "Asleep", ja: "睡眠"),
        "AsleepCore": Text(en: "Core sleep", ja: "コア睡眠"),
        "AsleepDeep": Text(en: "Deep sleep", ja: "深い睡眠"),
        "AsleepREM": Text(en: "REM sleep", ja: "レム睡眠"),
        "Awake": Text(en: "Awake", ja: "覚醒"),
        "Stood": Text(en: "Stood", ja: "スタンドした"),
        "Idle": Text(en: "Idle", ja: "スタンドなし"),
        "AppleStandHourStood": Text(en: "Stood", ja: "スタンドした"),
        "AppleStandHourIdle": Text(en: "Idle", ja: "スタンドなし"),
    ]

    public static func category(_ value: String) -> Text {
        if let known = categories[value] { return known }
        // A correlation's summary ("BloodPressureSystolic 120 mmHg, …") or a free word: already a sentence.
        if value.contains(" ") { return Text(en: value, ja: value) }
        return title(value)
    }

    /// The friendly name of an Apple identifier (with or without its HK… prefix); unknown ones in words.
    public static func title(_ identifier: String) -> Text {
        let short = AppleHealthMapping.shortName(identifier)
        if let known = known[short] ?? categories[short] { return known }
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
