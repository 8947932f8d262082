import Foundation
import Testing
@testable import HibiApp

/// The tokenizer alone: safety and errors, no database.
struct XMLStreamReaderTests {
    func events(_ text: String) throws -> [XMLEvent] {
        let reader = XMLStreamReader(stream: MemoryByteStream(text), bufferSize: 7) // tiny buffer: every token crosses refills
        var result: [XMLEvent] = []
        while let event = try reader.nextEvent() { result.append(event) }
        return result
    }

    @Test func readsElementsAttributesAndPredefinedEntities() throws {
        let events = try events("<?xml version=\"1.0\"?>\n<!-- c -->\n<a x='1 &amp; 2' y=\"&lt;&#x41;&#66;&quot;\"><b/><![CDATA[<ignored>]]>text</a>")
        #expect(events == [.start(name: "a", attributes: [XMLAttribute("x", "1 & 2"), XMLAttribute("y", "<AB\"")]),
                           .start(name: "b", attributes: []), .end(name: "b"), .end(name: "a")])
    }

    @Test func declaredEntitiesAreNeverExpanded() throws {
        // Billion laughs: the DTD is skipped unread, the reference in an attribute is refused at once.
        #expect(throws: XMLStreamError(reason: .undefinedEntity("lol9"), line: 15)) { try events(ExportFixtures.billionLaughs) }
        // XXE: no file is read, no URL fetched; the reference is refused.
        #expect(throws: XMLStreamError(reason: .undefinedEntity("xxe"), line: 4)) { try events(ExportFixtures.xxe) }
        // Entity references in text content are skipped without expansion.
        let text = ExportFixtures.billionLaughs.replacingOccurrences(of: " <ExportDate value=\"&lol9;\"/>\n", with: "")
            .replacingOccurrences(of: "sourceName=\"&lol9;\"", with: "sourceName=\"x\"")
        #expect(try events(text).count == 6)
    }

    @Test func truncatedAndMalformedFilesNameTheLine() {
        #expect(throws: XMLStreamError(reason: .truncated, line: 3)) { try events("<a>\n<b x=\"1\"/>\n<c") }
        #expect(throws: XMLStreamError(reason: .truncated, line: 2)) { try events("<a>\n<b/>") }
        #expect(throws: XMLStreamError(reason: .mismatchedEndTag(expected: "b", found: "a"), line: 2)) { try events("<a><b>\n</a>") }
        #expect(throws: XMLStreamError(reason: .noRootElement, line: 1)) { try events("") }
        let deep = String(repeating: "<a>", count: 100)
        #expect(throws: XMLStreamError.self) { try events(deep) }
    }
}

@Suite(.serialized) struct AppleHealthImportTests {
    struct Fixture {
        let core: AppCore
        let health: HealthService
        let importer: AppleHealthImporter
        let user: User
    }

    func fixture() async throws -> Fixture {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        var updated = user
        updated.timeZone = "Asia/Tokyo"
        try await core.users.update(updated)
        let health = core.features.health.service
        var importer = core.features.health.importer
        importer.batchSize = 7
        return Fixture(core: core, health: health, importer: importer, user: updated)
    }

    func importFile(_ f: Fixture, _ path: String) async throws -> ImportResult {
        let job = try await f.importer.prepare(path: path, fileName: "export.xml", user: f.user, uploadPath: nil, now: Date())
        return try await f.importer.run(job: job, path: path, user: f.user)
    }

    @Test func importsEveryRecordWithUnitsAndSkipsDuplicatesOnReimport() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        let path = try ExportFixtures.write(ExportFixtures.export(days: 10))
        let first = try await importFile(f, path)
        #expect(first.job.inserted == Int64(10 * ExportFixtures.recordsPerDay))
        #expect(first.job.duplicates == 0)
        #expect(first.job.state == .done)
        #expect(Set(first.newBadges.map(\.key)).isSuperset(of: ["first-step", "streak-7"]))

        let weights = try await f.health.records.list(userID: f.user.id, filter: .init(type: "weight"))
        #expect(weights.count == 10)
        #expect(weights.allSatisfy { $0.unit == "kg" && $0.source == .appleHealth })
        #expect(abs(weights.last!.value - 149.5 * 0.45359237) < 1e-9)
        let sleep = try await f.health.records.list(userID: f.user.id, filter: .init(type: "sleep"))
        #expect(sleep.first?.value == 6.5 && sleep.first?.category == "AsleepCore")
        let heart = try await f.health.records.list(userID: f.user.id, filter: .init(type: "heartRate"))
        #expect(heart.first?.details?.contains("HKMetadataKeyHeartRateMotionContext") == true)
        let other = try await f.health.records.list(userID: f.user.id, filter: .init(type: "HKQuantityTypeIdentifierFlightsClimbed"))
        #expect(other.count == 10 && other.first?.unit == "count")
        let workouts = try await f.health.records.list(userID: f.user.id, filter: .init(type: "workout"))
        #expect(workouts.first?.value == 30.5 && workouts.first?.category == "Running" && workouts.first?.details?.contains("totalDistance") == true)
        #expect(try await f.health.records.list(userID: f.user.id, filter: .init(type: "activitySummary")).count == 10)
        let steps = try await f.health.records.list(userID: f.user.id, filter: .init(type: "steps"))
        #expect(Set(steps.map(\.device)) == ["Aiko’s iPhone", "Apple Watch"])
        #expect(try await f.health.profiles.get(userID: f.user.id).birthDate == "1990-04-01")

