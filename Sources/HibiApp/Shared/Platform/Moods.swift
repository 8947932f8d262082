import Foundation

/// The seven moods of seed 000 (and of the FER2013 emotion model).
public enum Mood: String, Sendable, CaseIterable, Codable, Comparable {
    case happiness, sadness, anger, surprise, fear, disgust, neutral

    public var label: Text {
        switch self {
        case .happiness: Text(en: "Happy", ja: "喜び")
        case .sadness: Text(en: "Sad", ja: "悲しみ")
        case .anger: Text(en: "Angry", ja: "怒り")
        case .surprise: Text(en: "Surprised", ja: "驚き")
        case .fear: Text(en: "Afraid", ja: "恐れ")
        case .disgust: Text(en: "Disgusted", ja: "嫌悪")
        case .neutral: Text(en: "Calm", ja: "平静")
        }
    }

    public var emoji: String {
        switch self {
        case .happiness: "😊"
        case .sadness: "😢"
        case .anger: "😠"
        case .surprise: "😮"
        case .fear: "😨"
        case .disgust: "🤢"
        case .neutral: "😐"
        }
    }

    /// Calendar and chart colour; chosen to stay distinguishable for common colour-vision deficiencies.
    public var color: String {
        switch self {
        case .happiness: "#f59f00"
        case .sadness: "#1c7ed6"
        case .anger: "#e03131"
        case .surprise: "#ae3ec9"
        case .fear: "#5c940d"
        case .disgust: "#0ca678"
        case .neutral: "#868e96"
        }
    }

    /// Fixed order so ties are broken the same way everywhere.
    public static func < (a: Mood, b: Mood) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}
