import Crypto
import Hummingbird
import HummingbirdCore
import Foundation
import Logging
import Testing
@testable import HibiApp

@Suite struct LanguageTests {
    @Test func negotiatesByQuality() {
        #expect(Language.negotiate(acceptLanguage: "ja-JP,ja;q=0.9,en;q=0.8") == .ja)
        #expect(Language.negotiate(acceptLanguage: "en-US,ja;q=0.5") == .en)
        #expect(Language.negotiate(acceptLanguage: "fr-FR,ja;q=0.3") == .ja)
        #expect(Language.negotiate(acceptLanguage: "de") == .en)
        #expect(Language.negotiate(acceptLanguage: nil) == .en)
    }
}

@Suite struct HTMLTests {
    @Test func textAndAttributesAreEscaped() {
        let node = el("p", .class("a\"b")) { "<script>alert('x')</script> & co" }
        #expect(node.render() == #"<p class="a&quot;b">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co</p>"#)
    }
}

@Suite struct FormDataTests {
    @Test func decodesPlusAndPercent() throws {
        let form = FormData(body: "name=Aiko+Tanaka&note=%E6%97%A5%E3%80%85&empty=&flag=on")
        #expect(form["name"] == "Aiko Tanaka")
        #expect(form["note"] == "日々")
        #expect(form.bool("flag"))
        #expect(throws: RequestError.missingField("empty")) { try form.required("empty") }
    }

    @Test func queryStringsReadLikeGetForms() {
        let query = URI("/diary?q=coffee+walk&tag=%2B1&tag=two&flag").formQuery
        #expect(query.get("q") == "coffee walk")
        #expect(query.getAll("tag") == ["+1", "two"])
        #expect(query.get("flag") == "")
        #expect(URI("/diary").formQuery.get("q") == nil)
    }
}

@Suite struct LogRedactionTests {
    @Test func personalKeysAndValuesNeverReachTheLine() throws {
        let lines = LineCollector()
        var logger = Logger(label: "t") { label in JSONLogHandler(label: label, level: .debug, write: { lines.append($0) }) }
        logger.logLevel = .debug
        logger.info("sign-in by aiko@example.com with Bearer hibi_abcdefghijklmnopqrstuvwxyz",
                    metadata: ["username": "aiko", "password": "secret!", "path": "/settings", "note": "今日は楽しかった"])
        let line = try #require(lines.all.first)
        #expect(!line.contains("aiko@example.com"))
        #expect(!line.contains("secret!"))
        #expect(!line.contains("楽しかった"))
        #expect(!line.contains("abcdefghijklmnop"))
        #expect(!line.contains("\"aiko\""))
        #expect(line.contains("/settings"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["level"] as? String == "info")
        #expect(object?["username"] as? String == LogRedaction.placeholder)
    }

    @Test func queryStringsAreDroppedFromPaths() {
        #expect(LogRedaction.path("/diary/search?q=secret") == "/diary/search")
    }
}

final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

@Suite struct ConfigTests {
    @Test func defaultsAreEmbeddedSQLiteOnLoopback() throws {
        let config = try AppConfig.load(environment: [:])
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.database == .sqliteFile(path: "./data/hibi.sqlite"))
        #expect(!config.usesSecureCookies)
    }

    @Test func flagsWinOverEnvironment() throws {
        let config = try AppConfig.load(environment: ["HIBI_PORT": "9000", "HIBI_DATA_DIR": "/srv/hibi"],
                                        overrides: .init(port: "9100"))
        #expect(config.port == 9100)
        #expect(config.database == .sqliteFile(path: "/srv/hibi/hibi.sqlite"))
    }

    @Test func badSettingsNameTheSettingAndTheReason() {
        #expect(throws: ConfigError(setting: "HIBI_PORT", reason: "\"eighty\" is not a port number (1-65535)")) {
            try AppConfig.load(environment: ["HIBI_PORT": "eighty"])
        }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_DATABASE_URL": "mysql://x"]) }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_MASTER_KEY": "short"]) }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_PUBLIC_URL": "ftp://x"]) }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_LOG_LEVEL": "loud"]) }
    }

    /// Videos' and Backup's settings are their own types, read by `AppConfig.load` because each feature lists them
    /// in `Feature.settings`: a feature that forgot would run on defaults whatever the environment said.
    @Test func featuresSettingsAreReadFromTheEnvironmentAndRefusedByName() throws {
        let config = try AppConfig.load(environment: ["HIBI_VIDEO_MAX_MB": "5", "HIBI_VIDEO_SCAN_MINUTES": "0",
                                                      "HIBI_BACKUP_DIR": "/b", "HIBI_BACKUP_KEEP": "3"])
        #expect(config.videos.maxUploadBytes == 5 * 1024 * 1024)
        #expect(config.videos.scanInterval == 0)
        #expect(config.backups == BackupSettings(directory: "/b", interval: 24 * 3600, keep: 3))
        let defaults = AppConfig()
        #expect(defaults.videos.maxUploadBytes == 4096 * 1024 * 1024 && defaults.backups == BackupSettings())
        #expect(throws: ConfigError(setting: "HIBI_VIDEO_MAX_MB", reason: "\"lots\" is not a size in megabytes (1-1048576)")) {
            try AppConfig.load(environment: ["HIBI_VIDEO_MAX_MB": "lots"])
        }
        var edited = AppConfig()
        edited.videos.ffmpegPath = "/opt/ffmpeg"
        #expect(edited.videos.ffmpegPath == "/opt/ffmpeg" && edited.videos.ffprobePath == "/usr/bin/ffprobe")
    }

    @Test func httpsPublicURLMakesCookiesSecure() throws {
        let config = try AppConfig.load(environment: ["HIBI_PUBLIC_URL": "https://diary.example.org"])
        #expect(config.usesSecureCookies)
        #expect(try AppConfig.load(environment: ["HIBI_DATABASE_URL": "postgres://u:p@db:5432/hibi"]).database == .postgres(url: "postgres://u:p@db:5432/hibi"))
    }
}

