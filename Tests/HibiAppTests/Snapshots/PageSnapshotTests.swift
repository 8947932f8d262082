import Foundation
import Hummingbird
import HummingbirdTesting
import SnapshotTesting
import Testing
@testable import HibiApp

/// Issue 30, item 5: every page a person can open, in English and Japanese, rendered through the real router
/// on seeded data with a fixed clock and kept as reviewed text under `__Snapshots__/PageSnapshotTests`
/// (the SPI style): a change to any page's markup shows up as a diff. What differs between runs (ids, the
/// CSRF token, the visit log's signing key and chain head) is masked in `normalize`, in one place. One app per language, every page asked of it in turn.
///
/// To accept an intended change, re-record and review the diff:
///     SNAPSHOT_TESTING_RECORD=failed swift test --filter PageSnapshotTests
@Suite struct PageSnapshotTests {
    static let now = Date(timeIntervalSince1970: 1_795_392_000) // 2026-11-23 00:00 UTC, 09:00 in Tokyo

    /// A page: the route it is served by (with `:id`-style captures), the address asked and the snapshot's name.
    struct Page: Sendable {
        let route: String
        let name: String
        let address: @Sendable (Seeded) -> String
        init(_ route: String, _ name: String, _ address: @escaping @Sendable (Seeded) -> String) {
            self.route = route
            self.name = name
            self.address = address
        }
        init(_ route: String, _ name: String) { self.init(route, name) { _ in route } }
    }

    /// The ids of what was seeded, for the pages that show one thing.
    struct Seeded: Sendable {
        var entry = "", record = "", visit = "", video = "", playlist = ""
    }

    /// Every page of a signed-in person (the administrator, with something in every domain).
    static let pages: [Page] = [
        Page(JournalPaths.today, "today"),
        Page(JournalPaths.day(":date"), "day") { _ in JournalPaths.day("2026-11-22") },
        Page(JournalPaths.timeline, "timeline"),
        Page(JournalPaths.search, "search") { _ in JournalPaths.search + "?q=lunch" },
        Page(JournalPaths.insights, "insights"),
        Page(JournalPaths.review("week", ":period"), "review-week") { _ in JournalPaths.review("week", "2026-W47") },
        Page(JournalPaths.review("month", ":period"), "review-month") { _ in JournalPaths.review("month", "2026-11") },
        Page(DiaryPaths.list, "diary"),
        Page(DiaryPaths.new, "diary-new"),
        Page(DiaryPaths.entry(":id"), "diary-entry") { DiaryPaths.entry($0.entry) },
        Page(DiaryPaths.edit(":id"), "diary-edit") { DiaryPaths.edit($0.entry) },
        Page(DiaryPaths.stats, "diary-stats"),
        Page(DiaryPaths.calendar, "diary-calendar") { _ in DiaryPaths.calendar + "?month=2026-11" },
        Page(DiaryPaths.data, "diary-data"),
        Page(DiaryPaths.settings, "diary-settings"),
        Page(DiaryPaths.enroll, "diary-enroll"),
        Page(DiaryPaths.unlock, "diary-unlock"),
        Page(HealthPaths.overview, "health"),
        Page(HealthPaths.editRecord(":id"), "health-record-edit") { HealthPaths.editRecord($0.record) },
        Page(HealthPaths.importPage, "health-import"),
        Page(HealthPaths.trends, "health-trends"),
        Page(HealthPaths.goals, "health-goals"),
        Page(HealthPaths.badges, "health-badges"),
        Page(HealthPaths.reminders, "health-reminders"),
        Page(HealthPaths.share, "health-share"),
        Page(VisitPaths.list, "visits"),
        Page(VisitPaths.new, "visits-new"),
        Page(VisitPaths.visit(":id"), "visit") { VisitPaths.visit($0.visit) },
        Page(VisitPaths.edit(":id"), "visit-edit") { VisitPaths.edit($0.visit) },
        Page(VisitPaths.verify, "visits-verify"),
        Page(VisitPaths.places, "visits-places"),
        Page(VisitPaths.savedPlaces, "visits-saved-places"),
        Page(VisitPaths.transfer, "visits-transfer"),
        Page(VisitPaths.stays, "visits-stays"),
        Page(VideoPaths.library, "videos"),
        Page(VideoPaths.history, "videos-history"),
        Page(VideoPaths.playlists, "videos-playlists"),
        Page(VideoPaths.playlist(":id"), "videos-playlist") { VideoPaths.playlist($0.playlist) },
        Page(VideoPaths.video(":id"), "video") { VideoPaths.video($0.video) },
        Page(AccountPaths.settings, "settings"),
        Page(AccountPaths.takeoutImport, "settings-import"),
        Page(AccountPaths.adminUsers, "admin-users"),
        Page(AccountPaths.adminMap, "admin-map"),
        Page(BackupPaths.admin, "admin-backups"),
    ]

