import Foundation
import Testing
@testable import HibiApp

/// Archives as other tools write them (deflate, made here by Python's zipfile), and archives built to hurt.
@Suite struct ZipReaderTests {
    /// Runs a Python snippet that writes a ZIP to the path it is given; nil when there is no python3.
    static func python(_ script: String) throws -> String? {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-zip-\(UUID().uuidString).zip").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import sys, zipfile\npath = sys.argv[1]\n" + script, path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("python failed") }
        return path
    }

    @Test func aDeflatedArchiveFromAnotherToolIsRead() throws {
        guard let path = try Self.python("""
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("diary.json", '{"text": "' + "日記" * 5000 + '"}')
                z.writestr("photos/a.jpg", b"\\xff\\xd8\\xff\\xe0" + bytes(range(256)) * 40)
            """) else { return }
        let reader = try ZipReader(path: path, maxTotalBytes: 1 << 30)
        #expect(try reader.contents(of: "photos/a.jpg") == Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<40).flatMap { _ in Array(0...255) }))
        #expect(String(decoding: try #require(try reader.contents(of: "diary.json")), as: UTF8.self).contains("日記日記"))
        let inMemory = try ZipReader(data: try Data(contentsOf: URL(fileURLWithPath: path)), maxTotalBytes: 1 << 30)
        #expect(inMemory.entries["diary.json"]?.size == reader.entries["diary.json"]?.size)
    }

    @Test func aZipBombIsRefusedBeforeItIsExpanded() throws {
        // 300 MB of zeros deflate to about 300 KB: a ratio no photo, XML or JSON comes near.
        guard let path = try Self.python("""
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("export.xml", "w") as f:
                    for _ in range(300):
                        f.write(bytes(1024 * 1024))
            """) else { return }
        #expect(throws: StoredZipError.self) { try ZipReader(path: path, maxTotalBytes: 1 << 40) }
        do {
            _ = try ZipReader(path: path, maxTotalBytes: 1 << 40)
        } catch {
            guard case .inflatesTooFar = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.text.en.contains("zip bomb"))
        }
        // The absolute cap holds even for a ratio that looks harmless.
        #expect(throws: StoredZipError.self) { try ZipReader(path: path, maxTotalBytes: 1 << 20) }
        // The health importer says so instead of unpacking it.
        do {
            _ = try AppleHealthImporter.open(path: path)
            Issue.record("the bomb was opened")
        } catch let error as HealthError {
            #expect(error.message(.en).contains("zip bomb"))
        }
    }

    @Test func anExportXMLInADeflatedArchiveStreamsOutWhole() throws {
        guard let path = try Self.python("""
            body = "".join(f'<Record type="HKQuantityTypeIdentifierStepCount" value="{i}"/>\\n' for i in range(60000))
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("apple_health_export/export.xml", "<HealthData>\\n" + body + "</HealthData>\\n")
            """) else { return }
        let (stream, size) = try AppleHealthImporter.open(path: path)
        var out = Data()
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 7000)
        defer { buffer.deallocate() }
        while true {
            let n = try stream.read(into: buffer, count: 7000)
            if n == 0 { break }
            out.append(buffer, count: n)
        }
        #expect(Int64(out.count) == size)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("<HealthData>\n"))
        #expect(text.contains(#"value="59999""#))
        #expect(text.hasSuffix("</HealthData>\n"))
    }
}
