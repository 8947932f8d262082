import Foundation

/// Pure checks for a live unlock: the person performs head turns in a random order in front of the
/// camera. No anti-spoofing model ships in any package here, so liveness rests on these checks plus
/// the same identity in every frame (done by the caller with `FaceEngine.compare`).
public enum LivenessCheck {
    /// Whether the yaw sequence shows the requested turns in order. Each step must be reached (|yaw| at
    /// least `threshold` in its direction) after the previous one; frames in between, back through
    /// frontal, are allowed. A turn the wrong way before the expected one does not fail the check by
    /// itself, because people often overshoot while finding the camera; the order is what matters.
    public static func followsChallenge(yaws: [Double], challenge: [HeadTurnDirection],
                                        threshold: Double = HeadPose.turnThreshold) -> Bool {
        guard !challenge.isEmpty else { return false }
        var step = 0
        var previous: HeadTurnDirection? = nil
        for yaw in yaws {
            let turn = HeadPose.turn(yaw: yaw, threshold: threshold)
            // A new step only counts on entering a turn, so one long turn cannot satisfy [.left, .left].
            if let turn, turn != previous, turn == challenge[step] {
                step += 1
                if step == challenge.count { return true }
            }
            previous = turn
        }
        return false
    }

    /// Whether frames show a moving head rather than one photo held up (or one frame sent many times).
    /// `landmarks` are per-frame landmark positions normalised to the face box (0...1), so moving a
    /// printed photo around the frame does not count as movement; a real head turn changes where the
    /// nose sits relative to the eyes. Returns true when the largest change of any coordinate across
    /// the frames exceeds `minimumSpread`.
    public static func showsMovement(normalizedLandmarks landmarks: [[Double]], minimumSpread: Double = 0.04) -> Bool {
        guard landmarks.count >= 2, let width = landmarks.first?.count, width > 0,
              landmarks.allSatisfy({ $0.count == width }) else { return false }
        var spread = 0.0
        for index in 0 ..< width {
            let values = landmarks.map { $0[index] }
            spread = max(spread, (values.max() ?? 0) - (values.min() ?? 0))
        }
        return spread > minimumSpread
    }

    /// Landmarks relative to the face box, for `showsMovement`.
    public static func normalizedLandmarks(_ face: DetectedFace) -> [Double] {
        let width = Double(max(face.box.width, 1)), height = Double(max(face.box.height, 1))
        return face.landmarks.points.flatMap {
            [($0.x - Double(face.box.x)) / width, ($0.y - Double(face.box.y)) / height]
        }
    }

    /// Whether two frames are byte-for-byte the same picture, the cheapest replay to catch.
    public static func identicalFrames(_ frames: [Data]) -> Bool {
        Set(frames).count < frames.count
    }
}
