import Foundation
import Testing
@testable import HibiApp

/// Hostile exports stay bounded: a clear refusal naming the line, no crash, memory and reading bounded.
@Suite(.serialized) struct HealthHostileExportTests {
    /// Bytes made on the fly: `head`, then `count` copies of `fill`, then `tail`, never held whole.
    final class GeneratedStream: ByteStream {
        var parts: [(bytes: [UInt8], repeats: Int)]
        private(set) var served = 0
        init(head: String, fill: String, count: Int, tail: String) {
            parts = [(Array(head.utf8), 1), (Array(fill.utf8), count), (Array(tail.utf8), 1)]
        }
        private var offset = 0
        func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
            var written = 0
            while written < count, !parts.isEmpty {
                let part = parts[0]
                let n = min(count - written, part.bytes.count - offset)
                part.bytes.withUnsafeBufferPointer { source in
                    if let base = source.baseAddress { (buffer + written).update(from: base + offset, count: n) }
                }
                written += n
                offset += n
                if offset == part.bytes.count {
                    offset = 0
                    if part.repeats <= 1 { parts.removeFirst() } else { parts[0].repeats -= 1 }
                }
            }
            served += written
            return written
        }
    }

    func run(_ stream: any ByteStream, total: Int64) async throws -> (HealthError?, ImportJob?, Int) {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        defer { Task { await core.database.shutdown() } }
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let importer = core.features.health.importer
        let path = try ExportFixtures.write("<HealthData/>")
        let job = try await importer.prepare(path: path, fileName: "export.xml", user: user, uploadPath: nil, now: Date())
        var failure: HealthError?
        do {
            _ = try await importer.run(job: job, stream: stream, totalBytes: total, user: user)
        } catch let error as HealthError {
            failure = error
        }
        let stored = try await core.features.health.service.records.count(userID: user.id)
        return (failure, try await core.features.health.service.jobs.find(id: job.id, userID: user.id), stored)
    }

    @Test func aHundredMegabyteAttributeIsRefusedAfterItsFirstKilobytes() async throws {
        let stream = GeneratedStream(head: "<HealthData>\n<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"",
                                     fill: String(repeating: "a", count: 1024), count: 100 * 1024, tail: "\"/></HealthData>")
        let (failure, job, stored) = try await run(stream, total: 100 << 20)
        #expect(failure?.code == "malformed_file")
        #expect(failure?.message(.en).contains("line 2") == true)
        #expect(job?.state == .failed)
        #expect(stored == 0)
        // Refused within a buffer or two of the cap, not after reading 100 MB.
        #expect(stream.served < 2 << 20)
    }

    @Test func deepNestingIsRefusedWithTheLine() async throws {
        let stream = GeneratedStream(head: "<HealthData>\n<Record type=\"HKCategoryTypeIdentifierX\" startDate=\"2024-05-01 08:00:00 +0900\" value=\"1\"/>\n",
                                     fill: "<Correlation>", count: 1_000_000, tail: "")
        let (failure, job, stored) = try await run(stream, total: 13_000_000)
        #expect(failure?.code == "malformed_file")
        #expect(failure?.message(.en).contains("nested too deeply at line 3") == true)
        #expect(job?.state == .failed)
        #expect(stored == 1) // what came before the bad spot is kept
        #expect(stream.served < 2 << 20)
    }

    @Test func aDoctypeWithAttlistDefaultsAndEntitiesNeitherAppliesNorExpandsThem() async throws {
        let dtd = """
        <?xml version="1.0"?>
        <!DOCTYPE HealthData [
          <!ATTLIST Record value CDATA "999" unit CDATA #FIXED "kg" type CDATA "HKQuantityTypeIdentifierBodyMass">
          <!ENTITY big "<Record type='HKQuantityTypeIdentifierStepCount' value='5'/>">
          <!ENTITY % param SYSTEM "file:///etc/passwd">
          <!ENTITY xxe SYSTEM "file:///etc/passwd">
          %param;
        ]>
        <HealthData>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" startDate="2024-05-01 08:00:00 +0900" endDate="2024-05-01 09:00:00 +0900" value="7"/>
         &big;
         <Record startDate="2024-05-01 10:00:00 +0900" endDate="2024-05-01 10:00:00 +0900"/>
        </HealthData>
        """
        let parser = AppleHealthExportParser(stream: MemoryByteStream(dtd), timeZone: .gmt)
        var items: [AppleHealthItem] = []
        while let item = try parser.next() { items.append(item) }
        // The default value "999" and unit "kg" are not applied; the Record without a type is reported, not given one.
        guard case let .record(first, _) = items.first else { Issue.record("no record"); return }
        #expect(first.type == "steps" && first.value == 7 && first.unit == "count")
        #expect(items.last == .skipped(ImportSkip(kind: "Record", reason: .missingValue, at: "line 12")))
        #expect(items.count == 2) // &big; in text is skipped unexpanded

        let withReference = dtd.replacingOccurrences(of: "sourceName=\"iPhone\"", with: "sourceName=\"&xxe;\"")
        let (failure, job, stored) = try await run(MemoryByteStream(withReference), total: Int64(withReference.utf8.count))
        #expect(failure?.code == "malformed_file")
        #expect(failure?.message(.en).contains("&xxe;") == true)
        #expect(job?.state == .failed && stored == 0)
    }

    @Test func aHostileRouteFileIsReportedAndTheRestImports() throws {
        let deep = "<gpx>" + String(repeating: "<trk>", count: 100) + String(repeating: "</trk>", count: 100) + "</gpx>"
        #expect(throws: XMLStreamError.self) { _ = try WorkoutRouteGPX.parse(MemoryByteStream(deep)) }
        let entity = "<!DOCTYPE gpx [<!ENTITY e \"x\">]><gpx><trk><trkseg><trkpt lat=\"1\" lon=\"&e;\"/></trkseg></trk></gpx>"
        #expect(throws: XMLStreamError.self) { _ = try WorkoutRouteGPX.parse(MemoryByteStream(entity)) }
    }
}

extension HealthHostileExportTests {
    /// The in-buffer fast path for the five predefined entities and the general path agree, at any buffer size.
    @Test func predefinedEntitiesDecodeTheSameAtEveryBufferSize() throws {
        let xml = "<a v=\"&lt;&lt;HKDevice: 0x1&gt;, x&amp;y &quot;q&quot; &apos;a&apos; &#x41;&#66;&gt;\" w='&amp;'/>"
        for size in [1, 2, 3, 5, 7, 64, 4096] {
            let reader = XMLStreamReader(stream: MemoryByteStream(xml), bufferSize: size)
            let event = try reader.nextEvent()
            #expect(event == .start(name: "a", attributes: [XMLAttribute("v", "<<HKDevice: 0x1>, x&y \"q\" 'a' AB>"), XMLAttribute("w", "&")]), "buffer \(size)")
            #expect(reader.bytesRead == Int64(xml.utf8.count))
        }
        let bad = XMLStreamReader(stream: MemoryByteStream("<a v=\"&ltx;\"/>"), bufferSize: 4096)
        #expect(throws: XMLStreamError(reason: .undefinedEntity("ltx"), line: 1)) { _ = try bad.nextEvent() }
    }
}
