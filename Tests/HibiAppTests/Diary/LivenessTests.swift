import Foundation
import Testing
@testable import HibiApp

@Suite struct LivenessTests {
    let me: [Float] = Array(repeating: 0.1, count: 128)
    var someoneElse: [Float] { me.enumerated().map { $0.offset % 2 == 0 ? 0.2 : 0.0 } }

    func frame(yaw: Double, embedding: [Float]? = nil, shift: Double = 0) -> FaceObservation {
        FaceObservation(embedding: embedding ?? me, yaw: yaw, landmarks: [0.3 + shift, 0.4, 0.7 + shift, 0.4, 0.5, 0.6, 0.35, 0.8, 0.65, 0.8])
    }

    func digests(_ n: Int) -> [String] { (0..<n).map { "frame-\($0)" } }

    @Test func stepsAlternateInARandomOrder() {
        var generator = SystemRandomNumberGenerator()
        var seen = Set<[HeadTurn]>()
        for _ in 0..<200 {
            let steps = Liveness.makeSteps(using: &generator)
            #expect((2...3).contains(steps.count))
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 != $1 })
            seen.insert(steps)
        }
        #expect(seen.count == 4)
    }

    @Test func turnsMustComeInTheChallengedOrder() {
        #expect(Liveness.followsChallenge(yaws: [0, -5, -20, -25, 0, 18, 22], steps: [.left, .right]))
        #expect(!Liveness.followsChallenge(yaws: [0, 20, 0, -20], steps: [.left, .right]))
        #expect(Liveness.followsChallenge(yaws: [0, 20, 0, -20, 0, 25], steps: [.right, .left, .right]))
        #expect(!Liveness.followsChallenge(yaws: [0, -12, 12], steps: [.left, .right]))
    }

    @Test func theEnrolledPersonTurningAsAskedPasses() {
        let frames = [frame(yaw: 0), frame(yaw: -2), frame(yaw: -20, shift: 0.05), frame(yaw: -24, shift: 0.06), frame(yaw: 21, shift: -0.05), frame(yaw: 25, shift: -0.06)]
        #expect(Liveness.verify(observations: frames, frameDigests: digests(6), steps: [.left, .right], templates: [me], threshold: 0.4) == .pass)
    }

    @Test func anotherPersonFailsEvenWhenTurningCorrectly() {
        let frames = [0.0, -2, -20, -24, 21, 25].map { frame(yaw: $0, embedding: someoneElse, shift: $0 / 400) }
        #expect(Liveness.verify(observations: frames, frameDigests: digests(6), steps: [.left, .right], templates: [me], threshold: 0.4) == .fail(.notTheEnrolledPerson))
    }

    @Test func oneImpostorFrameIsEnough() {
        var frames = [0.0, -2, -20, -24, 21, 25].map { frame(yaw: $0, shift: $0 / 400) }
        frames[3] = frame(yaw: -24, embedding: someoneElse)
        #expect(Liveness.verify(observations: frames, frameDigests: digests(6), steps: [.left, .right], templates: [me], threshold: 0.4) == .fail(.notTheEnrolledPerson))
    }

    @Test func aStillImageFails() {
        let frames = Array(repeating: frame(yaw: 1), count: 8)
        #expect(Liveness.verify(observations: frames, frameDigests: Array(repeating: "same", count: 8), steps: [.left, .right], templates: [me], threshold: 0.4) == .fail(.stillImage))
        // Different bytes (camera noise on a printed photo) but a face that never moves.
        #expect(Liveness.verify(observations: frames, frameDigests: digests(8), steps: [.left, .right], templates: [me], threshold: 0.4) == .fail(.stillImage))
    }

    @Test func aFrameWithoutAFaceFails() {
        let frames: [FaceObservation?] = [frame(yaw: 0), nil, frame(yaw: -20), frame(yaw: 20)]
        #expect(Liveness.verify(observations: frames, frameDigests: digests(4), steps: [.left, .right], templates: [me], threshold: 0.4) == .fail(.faceLost(frame: 2)))
    }

    @Test func tooFewFramesFail() {
        #expect(Liveness.verify(observations: [frame(yaw: -20), frame(yaw: 20)], frameDigests: digests(2), steps: [.left, .right], templates: [me], threshold: 0.4)
                == .fail(.tooFewFrames(minimum: Liveness.minimumFrames)))
    }
}
