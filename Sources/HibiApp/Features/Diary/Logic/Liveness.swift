import Foundation

/// Pure checks for face unlock. The server reveals one step at a time (look straight, then turns
/// drawn at random) and judges every frame as it arrives, stamped by the server's clock. A flat
/// picture fails because its pose cannot change smoothly: a photo keeps one yaw under any shift,
/// scale or tilt, its mirror jumps to the opposite yaw with nothing in between, and shearing a
/// frontal photo moves the nose without narrowing the far eye as a turning head does.
public enum Liveness {
    /// Yaw beyond which a head counts as turned left or right. Frontal faces measure within about ±8°.
    public static let turnThreshold = 15.0
    /// Pitch (relative to the user's own straight-ahead frames) beyond which a head counts as up or down.
    /// The 5-point landmarks see pitch only through the nose's drop below the eyes, so this is smaller
    /// than the yaw threshold: the fixture woman looking clearly up measures 7-10°.
    public static let pitchThreshold = 6.0
    /// Depth of the nose's bottom in front of the eye corners, relative to the eye distance (as in the engine's yaw).
    static let noseDepth = 0.4

    public static let turnCount = 3
    /// Frames looking straight (|yaw| < 10°) that set the pitch baseline before the first turn is revealed.
    public static let straightFrames = 3

    // Timing, in milliseconds of the server's clock.
    /// Frames closer together than this did not come from a camera one at a time: a burst.
    public static let minimumInterval: Int64 = 90
    /// Longest wait between answering one frame and the next one arriving.
    public static let maximumGap: Int64 = 1500
    /// The person's time to perform one step after it is revealed: from each answer to the next frame's
    /// arrival, summed. The server's own analysis time is not theirs: a loaded server (a debug build on
    /// a busy machine took over 700 ms a frame) must not time out a genuine head.
    public static let stepWindow: Int64 = 7000
    /// Wall-clock bound on one step, whatever the server's speed: a client cannot use the time the server
    /// spends on its frames to prepare the next ones for longer than this.
    public static let stepWallWindow: Int64 = 3 * stepWindow
    public static let maximumFrames = 120
    /// Frames without a usable face (a blink, motion blur) tolerated in one challenge.
    public static let maximumLostFrames = 3

    // Continuity between consecutive frames.
    static let maximumCentreShift = 0.5   // of the face box's width
    static let maximumScaleChange = 1.5   // box width ratio
    static let maximumYawStep = 30.0
    static let maximumPitchStep = 25.0
    /// A head does not go from clearly left to clearly right between two frames; an image and its mirror do.
    static let mirrorJumpYaw = 10.0

    /// Least slope of eye-width asymmetry against yaw over the turned frames. A turning head's far eye
    /// narrows: measured about 0.0033 per degree on the fixture video; a sheared flat photo gives about 0.
    static let minimumAsymmetrySlope = 0.0012

    // MARK: - Steps

    /// At least three turns from left, right, up and down, never the same twice in a row, and at least
    /// one left or right (the turn that the 3-D check can see with five landmarks).
    public static func makeSteps<G: RandomNumberGenerator>(count: Int = turnCount, using generator: inout G) -> [HeadTurn] {
        while true {
            var steps: [HeadTurn] = []
            for _ in 0..<max(3, count) {
                let choices = HeadTurn.allCases.filter { $0 != steps.last }
                steps.append(choices.randomElement(using: &generator) ?? .left)
            }
            if steps.contains(where: \.isYaw) { return steps }
        }
    }

    public static func distance(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum: Float = 0
        for index in a.indices {
            let d = a[index] - b[index]
            sum += d * d
        }
        let result = sum.squareRoot()
        return result.isFinite ? result : .infinity
    }

    /// Closest distance to any enrolled template: several enrollment photos cover glasses, light and angle.
    public static func bestDistance(_ embedding: [Float], templates: [[Float]]) -> Float {
        templates.map { distance(embedding, $0) }.min() ?? .infinity
    }

    // MARK: - Geometry of one frame

    /// Pose cues from the five landmarks in image pixels (dlib's order: 0, 1 = outer and inner corner
    /// of the eye on the image's right; 2, 3 = the other eye; 4 = bottom of the nose).
    public struct Geometry: Sendable, Equatable, Codable {
        /// Nose's distance below the eye line divided by the eye distance: grows when the head tips down.
        public let noseDrop: Double
        /// (width of the image-right eye - width of the image-left eye) / their sum: positive when the
        /// image-left eye is foreshortened, which happens when yaw is positive.
        public let eyeAsymmetry: Double
        public let eyeDistance: Double
    }

