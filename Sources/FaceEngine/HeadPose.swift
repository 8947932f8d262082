import Foundation

/// A head turn from the person's own point of view.
public enum HeadTurnDirection: String, Sendable, Codable, CaseIterable {
    case left, right
}

public enum HeadPose {
    /// Below this |yaw| the head counts as facing the camera.
    public static let turnThreshold = 12.0

    /// Nose depth in front of the eye corners relative to half the distance between the eye centres
    /// (about 20 mm against 31 mm on an adult face). Only the scale of the estimate depends on it.
    static let noseDepthRatio = 0.65

    /// Yaw in degrees from the five landmarks: where the bottom of the nose falls along the line
    /// between the eye centres. Frontal faces put it halfway. Using the eye line rather than the
    /// image x axis keeps a tilted (rolled) head from reading as a turn.
    ///
    /// Sign: a person turning to their own right turns their nose towards the image's left in an
    /// unmirrored camera picture, which gives positive yaw.
    public static func yaw(_ landmarks: FaceLandmarks) -> Double {
        let left = landmarks.imageLeftEyeCentre, right = landmarks.imageRightEyeCentre, nose = landmarks.noseBottom
        let ex = right.x - left.x, ey = right.y - left.y
        let lengthSquared = ex * ex + ey * ey
        guard lengthSquared > 1 else { return 0 }
        let t = ((nose.x - left.x) * ex + (nose.y - left.y) * ey) / lengthSquared
        return atan((0.5 - t) * 2 / noseDepthRatio) * 180 / .pi
    }

    public static func turn(yaw: Double, threshold: Double = turnThreshold) -> HeadTurnDirection? {
        if yaw >= threshold { return .right }
        if yaw <= -threshold { return .left }
        return nil
    }

    static func frontalness(yaw: Double) -> Double {
        max(0, 1 - abs(yaw) / 45)
    }
}
