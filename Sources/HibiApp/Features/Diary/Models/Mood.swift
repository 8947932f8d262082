import Foundation

/// Scores for the seven moods, summing to 1 (from the face engine).
public struct MoodScores: Sendable, Codable, Equatable {
    public var values: [Mood: Double]

    public init(_ values: [Mood: Double]) {
        self.values = values
    }

    /// The suggestion offered to the user: the highest score, ties by the fixed mood order.
    public var top: (mood: Mood, confidence: Double)? {
        values.max { a, b in a.value == b.value ? a.key > b.key : a.value < b.value }.map { ($0.key, $0.value) }
    }

    public init(from decoder: any Decoder) throws {
        let raw = try [String: Double](from: decoder)
        var values: [Mood: Double] = [:]
        for (key, value) in raw {
            guard let mood = Mood(rawValue: key) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown mood \(key)"))
            }
            values[mood] = value
        }
        self.values = values
    }

    public func encode(to encoder: any Encoder) throws {
        try Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value) }).encode(to: encoder)
    }
}
