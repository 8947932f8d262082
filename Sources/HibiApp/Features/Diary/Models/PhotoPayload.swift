import Foundation

/// A photo sent inside JSON: base64, or a `data:` URL as a browser canvas produces. Used by diary
/// entries, face enrollment and both face checks (diary unlock and face sign-in).
struct PhotoPayload: Codable, Sendable {
    var photo: String

    static func decode(_ base64: String) throws -> Data {
        let payload = base64.range(of: "base64,").map { String(base64[$0.upperBound...]) } ?? base64
        guard let data = Data(base64Encoded: payload, options: .ignoreUnknownCharacters), !data.isEmpty else { throw DiaryError.photoNotAnImage }
        return data
    }
}

/// One camera frame answering a liveness challenge (diary unlock and face sign-in).
struct FaceFrameRequest: Codable, Sendable {
    var challengeId: String
    var frame: String
}