@Suite struct SealedBoxTests {
    @Test func roundTripsAndRefusesAnotherKeyOrContext() throws {
        let box = SealedBoxService(key: SymmetricKey(size: .bits256))
        let sealed = try box.sealString("今日の日記", context: "diary:1")
        #expect(!sealed.contains(Data("今日の日記".utf8)))
        #expect(try box.openString(sealed, context: "diary:1") == "今日の日記")
        #expect(throws: EncryptionError.wrongKey) { try box.open(sealed, context: "diary:2") }
        let other = SealedBoxService(key: SymmetricKey(size: .bits256))
        #expect(throws: EncryptionError.wrongKey) { try other.open(sealed, context: "diary:1") }
        #expect(throws: EncryptionError.corrupted) { try box.open(Data([9, 9, 9]), context: "diary:1") }
    }

    @Test func keyFileIsCreatedPrivateAndReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-key-\(UUID().uuidString)").path
        let first = try DataKeyStore.loadOrCreate(masterKey: nil, dataDirectory: directory)
        let path = directory + "/" + DataKeyStore.fileName
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try DataKeyStore.loadOrCreate(masterKey: nil, dataDirectory: directory)
        #expect(first == second)
    }
}

@Suite struct OpenAPICompositionTests {
    @Test func fragmentsAreMergedAndDuplicatesRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"openapi":"3.1.0","paths":{"/healthz":{}},"components":{"schemas":{"Error":{}}}}"#.write(toFile: directory + "/base.json", atomically: true, encoding: .utf8)
        try #"{"paths":{"/api/v1/a":{}},"components":{"schemas":{"A":{}}}}"#.write(toFile: directory + "/a.json", atomically: true, encoding: .utf8)
        let merged = try JSONSerialization.jsonObject(with: OpenAPIDocument.compose(directory: directory)) as? [String: Any]
        #expect(Set((merged?["paths"] as? [String: Any] ?? [:]).keys) == ["/healthz", "/api/v1/a"])
        try #"{"components":{"schemas":{"Error":{}}}}"#.write(toFile: directory + "/b.json", atomically: true, encoding: .utf8)
        #expect(throws: OpenAPIDocument.CompositionError.self) { try OpenAPIDocument.compose(directory: directory) }
    }

    @Test func theShippedDocumentComposes() throws {
        let data = try OpenAPIDocument.compose(directory: TestApp.resourcesDirectory + "/openapi")
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect((document?["paths"] as? [String: Any])?["/api/v1/me"] != nil)
    }

    /// schemathesis's stateful phase reaches an operation that takes an id only through an OpenAPI link from
    /// an operation that returns one; without it every call got an id that does not exist (a 404 testing nothing).
    @Test func everyOperationTakingAnIDIsTheTargetOfALinkThatNamesItsParameters() throws {
        let data = try OpenAPIDocument.compose(directory: TestApp.resourcesDirectory + "/openapi")
        let paths = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["paths"] as? [String: [String: Any]])
        var pathParameters: [String: Set<String>] = [:] // operationId -> its path parameters
        var links: [(source: String, target: String, parameters: Set<String>)] = []
        for (_, item) in paths {
            let shared = item["parameters"] as? [[String: Any]] ?? []
            for (method, value) in item where ["get", "put", "post", "patch", "delete"].contains(method) {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String else { continue }
                let parameters = shared + (operation["parameters"] as? [[String: Any]] ?? [])
                pathParameters[id] = Set(parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                for (_, response) in operation["responses"] as? [String: [String: Any]] ?? [:] {
                    for (_, link) in response["links"] as? [String: [String: Any]] ?? [:] {
                        links.append((id, link["operationId"] as? String ?? "", Set((link["parameters"] as? [String: Any] ?? [:]).keys)))
                    }
                }
            }
        }
        // Dates and periods are written by the client, not handed out by the API.
        let clientWritten: Set<String> = ["date", "period"]
        let targets = Set(links.map(\.target))
        let unlinked = pathParameters.filter { !$0.value.isEmpty && !$0.value.isSubset(of: clientWritten) && !targets.contains($0.key) }.keys.sorted()
        #expect(unlinked.isEmpty, "operations taking an id that no link reaches: \(unlinked)")
        for link in links {
            let parameters = try #require(pathParameters[link.target], "\(link.source) links to \(link.target), which does not exist")
            #expect(link.parameters == parameters, "\(link.source) -> \(link.target) sets \(link.parameters.sorted()), the path has \(parameters.sorted())")
        }
    }

    /// schemathesis writes records from the documented `type` enum: it must be exactly the types the API takes
    /// by hand, or generated records are refused (a type missing) or the fuzzing calls a valid type invalid.
    @Test func theDocumentedHealthRecordTypesAreTheOnesEnteredByHand() throws {
        let data = try OpenAPIDocument.compose(directory: TestApp.resourcesDirectory + "/openapi")
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let input = try #require(schemas["HealthRecordInput"] as? [String: Any])
        let type = try #require((input["properties"] as? [String: Any])?["type"] as? [String: Any])
        #expect(type["enum"] as? [String] == HealthDataType.manual.map(\.rawValue))
    }
}

