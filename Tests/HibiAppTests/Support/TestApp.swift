import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresKit
import Synchronization
@testable import HibiApp

/// Builds the real application on a fresh database: in-memory SQLite by default, or a brand-new
/// PostgreSQL database when HIBI_TEST_POSTGRES_URL is set (the same tests then run on both engines).
enum TestApp {
    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["HIBI_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `migrated`: the database is a copy of one migrated once per test process (as AppCore.open would leave a
    /// fresh one), for callers that open the app at once; on PostgreSQL migrating anew took about a second per
    /// test. On SQLite the copy is a file in the test's data folder, where the app keeps its database by default,
    /// so route tests run on what people run on (a backup or restore takes its file paths, not the in-memory
    /// ones; the time saved is small, 3% of the pass's CPU). Callers that open the database themselves
    /// (migration tests) get an empty one.
    static func config(dataDirectory: String? = nil, database: DatabaseLocation? = nil, migrated: Bool = false) async throws -> AppConfig {
        let directory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("hibi-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let location: DatabaseLocation
        if let database {
            location = database
        } else if let postgresURL {
            location = .postgres(url: try await freshPostgresDatabase(serverURL: postgresURL,
                                                                      template: migrated ? try await MigratedTemplate.shared.name(serverURL: postgresURL) : nil))
        } else if migrated {
            location = .sqliteFile(path: try await MigratedSQLiteTemplate.shared.copy(into: directory))
        } else {
            location = .sqliteMemory
        }
        var config = AppConfig(dataDirectory: directory, database: location, logLevel: .warning,
                               resourcesDirectory: resourcesDirectory, passwordHashCost: 4)
        // Same rules as production, but without making the suite sleep through the slowed answers.
        config.loginPolicy.delayPerFailure = 0.01
        // The models are tested in FaceEngineTests and the browser tests; API tests use fakes.
        config.faceModelsDirectory = nil
        return config
    }

    static var resourcesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources").path
    }

    /// A new database on the server: empty, or a copy of `template`.
    static func freshPostgresDatabase(serverURL: String, template: String? = nil) async throws -> String {
        let name = "hibi_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try await PostgresAdmin.shared.database(serverURL: serverURL)
        try await admin.sql.raw("CREATE DATABASE \(unsafeRaw: String(name))\(unsafeRaw: template.map { " TEMPLATE \($0)" } ?? "")").run()
        return try databaseURL(serverURL: serverURL, name: String(name))
    }

    /// One pool on the server's own database for every CREATE DATABASE of the test process, left open until the
    /// process ends: a pool opened and closed per test started and ended one more backend per test (the PostgreSQL
    /// pass made 2,349 connections before, 1,918 after).
    actor PostgresAdmin {
        static let shared = PostgresAdmin()
        private var opened: [String: Task<Database, any Error>] = [:]

        func database(serverURL: String) async throws -> Database {
            let task = opened[serverURL] ?? Task { try await Database.open(.postgres(url: serverURL), logger: TestApp.quietLogger) }
            opened[serverURL] = task
            return try await task.value
        }
    }

    static func databaseURL(serverURL: String, name: String) throws -> String {
        guard var components = URLComponents(string: serverURL) else { throw TestFailure("not a URL: \(serverURL)") }
        components.path = "/" + name
        guard let url = components.string else { throw TestFailure("no URL for database \(name)") }
        return url
    }

    /// One database per test process migrated by the real Migrator, copied by CREATE DATABASE … TEMPLATE.
    /// Its connections are closed before the first copy (PostgreSQL copies only a template nobody uses).
    actor MigratedTemplate {
        static let shared = MigratedTemplate()
        private var made: Task<String, any Error>?

        func name(serverURL: String) async throws -> String {
            if let made { return try await made.value }
            let task = Task<String, any Error> {
                let url = try await TestApp.freshPostgresDatabase(serverURL: serverURL)
                let database = try await Database.open(.postgres(url: url), logger: TestApp.quietLogger)
                do {
                    try await Migrator(database: database, logger: TestApp.quietLogger).migrate()
                } catch {
                    await database.shutdown()
                    throw error
                }
                await database.shutdown()
                guard let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty else { throw TestFailure("no name in \(url)") }
                return String(name)
            }
            made = task
            return try await task.value
        }
    }

    /// SQLite's counterpart of `MigratedTemplate`: one file migrated by the real Migrator, checkpointed and closed,
    /// then copied whole for each test.
    actor MigratedSQLiteTemplate {
        static let shared = MigratedSQLiteTemplate()
        private var made: Task<String, any Error>?

        func copy(into directory: String) async throws -> String {
            let task = made ?? Task<String, any Error> {
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-template-\(UUID().uuidString).sqlite").path
                let database = try await Database.open(.sqliteFile(path: path), logger: TestApp.quietLogger)
                do {
                    try await Migrator(database: database, logger: TestApp.quietLogger).migrate()
                    // Everything into the main file, so copying that one file copies the whole database.
                    try await database.sql.raw("PRAGMA wal_checkpoint(TRUNCATE)").run()
                } catch {
                    await database.shutdown()
                    throw error
                }
                await database.shutdown()
                return path
            }
            made = task
            let copy = (directory as NSString).appendingPathComponent("hibi.sqlite")
            try FileManager.default.copyItem(atPath: try await task.value, toPath: copy)
            return copy
        }
    }

    static let quietLogger: Logger = {
        var logger = Logger(label: "hibi-test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        return logger
    }()

    static func build(_ config: AppConfig) async throws -> some ApplicationProtocol {
        try await buildApplication(config, logger: quietLogger)
    }

    /// Runs `body` on a fresh core (no router) with two people, Aiko (the administrator) and Ken, for
    /// tests that check one person never sees the other's data; the database is closed on every way out.
    static func withTwoPeople(_ body: (AppCore, User, User) async throws -> Void) async throws {
        let core = try await AppCore.open(try await config(migrated: true), logger: quietLogger, for: .command)
        do {
            let aiko = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            let ken = try await core.accounts.createUser(username: "ken", displayName: "Ken", password: Browser.password, isAdmin: false,
                                                         language: nil, now: Date())
            try await body(core, aiko, ken)
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    /// Runs `body` against a fresh app through the real router, in process.
    static func run<T>(config: AppConfig? = nil, moods: (any MoodEstimating)? = FakeMoodEstimator(), clock: WallClock = .system,
                       _ body: @escaping @Sendable (Browser) async throws -> T) async throws -> T {
        let config = if let config { config } else { try await Self.config(migrated: true) }
        // HIBI_TEST_LOG=1 prints the app's error lines, to see why a test got a 500.
        let core = try await AppCore.open(config, logger: ProcessInfo.processInfo.environment["HIBI_TEST_LOG"] != nil ? makeLogger(level: .error) : quietLogger,
                                          face: .given(analyzer: nil, moods: moods), clock: clock)
        let app = await buildApplication(core: core)
        return try await app.test(.router) { client in
            try await body(Browser(client: client))
        }
    }
}

/// A tiny browser over the test client: keeps cookies, finds CSRF tokens in pages, follows nothing by itself.
final class Browser: @unchecked Sendable {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]
    var acceptLanguage = "en"
    var csrf: String?

    init(client: any TestClientProtocol) {
        self.client = client
    }

    struct Page {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: String
        /// The body's bytes, for answers that are not text (archives, photos).
        var data = Data()
        var location: String? { headers[.location] }
    }

    @discardableResult
    func get(_ uri: String, headers extra: HTTPFields = [:]) async throws -> Page {
        try await send(uri, method: .get, headers: extra, body: nil)
    }

    @discardableResult
    func post(_ uri: String, form: [String: String], includeCSRF: Bool = true) async throws -> Page {
        var fields = form
        if includeCSRF, fields["_csrf"] == nil, let csrf { fields["_csrf"] = csrf }
        let body = fields.map { key, value in
            "\(Self.encode(key))=\(Self.encode(value))"
        }.joined(separator: "&")
        return try await send(uri, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                              body: ByteBuffer(string: body))
    }

    func send(_ uri: String, method: HTTPRequest.Method, headers extra: HTTPFields = [:], body: ByteBuffer?) async throws -> Page {
        var headers = extra
        headers[.acceptLanguage] = acceptLanguage
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
        for field in response.headers[values: .setCookie] {
            let pair = field.split(separator: ";").first.map(String.init) ?? ""
            // Empty values kept: "name=" is how a server clears a cookie.
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[1].isEmpty || field.contains("Max-Age=0") {
                cookies[parts[0]] = nil
            } else {
                cookies[parts[0]] = parts[1]
            }
        }
        let text = String(buffer: response.body)
        if let token = Self.csrfToken(in: text) { csrf = token }
        return Page(status: response.status, headers: response.headers, body: text, data: Data(buffer: response.body))
    }

    func setCookie(_ name: String, _ value: String?) {
        cookies[name] = value
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="_csrf" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: flows used by many tests

    static let password = "correct horse battery"

    /// Creates the first (admin) account through the setup page and leaves this browser signed in.
    func setUp(username: String = "aiko", password: String = Browser.password) async throws {
        try await get("/setup")
        let page = try await post("/setup", form: ["username": username, "password": password, "password_confirm": password,
                                                   "display_name": "Aiko", "time_zone": "Asia/Tokyo"])
        // Thrown, not a precondition: a refused set-up fails its test instead of stopping the whole run.
        guard page.status == .found else { throw TestFailure("setup failed: \(page.status) \(page.body.prefix(300))") }
        try await get("/")
    }

    func signIn(username: String, password: String = Browser.password) async throws -> Page {
        try await get("/login")
        let page = try await post("/login", form: ["username": username, "password": password])
        if page.status == .found { try await get("/") }
        return page
    }

    func signOut() async throws {
        try await post("/logout", form: [:])
    }

    /// Creates an API token through the settings page (confirming with the password) and returns its secret.
    func createToken(name: String = "script", scopes: TokenScopes = .all, password: String? = Browser.password) async throws -> String {
        try await get("/settings")
        var form = ["name": name]
        if scopes.contains(.write) { form["scope_write"] = "on" }
        if scopes.contains(.diary) { form["scope_diary"] = "on" }
        if let password { form["password"] = password }
        let page = try await post("/settings/tokens", form: form)
        guard let start = page.body.range(of: #"<code id="new-token" class="token">"#),
              let end = page.body[start.upperBound...].range(of: "</code>") else {
            throw TestFailure("no token on page: \(page.status)")
        }
        return String(page.body[start.upperBound..<end.lowerBound])
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// JSON calls with a bearer token.
struct APIClient {
    let browser: Browser
    let token: String?

    func call(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, contentType: String = "application/json") async throws -> Browser.Page {
        try await call(method, uri, body: json.map { Data($0.utf8) }, contentType: contentType)
    }

    func call(_ method: HTTPRequest.Method, _ uri: String, body: Data?, contentType: String) async throws -> Browser.Page {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = contentType }
        let saved = browser.cookies
        // Bearer calls carry no cookies, like a script would.
        for name in saved.keys { browser.setCookie(name, nil) }
        defer { for (name, value) in saved { browser.setCookie(name, value) } }
        return try await browser.send(uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    static func decode<T: Decodable>(_ type: T.Type, _ page: Browser.Page) throws -> T {
        try JSONCoding.decoder.decode(T.self, from: Data(page.body.utf8))
    }
}

/// Stands in for the face engine where a test is about the diary, not the models:
/// JPEG bytes read as happy, PNG as surprised, and a JPEG ending in "NOFACE" has no face.
struct FakeMoodEstimator: MoodEstimating {
    func estimateMood(imageData: Data) async throws -> MoodScores? {
        if imageData.suffix(6) == Data("NOFACE".utf8) { return nil }
        let top: Mood = imageData.first == 0x89 ? .surprise : .happiness
        var values = Dictionary(uniqueKeysWithValues: Mood.allCases.map { ($0, 0.05) })
        values[top] = 0.7
        return MoodScores(values)
    }
}

enum TestImages {
    /// Real 3×2 images (made with Pillow): photos are checked whole, so a few magic bytes are not enough.
    static let jpeg = Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAACAAMDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCeiiivkD6o/9k=") ?? Data()
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAFUlEQVR4nGM8UaHBwMDAwMDAxAADABosAWwXscVVAAAAAElFTkSuQmCC") ?? Data()
    static let webp = Data(base64Encoded: "UklGRjoAAABXRUJQVlA4IC4AAADQAQCdASoDAAIAAUAmJaACdLoB+AADsAD+pNf/TSPGkeNI+Yt/84ljqd3aAAAA") ?? Data()
    static let gif = Data(base64Encoded: "R0lGODdhAwACAIEAAMh4KAAAAAAAAAAAACwAAAAAAwACAAAIBgABCBwYEAA7") ?? Data()
    static let noFace = jpeg + Data("NOFACE".utf8)
}

extension Browser {
    /// Posts a multipart form with optional files, as a browser's file input does.
    @discardableResult
    func postMultipart(_ uri: String, fields: [String: String], files: [String: (String, Data)] = [:],
                       several: [(name: String, filename: String, data: Data)] = []) async throws -> Page {
        let boundary = "hibi-test-\(UUID().uuidString)"
        var body = ByteBuffer()
        var all = fields
        if all["_csrf"] == nil, let csrf { all["_csrf"] = csrf }
        // `_csrf` first, as a browser sends Hibi's forms (the token field comes first in each form).
        for (name, value) in all.sorted(by: { ($0.key == "_csrf" ? 0 : 1, $0.key) < ($1.key == "_csrf" ? 0 : 1, $1.key) }) {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        // Several files under one name, in order, as `<input type=file multiple>` sends them.
        for (name, (filename, data)) in files.map({ ($0.key, $0.value) }) + several.map({ ($0.name, ($0.filename, $0.data)) }) {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n")
            body.writeBytes(data)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        return try await send(uri, method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: body)
    }

    /// Unlocks the diary with the password (a new session always starts locked).
    func unlockDiary(password: String = Browser.password) async throws {
        try await get("/diary/unlock")
        let page = try await post("/diary/unlock", form: ["password": password, "next": "/diary"])
        precondition(page.status == .found, "unlock failed: \(page.status)")
    }
}

/// A clock a test moves by hand, starting at the real time: a test that paces requests (a camera's frames)
/// advances it instead of sleeping, so the server's timing rules see exactly the gaps the test means,
/// however slow the machine is, and the test spends no time waiting.
final class TestTime: Sendable {
    let current = Mutex(Date())
    var clock: WallClock { WallClock { [self] in current.withLock { $0 } } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