    public static func geometry(points p: [Double]) -> Geometry? {
        guard p.count == 10, p.allSatisfy(\.isFinite) else { return nil }
        let right = (x: (p[0] + p[2]) / 2, y: (p[1] + p[3]) / 2)
        let left = (x: (p[4] + p[6]) / 2, y: (p[5] + p[7]) / 2)
        let dx = right.x - left.x, dy = right.y - left.y
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 1 else { return nil }
        let mid = (x: (right.x + left.x) / 2, y: (right.y + left.y) / 2)
        let nx = p[8] - mid.x, ny = p[9] - mid.y
        let drop = (-nx * dy + ny * dx) / (d * d)
        let wRight = hypot(p[0] - p[2], p[1] - p[3]), wLeft = hypot(p[4] - p[6], p[5] - p[7])
        guard wRight + wLeft > 0 else { return nil }
        return Geometry(noseDrop: drop, eyeAsymmetry: (wRight - wLeft) / (wRight + wLeft), eyeDistance: d)
    }

    /// Degrees, positive when the head tips up, from the nose drop against the user's straight-ahead drop.
    static func pitch(noseDrop: Double, baseline: Double) -> Double {
        atan((baseline - noseDrop) / noseDepth) * 180 / .pi
    }

    // MARK: - The challenge, one frame at a time

    public struct Frame: Codable, Sendable, Equatable {
        public var arrivedAt: Int64
        public var yaw: Double
        public var geometry: Geometry
        /// x, y, width, height of the face box in pixels.
        public var box: [Double]
        public var distance: Float

        public init(arrivedAt: Int64, yaw: Double, geometry: Geometry, box: [Double], distance: Float) {
            self.arrivedAt = arrivedAt
            self.yaw = yaw
            self.geometry = geometry
            self.box = box
            self.distance = distance
        }
    }

    /// What is stored (sealed) between frames.
    public struct State: Codable, Sendable, Equatable {
        public var steps: [HeadTurn]
        /// 0 while looking straight; k while performing steps[k - 1].
        public var current: Int = 0
        public var stepRevealedAt: Int64
        public var baseline: Double?
        public var frames: [Frame] = []
        public var lostFrames = 0
        public var lastArrivedAt: Int64?
        public var lastAnsweredAt: Int64?
        /// The person's time spent on the current step (see `stepWindow`); optional so that a challenge
        /// stored before it existed still opens.
        public var stepUserTime: Int64?

        public init(steps: [HeadTurn], createdAt: Int64) {
            self.steps = steps
            self.stepRevealedAt = createdAt
        }

        /// The step the user is asked to perform now: nil = look straight.
        public var step: HeadTurn? { current == 0 ? nil : steps[min(current, steps.count) - 1] }
    }

    public enum Outcome: Equatable, Sendable {
        case next(State)
        case passed(State)
        case failed(FaceAuthError)
    }

    /// Checks the arrival time alone, before any analysis is spent on the frame.
    public static func admit(_ state: State, arrivedAt: Int64) -> FaceAuthError? {
        if let last = state.lastArrivedAt, arrivedAt - last < minimumInterval { return .framesTooFast }
        if let answered = state.lastAnsweredAt, arrivedAt - answered > maximumGap { return .framesInterrupted }
        if state.current > 0 {
            if (state.stepUserTime ?? 0) + userTime(state, arrivedAt: arrivedAt) > stepWindow { return .stepTimedOut }
            if arrivedAt - state.stepRevealedAt > stepWallWindow { return .stepTimedOut }
        }
        if state.frames.count + state.lostFrames >= maximumFrames { return .stepTimedOut }
        return nil
    }

    /// The client's time from the last answer to this frame's arrival.
    static func userTime(_ state: State, arrivedAt: Int64) -> Int64 {
        max(0, arrivedAt - (state.lastAnsweredAt ?? state.stepRevealedAt))
    }

