import Foundation
import Testing
@testable import HibiApp

/// Every input the fuzzers kept (scripts/fuzz/corpus), replayed through the same calls as the fuzz
/// targets: an input that once crashed a parser stays a test for ever.
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/fuzz/corpus")

    struct EmptyCorpus: Error, CustomStringConvertible {
        let folder: String
        var description: String { "no fuzz inputs in \(folder): the replay would pass having replayed nothing" }
    }

    /// The inputs kept for one target; a missing or empty folder throws, so no replay passes on nothing.
    static func inputs(_ target: String, in corpus: URL = corpus) throws -> [Data] {
        let folder = corpus.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { throw EmptyCorpus(folder: folder.path) }
        return try names.map { try Data(contentsOf: folder.appendingPathComponent($0)) }
    }

    @Test func anEmptyOrMissingCorpusFolderFailsTheReplay() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("xml"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data().write(to: root.appendingPathComponent("xml/.gitkeep"))
        #expect(throws: EmptyCorpus.self) { try Self.inputs("xml", in: root) }
        #expect(throws: (any Error).self) { try Self.inputs("ranges", in: root) }
    }

    @Test func xmlInputsEndInEventsOrAnError() throws {
        for input in try Self.inputs("xml") {
            for reportsText in [false, true] {
                let reader = XMLStreamReader(stream: MemoryByteStream(Array(input)), bufferSize: 7,
                                             limits: XMLLimits(maxValueBytes: 512, maxTagBytes: 2048, maxAttributes: 16, maxDepth: 16),
                                             reportsText: reportsText)
                var events = 0
                while let _ = try? reader.nextEvent() { events += 1 }
                #expect(events <= input.count)
            }
            _ = try? VisitFormats.parseGPX(input)
        }
    }

    @Test func rangeInputsGiveADecision() throws {
        for input in try Self.inputs("ranges") {
            let parts = String(decoding: input, as: UTF8.self).split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            for size: Int64 in [0, 1, 1000, .max] {
                let decision = ByteRanges.decide(range: parts.first, ifRange: parts.count > 1 ? parts[1] : nil,
                                                 ifNoneMatch: parts.count > 2 ? parts[2] : nil, ifModifiedSince: parts.count > 3 ? parts[3] : nil,
                                                 etag: "\"abc\"", lastModified: Date(timeIntervalSince1970: 1_700_000_000), size: size)
                if case let .partial(range) = decision { #expect(range.lowerBound >= 0 && range.upperBound < size) }
            }
        }
    }

    @Test func multipartInputsGiveAnAnswer() throws {
        for input in try Self.inputs("multipart") {
            for boundary in ["B", "----WebKitFormBoundary7MA4YWxkTrZu0gW", ""] {
                _ = input.withUnsafeBytes { MultipartLeadingField.read($0, boundary: boundary) }
            }
        }
    }

    @Test func zipInputsAreReadOrRefusedWithinTheirLimit() throws {
        let inputs = try Self.inputs("zip")
        #expect(inputs.count >= 4)
        for input in inputs {
            guard let reader = try? ZipReader(data: input, maxTotalBytes: 1 << 20) else { continue }
            for name in reader.entries.keys.sorted() {
                if let data = try? reader.contents(of: name) { #expect(UInt64(data.count) <= reader.limit) }
            }
        }
    }
}
