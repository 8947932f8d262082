import Foundation

extension DayRating {
    /// The default from the day's confirmed moods: each mood's valence (happy good, calm and surprised meh,
    /// sad, angry, afraid and disgusted bad), averaged and rounded half up. The ends of the scale, awful and
    /// great, are left to the person: a photo's mood alone never says a day was the best or the worst.
    /// Nil without a confirmed mood.
    public static func fromMoods(_ moods: [Mood]) -> DayRating? {
        guard !moods.isEmpty else { return nil }
        let values = moods.map { mood -> Int in
            switch mood {
            case .happiness: 4
            case .neutral, .surprise: 3
            case .sadness, .anger, .fear, .disgust: 2
            }
        }
        let average = Double(values.reduce(0, +)) / Double(values.count)
        return DayRating(rawValue: Int(saturating: (average + 0.5).rounded(.down)))
    }
}
