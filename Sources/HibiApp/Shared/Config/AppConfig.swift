import Foundation
import Logging

/// Where the data lives. SQLite is the embedded default; a `postgres://` URL switches engines.
public enum DatabaseLocation: Sendable, Equatable {
    case sqliteFile(path: String)
    /// A throwaway database for tests (sqlite-kit backs it with a temporary file).
    case sqliteMemory
    case postgres(url: String)

    public var engineName: String {
        switch self {
        case .sqliteFile, .sqliteMemory: "sqlite"
        case .postgres: "postgresql"
        }
    }
}

/// A setting that stops start-up; its description is the single line the operator sees.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public let setting: String
    public let reason: String
    public var description: String { "Configuration error: \(setting): \(reason)" }
}

/// Settings a feature reads from the environment itself: its own variables, its defaults and its refusals.
/// `AppConfig` holds them beside the platform's without naming them; the feature declares its type in
/// `Feature.settings` and reaches it with `config[settings: Type.self]` (or a property it adds to `AppConfig`).
public protocol FeatureSettings: Sendable {
    /// The defaults, used when the environment says nothing and for a configuration made in code.
    static var defaults: Self { get }
    static func load(environment: [String: String]) throws(ConfigError) -> Self
}

extension FeatureSettings {
    /// Reads these settings into `config` (called for every feature's settings type by `AppConfig.load`).
    static func load(environment: [String: String], into config: inout AppConfig) throws(ConfigError) {
        config[settings: Self.self] = try load(environment: environment)
    }
}

public struct AppConfig: Sendable {
    public var dataDirectory: String
    public var database: DatabaseLocation
    public var host: String
    public var port: Int
    public var logLevel: Logger.Level
    public var publicURL: URL?
    /// Base64 of 32 bytes; when nil the key file in the data directory is used (created on first run).
    public var masterKey: String?
    /// Directory holding the project's own web assets and the OpenAPI document.
    public var resourcesDirectory: String
    /// Directory where set-up installs third-party web libraries (Pico.css, Chart.js, …).
    public var vendorDirectory: String
    public var maxRequestBodyBytes: Int
    /// bcrypt cost. Production loading never goes below 12; tests may lower it to keep the suite fast.
    public var passwordHashCost: UInt8
    public var sessionLifetime: TimeInterval
    public var loginPolicy: LoginThrottlePolicy
    /// Where set-up put the face models (dlib weights, ONNX Runtime). nil runs without face recognition
    /// (the test suites that need no models); `hibi serve` always loads them and stops if they are missing.
    public var faceModelsDirectory: String?
    /// Map tile URL template used while an administrator has chosen none on /admin/map; empty (the
    /// default) keeps maps private: the world outline and the person's own points, no other host asked.
    public var mapTileURL: String = ""
    /// Largest Health Auto Export post (`HIBI_HEALTH_AUTO_EXPORT_MAX_MB`, 512 MB: a first push of a year of
    /// minute-level metrics; why in `AppleHealthImporter.autoExportLimit`). Streamed to disk, so not a memory bound.
    public var healthAutoExportMaxBytes: Int64 = 512 * 1024 * 1024
    /// Bytes each person may store in uploads (videos, photos); nil is no limit (`HIBI_USER_QUOTA_GB`).
    public var userQuotaBytes: Int64?
    /// A connection that sends nothing (no request, or a request head trickled byte by byte) for this
    /// long is closed (`HIBI_IDLE_TIMEOUT_SECONDS`).
    public var idleTimeoutSeconds: Int64 = 30
    /// Connections per client address and the slowest body accepted (see ConnectionGuard.swift).
    public var connectionLimits = ConnectionLimits()
    /// Reverse proxies whose `X-Forwarded-For`/`Forwarded` give the client's address (`HIBI_TRUSTED_PROXIES`).
    public var trustedProxies: [IPRange] = []
    /// Local networks webhooks may reach after all (`HIBI_WEBHOOK_ALLOW_NETWORKS`, e.g. a home server).
    public var webhookAllowedNetworks: [IPRange] = []
    /// `HIBI_METRICS_TOKEN`: /metrics answers a request with `Authorization: Bearer <token>`, or from loopback.
    public var metricsToken: String?
    /// Each feature's own settings, by type (`FeatureSettings`); a type not read yet has its defaults.
    private var featureSettings: [ObjectIdentifier: any FeatureSettings] = [:]
    public subscript<Settings: FeatureSettings>(settings type: Settings.Type) -> Settings {
        get { featureSettings[ObjectIdentifier(type)] as? Settings ?? Settings.defaults }
        set { featureSettings[ObjectIdentifier(type)] = newValue }
    }
    /// Where uploaded files live (`HIBI_MEDIA_DIR`): diary photos, videos, thumbnails, health upload spools.
    /// nil keeps them in the data directory; several instances share one media folder (a shared volume).
    public var mediaDirectoryOverride: String?
    public var mediaDirectory: String { mediaDirectoryOverride ?? dataDirectory }

