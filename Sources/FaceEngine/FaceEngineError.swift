/// Why the engine could not give an answer. The cases are stable: the app maps each one to its
/// own translated message, so add cases rather than renaming them.
public enum FaceEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    case noFace
    case multipleFaces(count: Int)
    case faceTooSmall(size: Int, minimum: Int)
    case faceTooBlurry
    case notFrontal
    case tooDark
    case unreadableImage(ImageProblem)
    case imageTooLarge(width: Int, height: Int)
    /// Every worker is busy and the waiting line is full.
    case busy
    case modelMissing(path: String)
    case modelInvalid(path: String, reason: String)
    /// Something failed inside the native libraries (out of memory, say); details are for the log.
    case engineFailure(String)

    public enum ImageProblem: Sendable, Equatable, CustomStringConvertible {
        case unsupportedFormat
        case truncated
        case corrupt(String)

        public var description: String {
            switch self {
            case .unsupportedFormat: "it is not a JPEG, PNG or WebP image"
            case .truncated: "the file is cut off (the upload may have been interrupted)"
            case let .corrupt(detail): "the file is damaged (\(detail))"
            }
        }
    }

    public var description: String {
        switch self {
        case .noFace:
            "No face was found. Face the camera in good light, with nothing covering your face."
        case let .multipleFaces(count):
            "\(count) faces are in the picture; only one person should be in view."
        case let .faceTooSmall(size, minimum):
            "The face is too small (\(size) pixels wide, at least \(minimum) needed); come closer to the camera."
        case .faceTooBlurry:
            "The picture is blurred; hold still and make sure the camera is in focus."
        case .notFrontal:
            "Look straight at the camera."
        case .tooDark:
            "The face is too dark; find more light or face a window or lamp."
        case let .unreadableImage(problem):
            "The image cannot be read: \(problem). Try taking or choosing it again."
        case let .imageTooLarge(width, height):
            "The image is too large (\(width)×\(height) pixels); use a smaller photo."
        case .busy:
            "Face recognition is busy; try again in a moment."
        case let .modelMissing(path):
            "Face model file \(path) is missing; run scripts/setup-face.sh."
        case let .modelInvalid(path, reason):
            "Face model file \(path) is not usable (\(reason)); run scripts/setup-face.sh again."
        case let .engineFailure(detail):
            "Face analysis failed unexpectedly (\(detail)); try again."
        }
    }
}
