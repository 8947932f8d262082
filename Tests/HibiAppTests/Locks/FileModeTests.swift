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
        try PhotoStore(dataDirectory: directory, box: core.box).save(TestImages.jpeg, userID: user.id, entryID: UUID().uuidString.lowercased())
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