    public var usesSecureCookies: Bool { publicURL?.scheme?.lowercased() == "https" }

    public init(
        dataDirectory: String = "./data",
        database: DatabaseLocation? = nil,
        host: String = "127.0.0.1",
        port: Int = 8080,
        logLevel: Logger.Level = .info,
        publicURL: URL? = nil,
        masterKey: String? = nil,
        resourcesDirectory: String = "./Resources",
        vendorDirectory: String = "./vendor",
        maxRequestBodyBytes: Int = 2 * 1024 * 1024,
        passwordHashCost: UInt8 = 12,
        sessionLifetime: TimeInterval = 30 * 24 * 3600,
        loginPolicy: LoginThrottlePolicy = .standard
    ) {
        self.dataDirectory = dataDirectory
        self.database = database ?? .sqliteFile(path: (dataDirectory as NSString).appendingPathComponent("hibi.sqlite"))
        self.host = host
        self.port = port
        self.logLevel = logLevel
        self.publicURL = publicURL
        self.masterKey = masterKey
        self.resourcesDirectory = resourcesDirectory
        self.vendorDirectory = vendorDirectory
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.passwordHashCost = passwordHashCost
        self.sessionLifetime = sessionLifetime
        self.loginPolicy = loginPolicy
    }

    /// Settings a command line flag may give; a flag wins over the environment, which wins over defaults.
    public struct Overrides: Sendable {
        public var dataDirectory: String?
        public var databaseURL: String?
        public var host: String?
        public var port: String?
        public var logLevel: String?
        public var publicURL: String?
        public init(dataDirectory: String? = nil, databaseURL: String? = nil, host: String? = nil,
                    port: String? = nil, logLevel: String? = nil, publicURL: String? = nil) {
            self.dataDirectory = dataDirectory
            self.databaseURL = databaseURL
            self.host = host
            self.port = port
            self.logLevel = logLevel
            self.publicURL = publicURL
        }
    }

