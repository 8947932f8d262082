import Foundation
import Testing
@testable import HibiApp
#if canImport(Glibc)
import Glibc
#endif

/// With the usual umask 022, nothing Hibi writes is readable by other accounts.
@Suite(.serialized) struct FileModeTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func theDataDirectoryDatabaseAndUploadsAreTheOwnersAlone() async throws {
        umask(0o022)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-modes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let config = try await TestApp.config(dataDirectory: directory, database: .sqliteFile(path: directory + "/hibi.sqlite"))
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: nil, password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        try PhotoStore(dataDirectory: directory, box: core.box).save(TestImages.jpeg, userID: user.id, photoID: UUID().uuidString.lowercased())
        let made = directory + "/made-later.txt"
        FileManager.default.createFile(atPath: made, contents: Data("x".utf8))
        #expect(Self.mode(directory) == 0o700)
        for file in ["hibi.sqlite", "hibi.sqlite-wal", "data.key", "made-later.txt"] {
            let path = directory + "/" + file
            if FileManager.default.fileExists(atPath: path) { #expect(Self.mode(path) & 0o077 == 0, "\(file): \(String(Self.mode(path), radix: 8))") }
        }
        let photos = directory + "/diary-photos/" + user.id
        #expect(Self.mode(photos) & 0o077 == 0)
        #expect(!PrivateFiles.isReadableByOthers(directory))
        await core.database.shutdown()
    }
}

/// ffprobe and ffmpeg open only local files in the containers of real videos.
struct MediaInputTests {
    @Test func anUploadedPlaylistIsNotFollowed() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe") else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-m3u8-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let segment = directory + "/segment.ts"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        make.arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=5", "-c:v", "mpeg2video", segment]
        try make.run()
        make.waitUntilExit()
        let playlist = directory + "/video.m3u8"
        // An HLS playlist naming another file on the server: without the whitelists ffprobe follows it
        // (format "hls"); a playlist could as well name any path or URL.
        try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n\(segment)\n#EXT-X-ENDLIST\n".write(toFile: playlist, atomically: true, encoding: .utf8)
        let probe = MediaProbe(ffprobePath: "/usr/bin/ffprobe", ffmpegPath: "/usr/bin/ffmpeg")
        #expect(try await probe.probe(path: playlist) == nil)
        // The segment itself is a video and is still read.
        #expect(try await probe.probe(path: segment)?.container != nil)
        #expect(await probe.thumbnail(path: playlist, duration: 1, to: directory + "/thumb.jpg") == false)
    }
}
