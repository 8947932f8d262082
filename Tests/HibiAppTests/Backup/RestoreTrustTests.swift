import Crypto
import Foundation
import SQLKit
import Testing
import ZIPFoundation
@testable import HibiApp

/// Issue 28, items 4 and 5: a restore trusts nothing it did not write. Each attack is an archive someone could
/// hand an operator, restored through the `hibi restore` binary as an operator would; each must be refused
/// before anything is written, leaving the target as it was, and the genuine backup must restore afterwards.
@Suite(.serialized) struct RestoreTrustTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/hibi").path

    /// `hibi restore ARGS` into `target` (SQLite beside it): exit status and what it printed on stderr.
    static func restoreCLI(_ archive: String, into target: String, _ flags: [String] = []) throws -> (status: Int32, stderr: String) {
        try runCLI(["restore", "--quiet", "--data-dir", target] + flags + [archive],
                   databaseURL: "sqlite:" + (target as NSString).appendingPathComponent("hibi.sqlite"))
    }

    /// `hibi backup --verify ARCHIVE` with the data directory (and so the data key) of `keysOf`.
    static func verifyCLI(_ archive: String, keysOf directory: String, _ flags: [String] = []) throws -> (status: Int32, stderr: String) {
        try runCLI(["backup", "--quiet", "--data-dir", directory] + flags + ["--verify", archive], databaseURL: nil)
    }

    static func runCLI(_ arguments: [String], databaseURL: String?) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HIBI_RESOURCES_DIR"] = TestApp.resourcesDirectory
        environment["HIBI_DATABASE_URL"] = databaseURL
        environment.removeValue(forKey: "HIBI_MASTER_KEY")
        environment.removeValue(forKey: "HIBI_MEDIA_DIR")
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// A copy of `good` with `extra` members added and listed in its manifest (with their true sizes and SHA-256),
    /// written by ZIPFoundation; signed with `box` when given (as someone holding the key would), else unsigned.
    static func forge(_ good: String, to out: String, extra: [(name: String, data: Data, type: Entry.EntryType)],
                      signWith box: SealedBoxService?) throws {
        var manifest = try BackupArchive(path: good).manifest
        let members = try BackupFixture.members(good)
        try? FileManager.default.removeItem(atPath: out)
        let zip = try Archive(url: URL(fileURLWithPath: out), accessMode: .create)
        func add(_ name: String, _ data: Data, _ type: Entry.EntryType = .file) throws {
            try zip.addEntry(with: name, type: type, uncompressedSize: Int64(data.count)) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        for (name, data) in members.sorted(by: { $0.key < $1.key }) { try add(name, data) }
        for member in extra {
            try add(member.name, member.data, member.type)
            manifest.files.append(.init(member: member.name, bytes: Int64(member.data.count), sha256: Hex.string(SHA256.hash(data: member.data))))
        }
        let bytes = try JSONCoding.encoder.encode(manifest)
        try add(BackupManifest.memberName, bytes)
        if let box {
            try add(BackupManifest.macMemberName, Data(Hex.string(box.authenticationCode(for: bytes, purpose: BackupManifest.macPurpose)).utf8))
        }
    }

    /// What the target holds on disk, name by name (the database's bytes included), to see it left as it was.
    static func snapshot(_ directory: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: directory)
        while let relative = walker?.nextObject() as? String {
            let path = (directory as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            out[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return out
    }

    @Test func membersOutsideTheWritersLayoutAreRefusedBeforeAnythingIsPlaced() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the hibi binary first (swift build)")
        let (source, good) = try await BackupFixture.filledBackup("layout")
        let box = try #require(try RestoreKey.load(masterKey: nil, dataDirectory: source))
        let planted = Data("SQLite format 3\0 with a trigger planted".utf8)
        let attacks: [(label: String, name: String, data: Data, type: Entry.EntryType, reason: String)] = [
            ("database", "media/hibi.sqlite", planted, .file, "top-level file"),
            ("key", "media/data.key", Data("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=".utf8), .file, "top-level file"),
            ("key folder", "media/data.key/x", planted, .file, "database or keys"),
            // The visits signing key's file (an older version's) is a key file too, though Backup does not name Visits.
            ("signing key folder", "media/\(VisitSigner.fileName)/x", planted, .file, "database or keys"),
            ("wal folder", "media/hibi.sqlite-wal/x", planted, .file, "database or keys"),
            ("dot-dot", "media/diary-photos/../../hibi.sqlite", planted, .file, "not a safe file name"),
            ("absolute", "/tmp/hibi-planted", planted, .file, "under media/"),
            ("hidden", "media/.restore-x/a", planted, .file, "hidden or temporary"),
            ("link", "media/diary-photos/link", Data("../../hibi.sqlite".utf8), .symlink, "not a plain file"),
        ]
        let target = try BackupFixture.directory("layout-target")
        try BackupFixture.copyKeys(from: source, to: target)
        // The target as an operator has it before restoring: a database opened once, and its key.
        let targetConfig = try await BackupFixture.sqliteConfig(target)
        await (try await Database.open(targetConfig.database, logger: TestApp.quietLogger)).shutdown()
        let before = try Self.snapshot(target)
        for attack in attacks {
            let forged = (source as NSString).appendingPathComponent("forged.hibi-backup")
            // Signed with the right key: even an archive its own instance vouches for places nothing outside the layout.
            try Self.forge(good, to: forged, extra: [(attack.name, attack.data, attack.type)], signWith: box)
            for flags in [[], ["--allow-unverified"], ["--replace"]] {
                let result = try Self.restoreCLI(forged, into: target, flags)
                #expect(result.status != 0, "\(attack.label) \(flags): restored")
                #expect(result.stderr.contains("which Hibi never writes") && result.stderr.contains(attack.reason),
                        "\(attack.label) \(flags): \(result.stderr)")
                #expect(try Self.snapshot(target) == before, "\(attack.label) \(flags): the target changed")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/hibi-planted"))
        // A member the manifest does not list at all is refused the same way.
        let unlisted = (source as NSString).appendingPathComponent("unlisted.hibi-backup")
        try FileManager.default.copyItem(atPath: good, toPath: unlisted)
        let zip = try Archive(url: URL(fileURLWithPath: unlisted), accessMode: .update)
        try zip.addEntry(with: "media/diary-photos/extra", type: .file, uncompressedSize: Int64(planted.count)) { position, size in
            planted.subdata(in: Int(position)..<(Int(position) + size))
        }
        let result = try Self.restoreCLI(unlisted, into: target)
        #expect(result.status != 0 && result.stderr.contains("the manifest does not list it"), "\(result.stderr)")
        #expect(try Self.snapshot(target) == before)

        // The genuine archive then restores into the same target.
        let restored = try Self.restoreCLI(good, into: target)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await BackupFixture.contents(targetConfig).rows > 0)
        try? FileManager.default.removeItem(atPath: source)
        try? FileManager.default.removeItem(atPath: target)
    }

    @Test func anArchiveEditedWithoutTheKeyIsRefusedAndAnUnsignedOneNeedsTheFlag() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build the hibi binary first (swift build)")
        let (source, good) = try await BackupFixture.filledBackup("signed")
        #expect(try BackupArchive(path: good).mac != nil)
        // Make ken an administrator inside tables.sqlite and fix up the manifest's size and SHA-256, as anyone
        // who can write the file and knows the format could; without the data key the signature cannot follow.
        let promote: @Sendable (SQLiteSession) async throws -> Void = { file in
            try await file.raw("UPDATE users SET is_admin = 1 WHERE username = 'ken'").run()
        }
        let target = try BackupFixture.directory("signed-target")
        try BackupFixture.copyKeys(from: source, to: target)
        let targetConfig = try await BackupFixture.sqliteConfig(target)
        await (try await Database.open(targetConfig.database, logger: TestApp.quietLogger)).shutdown()
        let before = try Self.snapshot(target)

        // The old signature kept: refused, with or without the flag.
        let edited = (source as NSString).appendingPathComponent("edited.hibi-backup")
        try await BackupFixture.rewrite(good, to: edited, keepingMACOf: good, promote)
        // Every checksum fits, so only the signature can tell: `hibi backup --verify` with the source's key fails.
        #expect(try BackupVerifier.verify(path: edited, box: nil, allowUnverified: true).tables > 0)
        let verified = try Self.verifyCLI(edited, keysOf: source)
        #expect(verified.status != 0 && verified.stderr.contains("changed after it was written"), "\(verified.stderr)")
        #expect(try Self.verifyCLI(edited, keysOf: source, ["--allow-unverified"]).status != 0)
        #expect(try Self.verifyCLI(good, keysOf: source).status == 0)
        for flags in [[], ["--allow-unverified"]] {
            let result = try Self.restoreCLI(edited, into: target, flags)
            #expect(result.status != 0, "edited \(flags): restored")
            #expect(result.stderr.contains("changed after it was written"), "\(result.stderr)")
            #expect(try Self.snapshot(target) == before)
        }

        // The signature removed: refused without the flag, with a message naming what cannot be checked.
        let stripped = (source as NSString).appendingPathComponent("stripped.hibi-backup")
        try await BackupFixture.rewrite(good, to: stripped, promote)
        let refused = try Self.restoreCLI(stripped, into: target)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot be verified") && refused.stderr.contains("admin rights") && refused.stderr.contains("--allow-unverified"),
                "\(refused.stderr)")
        #expect(try Self.snapshot(target) == before)
        // With the flag the operator takes it on their word, warned first.
        let allowed = try Self.restoreCLI(stripped, into: target, ["--allow-unverified"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("Warning: this backup cannot be verified"), "\(allowed.stderr)")

        // The genuine archive restores without any flag (replacing what the flag let in).
        let genuine = try Self.restoreCLI(good, into: target, ["--replace"])
        #expect(genuine.status == 0 && !genuine.stderr.contains("Warning"), "\(genuine.stderr)")
        let database = try await Database.open(targetConfig.database, logger: TestApp.quietLogger)
        let admin = try await database.sql.raw("SELECT is_admin FROM users WHERE username = 'ken'").first()?.decode(column: "is_admin", as: Bool.self)
        await database.shutdown()
        #expect(admin == false)
        try? FileManager.default.removeItem(atPath: source)
        try? FileManager.default.removeItem(atPath: target)
    }

    /// Writer and reader agree on the layout: every member a real backup holds passes it, nothing else is added.
    @Test func theWritersOwnArchivesPassTheLayoutAndCarryASignature() async throws {
        let (source, good) = try await BackupFixture.filledBackup("own-layout")
        let archive = try BackupArchive(path: good)
        let names = Set(archive.entries.keys)
        #expect(names == Set([BackupManifest.memberName, BackupManifest.macMemberName, BackupSnapshot.memberName] + archive.manifest.files.map(\.member)))
        let box = try #require(try RestoreKey.load(masterKey: nil, dataDirectory: source))
        #expect(try archive.authenticity(box: box) == nil)
        let other = SealedBoxService(key: SymmetricKey(size: .bits256))
        #expect(try archive.authenticity(box: other) == .otherKey)
        #expect(try archive.authenticity(box: nil) == .noKey)
        try? FileManager.default.removeItem(atPath: source)
    }
}