    /// Pages of someone not signed in: the first page of a new instance, and sign-in.
    static let signedOutPages: [Page] = [Page(AccountPaths.setup, "setup"), Page(AccountPaths.login, "login")]

    /// GET routes that answer something other than a page, and why they have no snapshot.
    static let notPages: [String: String] = [
        DiaryPaths.firstPhoto(":id"): "a photo", DiaryPaths.thumbnail(":id", ":photo"): "a photo", DiaryPaths.photo(":id", ":photo"): "a photo",
        DiaryPaths.exportArchive: "a download",
        HealthPaths.exportCSV: "a download", HealthPaths.electrocardiogram(":name"): "a download",
        HealthPaths.badgeImage(file: ":file"): "an SVG image", HealthPaths.shareCardSVG: "an SVG image", HealthPaths.shareCardPNG: "a PNG image",
        VideoPaths.stream(":id"): "the video's bytes", VideoPaths.thumbnail(":id"): "a JPEG image", VideoPaths.captions(":id"): "WebVTT text",
        JournalPaths.dayPicker: "a redirect to the day chosen",
        JournalPaths.reviewCard("week", ":period"): "a PNG or SVG card", JournalPaths.reviewCard("month", ":period"): "a PNG or SVG card",
        AccountPaths.takeout: "a download",
    ]

