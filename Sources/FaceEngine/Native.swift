import CDlibShim
import COnnxRuntime
import Foundation

/// The model files the engine loads, with the SHA-256 each must have.
enum ModelFile {
    static let shapePredictor = (name: "shape_predictor_5_face_landmarks.dat",
                                 sha256: "c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888")
    static let recognition = (name: "dlib_face_recognition_resnet_model_v1.dat",
                              sha256: "55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30")
    static let emotion = (name: "emotion_mini_xception.onnx",
                          sha256: "2e2142f901e8bdf2e9a236a661cdb2955f4ade3ed402182a947ea486699aee97")
    static let onnxRuntime = (name: "libonnxruntime.so.1.31.1",
                              sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3")

    static func check(path: String, sha256 expected: String, verify: Bool) throws(FaceEngineError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw .modelMissing(path: path)
        }
        guard verify else { return }
        let actual = try sha256(path: path)
        guard actual == expected else {
            throw .modelInvalid(path: path, reason: "SHA-256 is \(actual), expected \(expected)")
        }
    }

    static func sha256(path: String) throws(FaceEngineError) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var error = hibi_error()
        guard hibi_sha256_file(path, &digest, &error) == HIBI_OK else {
            throw .modelInvalid(path: path, reason: error.text)
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

extension hibi_error {
    var text: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// A decoded RGB image owned by the shim.
final class DecodedImage {
    var image = hibi_image()

    var width: Int { Int(image.width) }
    var height: Int { Int(image.height) }

    init(data: Data, maxPixels: Int) throws(FaceEngineError) {
        var error = hibi_error()
        var decoded = hibi_image()
        let status = data.withUnsafeBytes { raw in
            hibi_image_decode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int64(maxPixels), &decoded, &error)
        }
        switch status {
        case HIBI_OK: image = decoded
        case HIBI_ERR_TOO_LARGE: throw .imageTooLarge(width: Int(decoded.width), height: Int(decoded.height))
        case HIBI_ERR_TRUNCATED: throw .unreadableImage(.truncated)
        case HIBI_ERR_UNSUPPORTED_FORMAT: throw .unreadableImage(.unsupportedFormat)
        case HIBI_ERR_CORRUPT, HIBI_ERR_ARGUMENT: throw .unreadableImage(.corrupt(error.text))
        default: throw .engineFailure(error.text)
        }
    }

    deinit {
        hibi_image_free(&image)
    }
}

/// dlib's shape predictor and the recognition network as loaded from disk, shared read-only.
final class DlibModels: @unchecked Sendable {
    let handle: OpaquePointer

    init(shapePredictorPath: String, recognitionPath: String) throws(FaceEngineError) {
        var error = hibi_error()
        guard let handle = hibi_models_load(shapePredictorPath, recognitionPath, &error) else {
            let text = error.text
            throw .modelInvalid(path: text.contains(recognitionPath) ? recognitionPath : shapePredictorPath, reason: text)
        }
        self.handle = handle
    }

    deinit {
        hibi_models_free(handle)
    }
}

/// One worker's detector and network; used by exactly one pool thread at a time, which is what makes
/// the unchecked Sendable safe.
final class DlibWorker: @unchecked Sendable {
    let handle: OpaquePointer
    let models: DlibModels

    init(models: DlibModels) throws(FaceEngineError) {
        var error = hibi_error()
        guard let handle = hibi_worker_create(models.handle, &error) else { throw .engineFailure(error.text) }
        self.handle = handle
        self.models = models
    }

    deinit {
        hibi_worker_free(handle)
    }
}

/// The FER2013 classifier through ONNX Runtime; its Run is safe to call from several threads.
final class EmotionClassifier: @unchecked Sendable {
    let session: OpaquePointer

    init(libraryPath: String, modelPath: String) throws(FaceEngineError) {
        var message = [CChar](repeating: 0, count: 512)
        guard let session = hibi_ort_open(libraryPath, modelPath, 1, &message, message.count) else {
            throw .modelInvalid(path: modelPath, reason: String(cString: message))
        }
        guard hibi_ort_input_count(session) == Int(HIBI_EMOTION_SIDE * HIBI_EMOTION_SIDE),
              hibi_ort_output_count(session) == Emotion.modelOrder.count else {
            hibi_ort_close(session)
            throw .modelInvalid(path: modelPath, reason: "expected a 64x64 grey input and 7 outputs")
        }
        self.session = session
    }

    func classify(_ input: UnsafePointer<Float>) throws(FaceEngineError) -> [Emotion: Float] {
        var output = [Float](repeating: 0, count: Emotion.modelOrder.count)
        var message = [CChar](repeating: 0, count: 512)
        let count = Int(HIBI_EMOTION_SIDE * HIBI_EMOTION_SIDE)
        guard hibi_ort_run(session, input, count, &output, output.count, &message, message.count) == 0 else {
            throw .engineFailure("emotion model: " + String(cString: message))
        }
        // The model ends in softmax; renormalising only removes float rounding so the scores sum to 1.
        let total = output.reduce(0, +)
        var scores: [Emotion: Float] = [:]
        for (index, emotion) in Emotion.modelOrder.enumerated() {
            scores[emotion] = total > 0 ? output[index] / total : 1 / Float(output.count)
        }
        return scores
    }

    deinit {
        hibi_ort_close(session)
    }
}
