import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// The splitter that lets a Day One journal of any size be read one entry at a time.
@Suite struct JSONArrayStreamTests {
    func split(_ text: String, chunk: Int, max: Int = 1 << 20) -> (pieces: [JSONArrayStream.Piece], stream: JSONArrayStream) {
        var stream = JSONArrayStream(key: "entries", maxElementBytes: max)
        let bytes = Array(text.utf8)
        var pieces: [JSONArrayStream.Piece] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) { pieces += stream.feed(bytes[start..<min(start + chunk, bytes.count)]) }
        return (pieces, stream)
    }

    @Test func elementsComeOutWholeWhereverTheChunksBreak() {
        // Brackets, commas, quotes and an "entries" key inside strings and nested objects do not confuse it.
        let text = #"{"metadata":{"entries":[9]},"note":"entries","entries" : [ {"text":"a, ] } [\"b\\","n":{"entries":[1,2]}} ,{"text":"日記"}, 3 ],"after":[4]}"#
        let expected: [JSONArrayStream.Piece] = [.element(Data(#"{"text":"a, ] } [\"b\\","n":{"entries":[1,2]}}"#.utf8)),
                                                 .element(Data(#"{"text":"日記"}"#.utf8)), .element(Data("3".utf8))]
        for chunk in [1, 2, 3, 7, 64, 4096] {
            let (pieces, stream) = split(text, chunk: chunk)
            #expect(pieces == expected, "chunk \(chunk)")
            #expect(stream.found && stream.closed)
        }
    }

    @Test func anElementOverTheBoundIsCountedNotHeldAndACutFileIsSeen() {
        let big = String(repeating: "x", count: 100)
        let (pieces, stream) = split(#"{"entries":[{"text":"\#(big)"},{"text":"ok"},{"text":"cut"#, chunk: 10, max: 50)
        #expect(pieces == [.tooLarge(#"{"text":""#.utf8.count + 100 + 2), .element(Data(#"{"text":"ok"}"#.utf8))])
        #expect(stream.found && !stream.closed)
        let (none, other) = split(#"{"items":[{"text":"a"}]}"#, chunk: 5)
        #expect(none.isEmpty && !other.found)
    }
}

/// Day One archives streamed entry by entry through the real router (SQLite, and PostgreSQL with HIBI_TEST_POSTGRES_URL).
@Suite(.serialized) struct DiaryStreamImportTests {
    /// A Day One journal of `count` entries; the entries at `damaged` (from 0) are not JSON.
    static func journal(_ count: Int, damaged: Set<Int> = [], photoAt: Int? = nil) -> Data {
        var parts: [String] = []
        for index in 0..<count {
            if damaged.contains(index) {
                parts.append(#"{"uuid":"BAD\#(index)","creationDate": }"#)
                continue
            }
            let uuid = String(format: "%032X", index + 1)
            var photos = ""
            var text = "Entry number \(index + 1), written on day \(index)."
            if index == photoAt {
                photos = #","photos":[{"identifier":"D3456FD591A34C098719F1A0E6C46829","md5":"cf80411fda6ba991b6110b2365fb8286","type":"jpeg"}]"#
                text += "\\n\\n![](dayone-moment://D3456FD591A34C098719F1A0E6C46829)"
            }
            let day = Date(timeIntervalSince1970: 1_500_000_000 + Double(index) * 86_400)
            parts.append(#"{"uuid":"\#(uuid)","creationDate":"\#(day.formatted(.iso8601))","timeZone":"Asia/Tokyo","text":"\#(text)"\#(photos)}"#)
        }
        return Data(("{\"metadata\":{\"version\":\"1.0\"},\"entries\":[\n" + parts.joined(separator: ",\n") + "\n]}").utf8)
    }

    func api(_ browser: Browser) async throws -> APIClient {
        try await browser.setUp()
        return APIClient(browser: browser, token: try await browser.createToken())
    }

    func importFile(_ api: APIClient, _ data: Data) async throws -> (Browser.Page, DiaryImportReport) {
        try await api.importDiary(data, contentType: "application/zip")
    }

    @Test func aDamagedEntryIsSkippedWithItsPositionAndTheRestStreamsIn() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let photo = try DiaryFixtures.data("dayone-demo-photo.jpeg")
            // More entries than one part, in two journals, one entry in the middle not JSON.
            let zip = try StoredZipTests.archive([("Journal.json", Self.journal(230, damaged: [120], photoAt: 7)), (DiaryFixtures.photoName, photo),
                                                  ("Travel.json", Self.journal(3))])
            let (page, report) = try await importFile(api, zip)
            #expect(page.status == .ok || page.status == .accepted, "\(page.body)")
            #expect(report.format == .dayOne)
            // Travel.json's entries have the same uuids as Journal.json's first three: the same entries.
            #expect(report.added == 229)
            #expect(report.alreadyThere == 3)
            #expect(report.photosAdded == 1)
            #expect(report.skipped.map(\.at) == ["Journal.json entry 121"])
            #expect(report.skipped.first?.code == "unreadable")
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 229)

            let (_, again) = try await importFile(api, zip)
            #expect(again.added == 0 && again.alreadyThere == 232 && again.photosAdded == 0)
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 229)
        }
    }

    @Test func thePageStreamsADayOneArchiveToDiskAndImportsIt() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            try await browser.get("/diary/data")
            let zip = try StoredZipTests.archive([("Journal.json", Self.journal(5, damaged: [2], photoAt: 0)),
                                                  (DiaryFixtures.photoName, try DiaryFixtures.data("dayone-demo-photo.jpeg"))])
            let page = try await browser.postMultipart("/diary/import", fields: ["note": "ignored"], files: ["file": ("dayone.zip", zip)])
            #expect(page.status == .ok, "\(page.body)")
            #expect(page.body.contains("Day One: 4 added, 0 already there, 1 skipped."))
            #expect(page.body.contains("Photos: 1 added, 0 skipped."))
            #expect(page.body.contains("Journal.json entry 3: unreadable"))
            // A form without a file is a clear error, not a crash or an empty import.
            let empty = try await browser.postMultipart("/diary/import", fields: ["note": "no file"])
            #expect(empty.status == .badRequest)
            #expect(empty.body.contains("the upload is empty"))
        }
    }

    @Test func aJobStoppedMidwayResumesAndAddsEachEntryOnce() async throws {
        try await TestApp.withTwoPeople { core, aiko, _ in
            let imports = core.features.diary.imports
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("dayone.zip").path
            try StoredZipTests.archive([("Journal.json", Self.journal(250, damaged: [30]))]).write(to: URL(fileURLWithPath: path))

            struct Stopped: Error {}
            let saved = Saved()
            // The first run "dies" after its second checkpoint (its second part is in the database).
            await #expect(throws: Stopped.self) {
                _ = try await imports.importFile(path: path, userID: aiko.id, timeZone: .gmt, now: Date()) { total, checkpoint in
                    await saved.set(total, checkpoint)
                    if checkpoint.done >= 200 { throw Stopped() }
                }
            }
            let checkpoint = try #require(await saved.checkpoint)
            #expect(await saved.total == 250)
            #expect(checkpoint.done == 200)
            #expect(checkpoint.report.added == 199)
            let resumed = try await imports.importFile(path: path, userID: aiko.id, timeZone: .gmt, now: Date(), resume: checkpoint)
            // Every entry once: the resumed run reads on from entry 201 and its report continues the first's.
            #expect(resumed.added == 249)
            #expect(resumed.alreadyThere == 0)
            #expect(resumed.skipped.map(\.at) == ["Journal.json entry 31"])
            #expect(try await core.features.diary.service.store.entryIDs(userID: aiko.id).count == 249)
        }
    }

    @Test func anInterruptedJobShowsItsProgressThenResumesWhereItStoppedAndReportsEachEntryOnce() async throws {
        try await ExtremeValueRouterTests.run { core, browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let user = try #require(try await core.users.find(username: "aiko"))
            let runner = core.features.diary.runner
            try FileManager.default.createDirectory(atPath: runner.directory, withIntermediateDirectories: true)
            let path = (runner.directory as NSString).appendingPathComponent(UUID().uuidString.lowercased() + ".upload")
            try StoredZipTests.archive([("Journal.json", Self.journal(250, damaged: [30]))]).write(to: URL(fileURLWithPath: path))
            let job = try await runner.jobs.create(id: UUID().uuidString.lowercased(), userID: user.id, fileName: "dayone.zip", uploadPath: path, now: Date())

            // The first run stops after its second part is in the database, as when the process is killed there.
            // It holds the job's lease as a real run does: the server's own background pass (every 20 s) would
            // otherwise take the job over mid-run on a loaded machine and write the same entries beside it.
            struct Stopped: Error {}
            let leaseName = DiaryImportRunner.leaseName(job.id)
            #expect(try await runner.leases.claim(leaseName, lease: 3600))
            try await runner.jobs.started(job)
            await #expect(throws: Stopped.self) {
                _ = try await core.features.diary.imports.importFile(path: path, userID: user.id, timeZone: .gmt, now: Date()) { total, checkpoint in
                    try await runner.jobs.progress(job, total: total, checkpoint: checkpoint)
                    if checkpoint.done >= 200 { throw Stopped() }
                }
            }
            let refresh = try #require(HTTPField.Name("Refresh"))
            let running = try await browser.get(DiaryPaths.data)
            #expect(running.body.contains("Importing dayone.zip"))
            #expect(running.body.contains("200 of 250 entries"))
            #expect(running.headers[refresh] == "3")
            // One import per person while it runs, on this instance or any other.
            let busy = try await api.call(.post, "/api/v1/diary/import", body: Self.journal(1), contentType: "application/json")
            #expect(busy.status == .conflict)

            // The dead instance's lease runs out (released here rather than waited out). The background pass (at
            // start-up, and every 20 s) resumes the job from its checkpoint: called here so the test need not wait
            // for it; if the server's own pass got there first, this one finds the lease held and leaves the job.
            try await runner.leases.release(leaseName)
            let resumed = await runner.resumeInterrupted()
            #expect(resumed.count <= 1)
            var ended = try #require(try await runner.jobs.find(id: job.id, userID: user.id))
            for _ in 0..<600 where ended.state == .running {
                try await Task.sleep(for: .milliseconds(200))
                ended = try #require(try await runner.jobs.find(id: job.id, userID: user.id))
            }
            #expect(ended.state == .done)
            let report = try #require(ended.checkpoint?.report)
            #expect(report.added == 249 && report.alreadyThere == 0)
            #expect(report.skipped.map(\.at) == ["Journal.json entry 31"])
            #expect(ended.done == 250 && ended.total == 250)
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 249)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(await runner.resumeInterrupted().isEmpty)

            let page = try await browser.get(DiaryPaths.data)
            #expect(page.headers[refresh] == nil)
            #expect(page.body.contains("Last import: dayone.zip"))
            #expect(page.body.contains("Day One: 249 added, 0 already there, 1 skipped."))
            #expect(page.body.contains("Journal.json entry 31: unreadable"))
            try await browser.post("/language", form: ["language": "ja"])
            let japanese = try await browser.get(DiaryPaths.data)
            #expect(japanese.body.contains("前回のインポート: dayone.zip"))
            #expect(japanese.body.contains("Day One: 249 件追加、0 件は既にあります、1 件スキップ。"))
            #expect(japanese.body.contains("Journal.json 31 件目: 読めません"))

            struct Answer: Decodable { let state: String; let total: Int; let done: Int; let summary: [String] }
            let answer = try APIClient.decode(Answer.self, try await api.call(.get, "/api/v1/diary/import/jobs/\(job.id)"))
            // In the person's language, chosen above.
            #expect(answer.state == "done" && answer.done == 250 && answer.summary.first == "Day One: 249 件追加、0 件は既にあります、1 件スキップ。")
            #expect(try await api.call(.get, "/api/v1/diary/import/jobs/\(UUID().uuidString.lowercased())").status == .notFound)
        }
    }

    @Test func aJobThatStoppedTheServerTwiceIsNotResumedAThirdTime() async throws {
        try await ExtremeValueRouterTests.run { core, browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            let user = try #require(try await core.users.find(username: "aiko"))
            let runner = core.features.diary.runner
            try FileManager.default.createDirectory(atPath: runner.directory, withIntermediateDirectories: true)
            let path = (runner.directory as NSString).appendingPathComponent(UUID().uuidString.lowercased() + ".upload")
            try Self.journal(3).write(to: URL(fileURLWithPath: path))
            let job = try await runner.jobs.create(id: UUID().uuidString.lowercased(), userID: user.id, fileName: "Journal.json", uploadPath: path, now: Date())
            try await runner.jobs.started(job)
            try await runner.jobs.started(job)
            #expect(await runner.resumeInterrupted().isEmpty)
            let failed = try #require(try await runner.jobs.find(id: job.id, userID: user.id))
            #expect(failed.state == .failed)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await browser.get(DiaryPaths.data).body.contains("stopped the server twice"))
        }
    }
}

actor Saved {
    var total = 0
    var checkpoint: DiaryForeignImport.Checkpoint?
    func set(_ total: Int, _ checkpoint: DiaryForeignImport.Checkpoint) {
        self.total = total
        self.checkpoint = checkpoint
    }
}