    /// The GET routes every feature adds at the root, as the router describes them.
    static func webGetRoutes() async throws -> [String] {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger, for: .command)
        let router = Router(context: HibiRequestContext.self)
        for feature in core.features.all { router.addRoutes(feature.routes().web) }
        await core.database.shutdown()
        return router.routes.filter { $0.method == .get }.map { $0.path.description }
    }

    @Test func everyPageRouteHasASnapshot() async throws {
        let known = Set((Self.pages + Self.signedOutPages).map { RouterPath($0.route).description } + Self.notPages.keys.map { RouterPath($0).description })
        let missing = try await Self.webGetRoutes().filter { !known.contains($0) }
        #expect(missing.isEmpty, """
            GET routes with neither a snapshot nor a reason: \(missing.sorted()). Add each page to PageSnapshotTests.pages \
            (and record it: SNAPSHOT_TESTING_RECORD=missing swift test --filter PageSnapshotTests), or a download to notPages.
            """)
    }

    @Test(arguments: [Language.en, .ja]) func everyPage(_ language: Language) async throws {
        try await TestApp.run(clock: WallClock { Self.now }) { browser in
            browser.acceptLanguage = language.rawValue
            try await Self.check(Self.signedOutPages[0], Seeded(), browser, language)
            try await browser.setUp()
            let seeded = try await Self.seed(browser)
            for page in Self.pages { try await Self.check(page, seeded, browser, language) }
            // The page after a sign-out, from a browser without cookies.
            try await Self.check(Self.signedOutPages[1], seeded, Browser(client: browser.client, language: language), language)
        }
    }

    static func check(_ page: Page, _ seeded: Seeded, _ browser: Browser, _ language: Language) async throws {
        let address = page.address(seeded)
        let answer = try await browser.get(address)
        #expect(answer.status == .ok, "\(address) answered \(answer.status)")
        #expect(answer.headers[.contentType]?.hasPrefix("text/html") == true, "\(address) is not a page")
        if let failure = verifySnapshot(of: normalize(answer.body), as: .lines, named: "\(page.name).\(language.rawValue)",
                                        testName: "everyPage") {
            Issue.record("""
                The page \(address) (\(language.rawValue)) changed. If the change is intended, re-record and review the diff:
                    SNAPSHOT_TESTING_RECORD=failed swift test --filter PageSnapshotTests
                \(failure)
                """)
        }
    }

    /// Something in every domain, through the pages and API a person uses.
    static func seed(_ browser: Browser) async throws -> Seeded {
        var seeded = Seeded()
        try await browser.unlockDiary()
        try await browser.get(DiaryPaths.new)
        let entry = try await browser.postMultipart(DiaryPaths.new, fields: ["date": "2026-11-22", "time": "12:30", "text": "Lunch with Mei by the river",
                                                                             "tags": "food, friends", "mood": "happiness"],
                                                    several: [("photos", "lunch.png", TestImages.png)])
        seeded.entry = try id(in: entry, after: DiaryPaths.entry(""))
        try await browser.get(HealthPaths.overview)
        let record = try await browser.post(HealthPaths.records, form: ["type": "steps", "value": "8200", "unit": "count", "start": "2026-11-22T08:00"])
        #expect(record.status == .seeOther || record.status == .found, "\(record.body)")
        let overview = try await browser.get(HealthPaths.overview)
        guard let edit = overview.body.firstMatch(of: /\/health\/records\/([^\/"]+)\/edit/) else { throw TestFailure("no record on the health page") }
        seeded.record = String(edit.output.1)
        try await browser.get(VisitPaths.new)
        let visit = try await browser.post(VisitPaths.list, form: ["name": "Kyoto Tower", "visited_at": "2026-11-22T10:00",
                                                                   "latitude": "34.9875", "longitude": "135.7592", "labels": "tower"])
        seeded.visit = try id(in: visit, after: VisitPaths.visit(""))
        try await browser.get(VideoPaths.library)
        seeded.video = try await browser.uploaded(VideoFixtures.other, name: "Sunset.mp4").id
        try await browser.get(VideoPaths.playlists)
        let playlist = try await browser.post(VideoPaths.playlists, form: ["name": "Evenings"])
        seeded.playlist = try id(in: playlist, after: VideoPaths.playlist(""))
        return seeded
    }

    static func id(in answer: Browser.Page, after prefix: String) throws -> String {
        guard let location = answer.location, location.hasPrefix(prefix) else { throw TestFailure("no \(prefix) redirect: \(answer.status) \(answer.body.prefix(300))") }
        return String(location.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "/" })
    }

    /// The one place where what differs between two runs is masked: the CSRF token, the visit log's signing key
    /// and chain head, and ids (UUIDs, numbered in order of first appearance so that a page showing the same thing
    /// twice still says so). One element per line, so a diff points at the element that changed.
    static func normalize(_ html: String) -> String {
        var text = html.replacing(/(name="_csrf" value=")[^"]*"/) { "\($0.output.1)<csrf>\"" }
        text = text.replacing(/(name="csrf-token" content=")[^"]*"/) { "\($0.output.1)<csrf>\"" }
        // Each run makes its own Ed25519 key for the visit log (base64 of 32 bytes), so the signatures and the
        // chain head hashed over them (64 hex digits) differ too. Only those exact shapes are masked: an empty
        // log's "—" or a key of another length still shows.
        text = text.replacing(/(<code class="hash" id="public-key">)[A-Za-z0-9+\/]{43}=(<\/code>)/) { "\($0.output.1)<public-key>\($0.output.2)" }
        text = text.replacing(/(<code class="hash">)[0-9a-f]{64}(<\/code>)/) { "\($0.output.1)<chain-head>\($0.output.2)" }
        // The test's data directory sits under TMPDIR, which differs between machines and runs.
        let temporary = (NSTemporaryDirectory() as NSString).standardizingPath
        text = text.replacingOccurrences(of: temporary + "/", with: "<tmp>/")
        var ids: [Substring: Int] = [:]
        text = text.replacing(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/) { match in
            let key = match.output.lowercased()[...]
            if ids[key] == nil { ids[key] = ids.count + 1 }
            return "<id-\(ids[key] ?? 0)>"
        }
        return text.replacingOccurrences(of: "><", with: ">\n<")
    }
}

extension Browser {
    convenience init(client: any TestClientProtocol, language: Language) {
        self.init(client: client)
        acceptLanguage = language.rawValue
    }
}