@Suite struct MapConfigTests {
    @Test func tileURLIsValidatedAtStartUp() throws {
        // Private by default: no tile server until an administrator names one.
        #expect(try AppConfig.load(environment: [:]).mapTileURL == "")
        #expect(try AppConfig.load(environment: ["HIBI_MAP_TILE_URL": "none"]).mapTileURL == "")
        #expect(try AppConfig.load(environment: ["HIBI_MAP_TILE_URL": "https://tiles.example.org/{z}/{x}/{y}.png"]).mapTileURL
                == "https://tiles.example.org/{z}/{x}/{y}.png")
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_MAP_TILE_URL": "javascript:alert(1)"]) }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_MAP_TILE_URL": "https://evil.example/x.png"]) }
        #expect(throws: ConfigError.self) { try AppConfig.load(environment: ["HIBI_MAP_TILE_URL": "https://a.example/{z}/{x}/{y}.png; script-src *"]) }
    }
}

@Suite struct NULDetectionTests {
    @Test func escapedNULIsFoundButAnEscapedBackslashIsNot() {
        #expect(Request.containsEscapedNUL(Data(#"{"name":"a\u0000b"}"#.utf8)))
        #expect(Request.containsEscapedNUL(Data(#"{"name":"\\\u0000"}"#.utf8)))
        #expect(!Request.containsEscapedNUL(Data(#"{"name":"\\u0000"}"#.utf8)))
        #expect(!Request.containsEscapedNUL(Data(#"{"name":"u0000"}"#.utf8)))
    }
}

@Suite struct TimeOrderedIDTests {
    @Test func idsAreVersion7UUIDsThatSortByTime() throws {
        let earlier = TimeOrderedID.make(now: Date(timeIntervalSince1970: 1_700_000_000))
        let later = TimeOrderedID.make(now: Date(timeIntervalSince1970: 1_700_000_000.002))
        let uuid = try #require(UUID(uuidString: earlier))
        #expect(uuid.uuidString == earlier)
        #expect(Array(earlier)[14] == "7")  // version nibble
        #expect("89AB".contains(Array(earlier)[19]))  // RFC 9562 variant
        #expect(earlier.hasPrefix("018BCFE5-6800"))  // 1_700_000_000_000 ms in hex, first 48 bits
        #expect(earlier < later)
        #expect(TimeOrderedID.make() != TimeOrderedID.make())
    }
}