    /// Judges one analysed frame (nil = no single usable face) and moves the challenge on.
    public static func advance(_ state: State, frame: Frame?, answeredAt: Int64, arrivedAt: Int64, threshold: Float) -> Outcome {
        if let refused = admit(state, arrivedAt: arrivedAt) { return .failed(refused) }
        var state = state
        if state.current > 0 { state.stepUserTime = (state.stepUserTime ?? 0) + userTime(state, arrivedAt: arrivedAt) }
        state.lastArrivedAt = arrivedAt
        state.lastAnsweredAt = answeredAt
        guard let frame else {
            state.lostFrames += 1
            return state.lostFrames > maximumLostFrames ? .failed(.faceLost(frame: state.frames.count + state.lostFrames)) : .next(state)
        }
        guard frame.distance <= threshold else { return .failed(.notTheEnrolledPerson) }
        if let previous = state.frames.last, let broken = continuity(previous, frame, baseline: state.baseline) { return .failed(broken) }
        state.frames.append(frame)

        if state.current == 0 {
            let straight = state.frames.suffix(straightFrames)
            guard straight.count == straightFrames, straight.allSatisfy({ abs($0.yaw) < 10 }) else { return .next(state) }
            state.baseline = median(straight.map(\.geometry.noseDrop))
            state.current = 1
            state.stepRevealedAt = answeredAt
            state.stepUserTime = 0
            return .next(state)
        }
        guard let step = state.step, let baseline = state.baseline else { return .failed(.challengeNotFollowed) }
        guard performs(step, frame, baseline: baseline) else { return .next(state) }
        if state.current < state.steps.count {
            state.current += 1
            state.stepRevealedAt = answeredAt
            state.stepUserTime = 0
            return .next(state)
        }
        if let flat = poseInconsistency(state.frames) { return .failed(flat) }
        state.current += 1
        return .passed(state)
    }

    public static func performs(_ step: HeadTurn, _ frame: Frame, baseline: Double) -> Bool {
        let pitch = pitch(noseDrop: frame.geometry.noseDrop, baseline: baseline)
        switch step {
        case .left: return frame.yaw <= -turnThreshold
        case .right: return frame.yaw >= turnThreshold
        case .up: return pitch >= pitchThreshold && abs(frame.yaw) < 25
        case .down: return pitch <= -pitchThreshold && abs(frame.yaw) < 25
        }
    }

    /// Consecutive frames of one head: the box moves and scales smoothly, the pose changes by a
    /// bounded amount, and the yaw never flips from one side to the other (an image and its mirror).
    public static func continuity(_ a: Frame, _ b: Frame, baseline: Double?) -> FaceAuthError? {
        guard a.box.count == 4, b.box.count == 4, a.box[2] > 0, b.box[2] > 0 else { return .faceJumped }
        let centreA = (x: a.box[0] + a.box[2] / 2, y: a.box[1] + a.box[3] / 2)
        let centreB = (x: b.box[0] + b.box[2] / 2, y: b.box[1] + b.box[3] / 2)
        let shift = hypot(centreB.x - centreA.x, centreB.y - centreA.y) / a.box[2]
        let scale = max(a.box[2], b.box[2]) / min(a.box[2], b.box[2])
        if shift > maximumCentreShift || scale > maximumScaleChange { return .faceJumped }
        if (a.yaw >= mirrorJumpYaw && b.yaw <= -mirrorJumpYaw) || (a.yaw <= -mirrorJumpYaw && b.yaw >= mirrorJumpYaw) { return .mirrorJump }
        if abs(b.yaw - a.yaw) > maximumYawStep { return .faceJumped }
        if let baseline {
            let step = abs(pitch(noseDrop: b.geometry.noseDrop, baseline: baseline) - pitch(noseDrop: a.geometry.noseDrop, baseline: baseline))
            if step > maximumPitchStep { return .faceJumped }
        }
        return nil
    }

    /// A turning head's far eye narrows as the yaw grows; a flat picture sheared or tilted to move the
    /// nose sideways keeps both eyes the same width. Least-squares slope (through the origin) of the
    /// eye-width asymmetry against yaw, over the frames turned at least 8°.
    public static func asymmetrySlope(_ frames: [Frame]) -> Double? {
        let turned = frames.filter { abs($0.yaw) >= 8 }
        guard !turned.isEmpty else { return nil }
        let sxy = turned.reduce(0) { $0 + $1.yaw * $1.geometry.eyeAsymmetry }
        let sxx = turned.reduce(0) { $0 + $1.yaw * $1.yaw }
        return sxx > 0 ? sxy / sxx : nil
    }

    public static func poseInconsistency(_ frames: [Frame]) -> FaceAuthError? {
        guard let slope = asymmetrySlope(frames) else { return .challengeNotFollowed }
        return slope >= minimumAsymmetrySlope ? nil : .flatPicture
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

extension HeadTurn {
    var isYaw: Bool { self == .left || self == .right }
}
