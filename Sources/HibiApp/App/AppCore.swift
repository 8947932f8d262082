import Crypto
#if canImport(FaceEngine)
import FaceEngine
#endif
import Foundation
import Hummingbird
import Logging
import Prometheus

/// What every feature is built from: storage, keys, accounts and the shared limits, opened once.
public struct Platform: Sendable {
    public let config: AppConfig
    public let logger: Logger
    public let database: Database
    public let box: SealedBoxService
    public let users: UserStore
    public let sessions: SessionStore
    public let tokens: TokenStore
    public let accounts: AccountService
    /// The API's description, composed only when serving (`hibi serve` and tests), never for a one-off command.
    public let openAPIDocument: Data?
    /// Per-person storage quota over every feature's uploads.
    public let quota: StorageQuota
    /// CPU-heavy parsing of uploads, off the request's task, one job per person at a time.
    public let heavyWork: HeavyWork
    /// Every request Hibi sends out (webhooks), kept away from the server's own network.
    public let outbound: OutboundHTTP
    /// The one source of the current time for requests and services, so both can be tested in time.
    public let clock: WallClock
    /// Metrics the features export on `/metrics` besides the HTTP ones.
    public let metrics: PrometheusCollectorRegistry
    /// This running instance, as it signs job leases (several instances may share one database).
    public let instanceID: String
    /// The face engine when its models are loaded (or a test's fake); nil means face features are off.
    public let faceAnalyzer: (any FaceAnalyzing)?
    public let moodEstimator: (any MoodEstimating)?
    /// The map tile server an administrator chose (none by default): pages and the security headers read it.
    public let mapTiles: MapTileServer
}

/// Everything the server, the CLI and the tests share: the platform and the features built on it, once.
/// `core.database`, `core.config` and the other platform members read through to the platform.
@dynamicMemberLookup
public struct AppCore: Sendable {
    public let platform: Platform
    public let features: Features

    public subscript<T>(dynamicMember keyPath: KeyPath<Platform, T>) -> T { platform[keyPath: keyPath] }

    /// What the core is opened for. A one-off command skips what only serving uses: composing the API
    /// document, loading the face models (over a second: model files are hashed and each worker builds
    /// its detector) and making the sign-in decoy hash (a quarter second of bcrypt).
    public enum Purpose: Sendable {
        case server
        case command
    }

    /// Where the face engine comes from: the models named in the configuration (when serving), or given
    /// by the caller (tests use scripted fakes; nil turns face features off).
    public enum FaceEngineSource: Sendable {
        case configured
        case given(analyzer: (any FaceAnalyzing)?, moods: (any MoodEstimating)?)
    }

    /// Opens the database, applies migrations, loads the data key and checks it matches the database,
    /// then builds every feature.
    public static func open(_ config: AppConfig, logger: Logger, for purpose: Purpose = .server,
                            face: FaceEngineSource = .configured, clock: WallClock = .system) async throws -> AppCore {
        // Resources first: a server that cannot describe its own API should not start.
        let openAPIDocument = purpose == .server
            ? try OpenAPIDocument.composedOnce(directory: (config.resourcesDirectory as NSString).appendingPathComponent("openapi")) : nil
        try PrivateFiles.prepare(dataDirectory: config.dataDirectory, logger: logger)
        let database = try await Database.open(config.database, logger: logger)
        do {
            try await Migrator(database: database, logger: logger).migrate()
            let key = try DataKeyStore.loadOrCreate(masterKey: config.masterKey, dataDirectory: config.dataDirectory)
            let box = SealedBoxService(key: key)
            try await KeyCheck(database: database, box: box).verifyOrRecord()
            let users = UserStore(database: database)
            let sessions = SessionStore(database: database, lifetime: config.sessionLifetime)
            let tokens = TokenStore(database: database)
            let metrics = PrometheusCollectorRegistry()
            // Counted on /metrics so a flood's cost can be read off (Benchmarks/login-flood.sh).
            let hasher = PasswordHasher(cost: config.passwordHashCost, gate: BcryptGate(onRun: { priority in
                metrics.makeCounter(descriptor: MetricNameDescriptor(namespace: "hibi", metricName: "bcrypt", unitName: "total",
                                                                     helpText: "bcrypt hashes computed, by priority"),
                                    labels: [("priority", priority == .account ? "account" : "decoy")]).increment()
            }))
            let decoy = DecoyHash(hasher: hasher)
            if purpose == .server { _ = try await decoy.value() }
            let accounts = AccountService(
                users: users, sessions: sessions, tokens: tokens, throttle: LoginThrottleStore(database: database),
                hasher: hasher, policy: config.loginPolicy, logger: logger, decoyHash: decoy
            )
            let quota = StorageQuota(limit: config.userQuotaBytes,
                                     usages: Features.types.flatMap { $0.storageUsage(database: database, config: config, box: box) })
            try await OwnerSealing(database: database, box: box, values: Features.types.map { $0.ownerSealedValues(config: config) },
                                  logger: logger).upgradeIfNeeded()
            let (analyzer, moods) = try loadFaceEngine(face, config: config, purpose: purpose)
            let instanceID = UUID().uuidString.lowercased()
            let platform = Platform(
                config: config, logger: logger, database: database, box: box, users: users, sessions: sessions, tokens: tokens,
                accounts: accounts, openAPIDocument: openAPIDocument, quota: quota,
                heavyWork: HeavyWork(leases: JobLeases(database: database, holder: instanceID, clock: clock)),
                outbound: OutboundHTTP(allowedNetworks: config.webhookAllowedNetworks), clock: clock,
                metrics: metrics, instanceID: instanceID, faceAnalyzer: analyzer, moodEstimator: moods,
                mapTiles: MapTileServer(database: database, fallback: config.mapTileURL))
            return AppCore(platform: platform, features: Features(platform: platform))
        } catch {
            await database.shutdown()
            throw error
        }
    }

    private static func loadFaceEngine(_ source: FaceEngineSource, config: AppConfig, purpose: Purpose) throws
        -> ((any FaceAnalyzing)?, (any MoodEstimating)?) {
        if case let .given(analyzer, moods) = source { return (analyzer, moods) }
        #if canImport(FaceEngine)
        if purpose == .server, let models = config.faceModelsDirectory {
            let adapter = FaceEngineAdapter(engine: try FaceEngine(configuration: FaceEngineConfiguration(
                modelsDirectory: models,
                emotionModelPath: (config.resourcesDirectory as NSString).appendingPathComponent("models/emotion_mini_xception.onnx"))))
            return (adapter, adapter)
        }
        #endif
        return (nil, nil)
    }
}

/// The current wall-clock time, from one injected source.
public struct WallClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    public static let system = WallClock { Date() }
}
