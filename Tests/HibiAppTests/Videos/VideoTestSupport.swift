import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// Real videos made by ffmpeg's test sources, made once per test run.
enum VideoFixtures {
    static let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-video-fixtures-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// 70 s of testsrc (160×120, H.264) with a sine tone (AAC) in MP4: long enough for the resume rules.
    static let clip: String = make("clip.mp4", duration: 70)
    /// A second, different file for playlists and libraries.
    static let other: String = make("other.mp4", duration: 8, pattern: "smptebars")

    static func make(_ name: String, duration: Int, pattern: String = "testsrc") -> String {
        let output = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: output) { return output }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-v", "error", "-y",
                             "-f", "lavfi", "-i", "\(pattern)=duration=\(duration):size=160x120:rate=10",
                             "-f", "lavfi", "-i", "sine=frequency=440:duration=\(duration)",
                             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "32k",
                             "-shortest", "-movflags", "+faststart", output]
        try? process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "ffmpeg could not make the fixture \(name)")
        return output
    }
}

extension Browser {
    /// Uploads a file's bytes as the body, the way the page's XHR does (session cookie + CSRF header).
    func upload(_ path: String, name: String? = nil) async throws -> Page {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try await uploadBytes(data, name: name ?? (path as NSString).lastPathComponent)
    }

    func uploadBytes(_ data: Data, name: String) async throws -> Page {
        var headers: HTTPFields = [.contentType: "video/mp4", .contentLength: String(data.count)]
        if let csrf { headers[HTTPField.Name("X-CSRF-Token")!] = csrf }
        return try await send("/api/v1/videos?filename=\(Browser.encode(name))", method: .post, headers: headers,
                              body: ByteBuffer(bytes: data))
    }

    func json(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> Page {
        var headers: HTTPFields = [:]
        if let csrf { headers[HTTPField.Name("X-CSRF-Token")!] = csrf }
        if body != nil { headers[.contentType] = "application/json" }
        return try await send(uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// Signs up a second user through the admin page and returns their signed-in browser.
    func addUser(_ username: String) async throws -> Browser {
        try await get("/admin/users")
        try await post("/admin/users", form: ["username": username, "password": "\(username)'s password!"])
        let other = Browser(client: client)
        _ = try await other.signIn(username: username, password: "\(username)'s password!")
        return other
    }

    func uploaded(_ path: String, name: String? = nil) async throws -> VideoResponse {
        let page = try await upload(path, name: name)
        guard page.status == .created else { throw TestFailure("upload failed: \(page.status) \(page.body)") }
        return try APIClient.decode(VideoResponse.self, page)
    }

    func bytes(_ uri: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, HTTPFields, Data) {
        var all = headers
        all[.acceptLanguage] = acceptLanguage
        if !cookies.isEmpty { all[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        let response = try await client.executeRequest(uri: uri, method: .get, headers: all, body: nil)
        return (response.status, response.headers, Data(buffer: response.body))
    }
}