    /// The platform's settings from the environment and the flags; `AppConfig.load` (App/) adds each feature's.
    static func loadPlatform(environment: [String: String], overrides: Overrides) throws(ConfigError) -> AppConfig {
        func value(_ flag: String?, _ name: String) -> (String, String)? {
            if let flag { return (flag, "--\(name.dropFirst(5).lowercased().replacingOccurrences(of: "_", with: "-"))") }
            if let env = environment[name], !env.isEmpty { return (env, name) }
            return nil
        }
        var config = AppConfig()
        if let (dir, source) = value(overrides.dataDirectory, "HIBI_DATA_DIR") {
            guard !dir.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigError(setting: source, reason: "must not be empty")
            }
            config.dataDirectory = dir
        }
        config.database = .sqliteFile(path: (config.dataDirectory as NSString).appendingPathComponent("hibi.sqlite"))
        if let media = environment["HIBI_MEDIA_DIR"], !media.trimmingCharacters(in: .whitespaces).isEmpty {
            config.mediaDirectoryOverride = media
        }
        if let (url, source) = value(overrides.databaseURL, "HIBI_DATABASE_URL") {
            config.database = try parseDatabaseURL(url, source: source)
        }
        if let (host, source) = value(overrides.host, "HIBI_HOST") {
            guard !host.isEmpty, !host.contains(" ") else { throw ConfigError(setting: source, reason: "\"\(host)\" is not a host name or address") }
            config.host = host
        }
        if let (port, source) = value(overrides.port, "HIBI_PORT") {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw ConfigError(setting: source, reason: "\"\(port)\" is not a port number (1-65535)")
            }
            config.port = number
        }
        if let (level, source) = value(overrides.logLevel, "HIBI_LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ConfigError(setting: source, reason: "\"\(level)\" is not a log level (trace, debug, info, notice, warning, error, critical)")
            }
            config.logLevel = parsed
        }
        if let (raw, source) = value(overrides.publicURL, "HIBI_PUBLIC_URL") {
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw ConfigError(setting: source, reason: "\"\(raw)\" is not an http(s) URL such as https://diary.example.org")
            }
            config.publicURL = url
        }
        if let key = environment["HIBI_MASTER_KEY"], !key.isEmpty {
            guard let bytes = Data(base64Encoded: key), bytes.count == 32 else {
                throw ConfigError(setting: "HIBI_MASTER_KEY", reason: "must be 32 bytes in base64 (make one with: openssl rand -base64 32)")
            }
            config.masterKey = key
        }
        if let raw = environment["HIBI_MAP_TILE_URL"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard let template = MapTileServer.template(raw) else {
                throw ConfigError(setting: "HIBI_MAP_TILE_URL", reason: "must be an http(s) URL or a path on this host naming {z}, {x} and {y}, like https://tile.openstreetmap.org/{z}/{x}/{y}.png, or none")
            }
            config.mapTileURL = template
        }
        config.faceModelsDirectory = environment["HIBI_MODELS_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "./models"
        if let dir = environment["HIBI_RESOURCES_DIR"], !dir.isEmpty { config.resourcesDirectory = dir }
        if let dir = environment["HIBI_VENDOR_DIR"], !dir.isEmpty { config.vendorDirectory = dir }
        if let raw = environment["HIBI_MAX_BODY_MB"], !raw.isEmpty {
            guard let mb = Int(raw), mb > 0, mb <= 10_240 else {
                throw ConfigError(setting: "HIBI_MAX_BODY_MB", reason: "\"\(raw)\" is not a size in megabytes (1-10240)")
            }
            config.maxRequestBodyBytes = mb * 1024 * 1024
        }
        if let raw = environment["HIBI_HEALTH_AUTO_EXPORT_MAX_MB"], !raw.isEmpty {
            guard let mb = Int64(raw), mb > 0, mb <= 65_536 else {
                throw ConfigError(setting: "HIBI_HEALTH_AUTO_EXPORT_MAX_MB", reason: "\"\(raw)\" is not a size in megabytes (1-65536)")
            }
            config.healthAutoExportMaxBytes = mb * 1024 * 1024
        }
        if let raw = environment["HIBI_USER_QUOTA_GB"], !raw.isEmpty {
            guard let gb = Double(raw), gb.isFinite, gb > 0, gb <= 1_000_000 else {
                throw ConfigError(setting: "HIBI_USER_QUOTA_GB", reason: "\"\(raw)\" is not a size in gigabytes (more than 0, e.g. 20 or 0.5)")
            }
            config.userQuotaBytes = Int64(saturating: gb * 1_073_741_824)
        }
        if let raw = environment["HIBI_TRUSTED_PROXIES"], !raw.isEmpty {
            config.trustedProxies = try raw.split(separator: ",").map { item throws(ConfigError) in
                guard let range = IPRange(String(item)) else {
                    throw ConfigError(setting: "HIBI_TRUSTED_PROXIES", reason: "\"\(item)\" is not an address or range (e.g. 127.0.0.1 or 10.0.0.0/8)")
                }
                return range
            }
        }
        if let raw = environment["HIBI_METRICS_TOKEN"], !raw.isEmpty { config.metricsToken = raw }
        if let raw = environment["HIBI_WEBHOOK_ALLOW_NETWORKS"], !raw.isEmpty {
            config.webhookAllowedNetworks = try raw.split(separator: ",").map { item throws(ConfigError) in
                guard let range = IPRange(String(item)) else {
                    throw ConfigError(setting: "HIBI_WEBHOOK_ALLOW_NETWORKS", reason: "\"\(item)\" is not an address or range (e.g. 192.168.1.0/24)")
                }
                return range
            }
        }
        if let raw = environment["HIBI_IDLE_TIMEOUT_SECONDS"], !raw.isEmpty {
            guard let seconds = Int64(raw), (5...3600).contains(seconds) else {
                throw ConfigError(setting: "HIBI_IDLE_TIMEOUT_SECONDS", reason: "\"\(raw)\" is not a number of seconds (5-3600)")
            }
            config.idleTimeoutSeconds = seconds
        }
        config.connectionLimits = try ConnectionLimits.load(environment: environment)
        return config
    }

    static func parseDatabaseURL(_ raw: String, source: String) throws(ConfigError) -> DatabaseLocation {
        if raw.hasPrefix("postgres://") || raw.hasPrefix("postgresql://") {
            guard let url = URL(string: raw), url.host != nil else {
                throw ConfigError(setting: source, reason: "is not a valid PostgreSQL URL (postgres://user:password@host:5432/database)")
            }
            return .postgres(url: raw)
        }
        if raw == "sqlite::memory:" { return .sqliteMemory }
        if raw.hasPrefix("sqlite://") {
            let path = String(raw.dropFirst("sqlite://".count))
            guard !path.isEmpty else { throw ConfigError(setting: source, reason: "sqlite:// needs a file path, e.g. sqlite:///var/lib/hibi/hibi.sqlite") }
            return .sqliteFile(path: path)
        }
        if raw.hasPrefix("sqlite:") {
            return .sqliteFile(path: String(raw.dropFirst("sqlite:".count)))
        }
        throw ConfigError(setting: source, reason: "unsupported database URL; use postgres://… or sqlite:PATH")
    }
}
