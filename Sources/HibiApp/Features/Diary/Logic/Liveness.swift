import Foundation

/// Pure checks for face unlock: identity in every frame, head turns in the challenged order,
/// and real movement (a printed photo or a still image cannot turn its head).
public enum Liveness {
    /// Yaw beyond which a head counts as turned. Frontal faces measure within about ±8°; a deliberate turn passes 15°.
    public static let turnThreshold = 15.0
    public static let minimumFrames = 4

    /// Two to three alternating turns in a random order: LR, RL, LRL or RLR. A pre-recorded clip
    /// has to guess the order, and the nonce cannot be reused.
    public static func makeSteps<G: RandomNumberGenerator>(using generator: inout G) -> [HeadTurn] {
        let first: HeadTurn = Bool.random(using: &generator) ? .left : .right
        let second: HeadTurn = first == .left ? .right : .left
        return Bool.random(using: &generator) ? [first, second, first] : [first, second]
    }

    public static func distance(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return .infinity }
        var sum: Float = 0
        for index in a.indices {
            let d = a[index] - b[index]
            sum += d * d
        }
        return sum.squareRoot()
    }

    /// Closest distance to any enrolled template: several enrollment photos cover glasses, light and angle.
    public static func bestDistance(_ embedding: [Float], templates: [[Float]]) -> Float {
        templates.map { distance(embedding, $0) }.min() ?? .infinity
    }

    /// Whether the yaw sequence passes through every challenged turn, in order.
    public static func followsChallenge(yaws: [Double], steps: [HeadTurn], threshold: Double = turnThreshold) -> Bool {
        var next = 0
        for yaw in yaws where next < steps.count {
            switch steps[next] {
            case .left where yaw <= -threshold: next += 1
            case .right where yaw >= threshold: next += 1
            default: break
            }
        }
        return next == steps.count
    }

    /// A still image repeated gives identical frames or landmarks that never move relative to the face.
    public static func looksStill(frameDigests: [String], landmarks: [[Double]], yaws: [Double]) -> Bool {
        if Set(frameDigests).count <= max(1, frameDigests.count / 3) { return true }
        guard let first = landmarks.first else { return true }
        let movement = landmarks.dropFirst().map { other in zip(first, other).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
        let yawSpan = (yaws.max() ?? 0) - (yaws.min() ?? 0)
        return movement < 0.02 && yawSpan < 5
    }

    public enum Verdict: Equatable, Sendable {
        case pass
        case fail(FaceAuthError)
    }

    /// The whole decision, on observations already extracted from the frames (nil = no single face found).
    public static func verify(observations: [FaceObservation?], frameDigests: [String], steps: [HeadTurn],
                              templates: [[Float]], threshold: Float) -> Verdict {
        guard observations.count >= minimumFrames else { return .fail(.tooFewFrames(minimum: minimumFrames)) }
        var seen: [FaceObservation] = []
        for (index, observation) in observations.enumerated() {
            guard let observation else { return .fail(.faceLost(frame: index + 1)) }
            guard bestDistance(observation.embedding, templates: templates) <= threshold else { return .fail(.notTheEnrolledPerson) }
            seen.append(observation)
        }
        if looksStill(frameDigests: frameDigests, landmarks: seen.map(\.landmarks), yaws: seen.map(\.yaw)) { return .fail(.stillImage) }
        guard followsChallenge(yaws: seen.map(\.yaw), steps: steps) else { return .fail(.challengeNotFollowed) }
        return .pass
    }
}