        // The same export again, and a newer one with two more days: only the new days are added.
        let again = try await importFile(f, path)
        #expect(again.job.inserted == 0 && again.job.duplicates == Int64(10 * ExportFixtures.recordsPerDay))
        let newer = try await importFile(f, try ExportFixtures.write(ExportFixtures.export(days: 12)))
        #expect(newer.job.inserted == Int64(2 * ExportFixtures.recordsPerDay))
        #expect(try await f.health.records.count(userID: f.user.id) == 12 * ExportFixtures.recordsPerDay)
    }

    @Test func zipExportsAreReadFromTheArchive() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        let result = try await importFile(f, try ExportFixtures.zip(ExportFixtures.export(days: 3)))
        #expect(result.job.inserted == Int64(3 * ExportFixtures.recordsPerDay))
    }

    @Test func hostileAndBrokenFilesFailClearlyAndLeaveNothingHalfWritten() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        do {
            _ = try await importFile(f, try ExportFixtures.write(ExportFixtures.billionLaughs))
            Issue.record("billion laughs accepted")
        } catch let error as HealthError {
            #expect(error.message(.en).contains("&lol9;"))
            #expect(error.message(.en).contains("line 15"))
        }
        do {
            _ = try await importFile(f, try ExportFixtures.write(ExportFixtures.xxe))
            Issue.record("XXE accepted")
        } catch let error as HealthError {
            #expect(error.code == "malformed_file")
        }
        #expect(try await f.health.records.count(userID: f.user.id) == 0)

        // Truncated in the middle of a Record: everything before it is kept, the error names the line.
        let full = ExportFixtures.export(days: 5)
        let cut = String(full.prefix(full.count * 2 / 3))
        do {
            _ = try await importFile(f, try ExportFixtures.write(cut))
            Issue.record("truncated file accepted")
        } catch let error as HealthError {
            let line = cut.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(error.message(.en).contains("line \(line)"))
            #expect(error.message(.ja).contains("\(line) 行目"))
        }
        let kept = try await f.health.records.count(userID: f.user.id)
        #expect(kept > 0)
        let jobs = try await f.health.jobs.list(userID: f.user.id)
        #expect(jobs.first?.state == .failed)
        // The whole file later completes the data without duplicates.
        let whole = try await importFile(f, try ExportFixtures.write(full))
        #expect(whole.job.inserted + Int64(kept) == Int64(5 * ExportFixtures.recordsPerDay))

        do {
            _ = try await importFile(f, try ExportFixtures.write("<?xml version=\"1.0\"?><html><body/></html>"))
            Issue.record("not an export accepted")
        } catch let error as HealthError {
            #expect(error.code == "not_an_export")
        }
    }

    /// A stream that dies after some bytes, like a process killed mid-import.
    final class DyingStream: ByteStream {
        let inner: MemoryByteStream
        var left: Int
        init(_ text: String, bytes: Int) { inner = MemoryByteStream(text); left = bytes }
        struct Killed: Error {}
        func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
            guard left > 0 else { throw Killed() }
            let n = try inner.read(into: buffer, count: min(count, left))
            left -= n
            return n
        }
    }

    @Test func anInterruptedImportResumesFromItsCheckpointAndCompletes() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        let text = ExportFixtures.export(days: 20)
        let path = try ExportFixtures.write(text)
        let job = try await f.importer.prepare(path: path, fileName: "export.xml", user: f.user, uploadPath: nil, now: Date())
        await #expect(throws: DyingStream.Killed.self) {
            _ = try await f.importer.run(job: job, stream: DyingStream(text, bytes: text.utf8.count / 2), totalBytes: Int64(text.utf8.count), user: f.user)
        }
        let interrupted = try #require(try await f.health.jobs.find(id: job.id, userID: f.user.id))
        #expect(interrupted.state == .running)
        #expect(interrupted.checkpoint > 0)
        // Database consistent: exactly the committed batches are there.
        #expect(try await f.health.records.count(userID: f.user.id) == Int(interrupted.inserted))
        #expect(interrupted.inserted == interrupted.checkpoint)

        // Re-running the same file picks up the same job and finishes it.
        let resumed = try await f.importer.prepare(path: path, fileName: "export.xml", user: f.user, uploadPath: nil, now: Date())
        #expect(resumed.id == job.id)
        let result = try await f.importer.run(job: resumed, path: path, user: f.user)
        #expect(result.job.state == .done)
        #expect(result.job.duplicates == 0)
        #expect(try await f.health.records.count(userID: f.user.id) == 20 * ExportFixtures.recordsPerDay)
    }
}
