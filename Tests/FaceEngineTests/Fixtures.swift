import FaceEngine
import Foundation
import Testing

/// Real images and models installed by scripts/setup-face.sh. Missing ones fail the tests.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent(".cache/face-fixtures")
    static let models = root.appendingPathComponent("models")
    static let emotionModel = root.appendingPathComponent("Resources/models/emotion_mini_xception.onnx")

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is missing: run scripts/setup.sh test" }
    }

    static func data(_ relative: String) throws -> Data {
        let path = fixtures.appendingPathComponent(relative).path
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(path: path) }
        return data
    }

    static func configuration() -> FaceEngineConfiguration {
        FaceEngineConfiguration(modelsDirectory: models.path, emotionModelPath: emotionModel.path)
    }

    /// One engine for the whole test run (models load once).
    private static let sharedEngine: Result<FaceEngine, any Error> = Result {
        for file in ["shape_predictor_5_face_landmarks.dat", "dlib_face_recognition_resnet_model_v1.dat", "libonnxruntime.so"] {
            let path = models.appendingPathComponent(file).path
            guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        }
        var config = configuration()
        config.queueLimit = 10_000  // tests run in parallel on this engine; `busy` is tested on its own engine
        return try FaceEngine(configuration: config)
    }

    static func engine() throws -> FaceEngine { try sharedEngine.get() }

    static func faces(_ relative: String) async throws -> [DetectedFace] {
        try await engine().analyze(imageData: try data(relative))
    }

    static func face(_ relative: String) async throws -> DetectedFace {
        let faces = try await faces(relative)
        return try #require(FaceEngine.bestFace(faces), "no face in \(relative)")
    }
}

/// Frames of WolfgangLanger_Pexels.mp4 (every 4th frame extracted by setup, named by frame number)
/// where the woman clearly turns her head; measured yaw about +21 and -18 degrees.
enum YawFrames {
    static let ownRight = "frames/wolfgang/0180.jpg"
    static let ownLeft = "frames/wolfgang/0372.jpg"
}
