import Crypto
#if canImport(FaceEngine)
import FaceEngine
#endif
import Foundation
import Hummingbird
import Logging
import Prometheus

/// Everything the server, the CLI and the tests share: storage, keys and services, opened once.
public struct AppCore: Sendable {
    public let config: AppConfig
    public let logger: Logger
    public let database: Database
    public let box: SealedBoxService
    public let users: UserStore
    public let sessions: SessionStore
    public let tokens: TokenStore
    public let accounts: AccountService
    public let openAPIDocument: Data
    /// Per-person storage quota over every feature's uploads.
    public let quota: StorageQuota
    /// CPU-heavy parsing of uploads, off the request's task, one job per person at a time.
    public let heavyWork: HeavyWork
    /// Every request Hibi sends out (webhooks), kept away from the server's own network.
    public let outbound: OutboundHTTP
    /// Set by the builder when the face engine's models are loaded; tests may put a fake here.
    public var moodEstimator: (any MoodEstimating)?
    public var faceAnalyzer: (any FaceAnalyzing)?

    /// What the core is opened for. A one-off command skips what only serving uses: loading the face
    /// models (over a second: model files are hashed and each worker builds its detector) and making the
    /// sign-in decoy hash (a quarter second of bcrypt).
    public enum Purpose: Sendable {
        case server
        case command
    }

    /// Opens the database, applies migrations, loads the data key and checks it matches the database.
    public static func open(_ config: AppConfig, logger: Logger, for purpose: Purpose = .server) async throws -> AppCore {
        // Resources first: a server that cannot describe its own API should not start.
        let openAPIDocument = try OpenAPIDocument.compose(
            directory: (config.resourcesDirectory as NSString).appendingPathComponent("openapi"))
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
            let hasher = PasswordHasher(cost: config.passwordHashCost)
            let decoy = DecoyHash(hasher: hasher)
            if purpose == .server { _ = try await decoy.value() }
            let accounts = AccountService(
                users: users, sessions: sessions, tokens: tokens, throttle: LoginThrottleStore(database: database),
                hasher: hasher, policy: config.loginPolicy, logger: logger, decoyHash: decoy
            )
            let videoStore = VideoStore(database: database)
            let diaryPhotos = PhotoStore(dataDirectory: config.dataDirectory, box: box)
            let quota = StorageQuota(limit: config.userQuotaBytes, usages: [
                { try await videoStore.uploadedBytes(userID: $0) },
                { diaryPhotos.usedBytes(userID: $0) },
                { try await VisitStore.photoBytes(userID: $0, on: database.sql) },
            ])
            var core = AppCore(config: config, logger: logger, database: database, box: box, users: users, sessions: sessions,
                               tokens: tokens, accounts: accounts, openAPIDocument: openAPIDocument, quota: quota, heavyWork: HeavyWork(),
                               outbound: OutboundHTTP(allowedNetworks: config.webhookAllowedNetworks))
            #if canImport(FaceEngine)
            if purpose == .server, let models = config.faceModelsDirectory {
                let adapter = FaceEngineAdapter(engine: try FaceEngine(configuration: FaceEngineConfiguration(
                    modelsDirectory: models,
                    emotionModelPath: (config.resourcesDirectory as NSString).appendingPathComponent("models/emotion_mini_xception.onnx"))))
                core.moodEstimator = adapter
                core.faceAnalyzer = adapter
            }
            #endif
            return core
        } catch {
            await database.shutdown()
            throw error
        }
    }
}

public func makeLogger(level: Logger.Level, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) -> Logger {
    Logger(label: "hibi") { label in JSONLogHandler(label: label, level: level, write: write) }
}

/// The one builder used by `hibi serve` and by every test.
public func buildApplication(_ config: AppConfig, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    let logger = logger ?? makeLogger(level: config.logLevel)
    let core = try await AppCore.open(config, logger: logger)
    return buildApplication(core: core)
}

public func buildApplication(core: AppCore) -> some ApplicationProtocol {
    let config = core.config
    let metrics = HTTPMetrics(registry: PrometheusCollectorRegistry())
    let router = Router(context: HibiRequestContext.self)

    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    router.add(middleware: SecurityHeadersMiddleware(mapTileURL: config.mapTileURL))
    router.add(middleware: IdentityMiddleware(users: core.users, sessions: core.sessions, tokens: core.tokens,
                                              secureCookies: config.usesSecureCookies, trustedProxies: config.trustedProxies,
                                              box: core.box))
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: TokenScopeMiddleware())
    router.add(middleware: QueryGuardMiddleware())
    // Inside ErrorMiddleware: FileMiddleware serves a file when the inner router answers 404 by throwing.
    router.add(middleware: FileMiddleware(
        (config.resourcesDirectory as NSString).appendingPathComponent("web"), urlBasePath: "/static",
        cacheControl: assetCache(maxAge: 3600), logger: core.logger))
    router.add(middleware: FileMiddleware(
        (config.vendorDirectory as NSString).appendingPathComponent("web"), urlBasePath: "/vendor",
        cacheControl: assetCache(maxAge: 86400), logger: core.logger))
    router.add(middleware: CSRFMiddleware(formLimit: 64 * 1024))

    let setupState = SetupState(users: core.users)
    OperationsRoutes(database: core.database, metrics: metrics, openAPIDocument: core.openAPIDocument).register(on: router)
    AppShellRoutes(resourcesDirectory: config.resourcesDirectory).register(on: router)
    let devices = DeviceStore(database: core.database)
    // The face services are made before the account pages because the sign-in page offers face sign-in.
    let diaryLock = DiaryLock(database: core.database)
    let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool = { try await diaryLock.isUnlocked($0, now: Date()) }
    let diaryUpload = 12 * 1024 * 1024
    let faceTemplates = FaceTemplateStore(database: core.database, box: core.box)
    let faceAuth = FaceAuthService(engine: core.faceAnalyzer, templates: faceTemplates, database: core.database,
                                   throttle: LoginThrottleStore(database: core.database), policy: config.loginPolicy, logger: core.logger)
    let faceSignIn = FaceSignInRoutes(faces: faceAuth, devices: devices, sessions: core.sessions, lock: diaryLock,
                                      secureCookies: config.usesSecureCookies, sessionLifetime: config.sessionLifetime, maxUpload: diaryUpload)
    AccountWebRoutes(accounts: core.accounts, sessions: core.sessions, tokens: core.tokens, devices: devices,
                     faceSignIn: { token, context, next in try await faceSignIn.offer(deviceToken: token, context: context, next: next) },
                     setupState: setupState, secureCookies: config.usesSecureCookies, sessionLifetime: config.sessionLifetime,
                     diaryUnlocked: diaryUnlocked, gettingStarted: GettingStartedService(core: core))
        .register(on: router)
    AdminWebRoutes(accounts: core.accounts, users: core.users).register(on: router)
    let api = router.group("api/v1")
    AccountAPIRoutes(accounts: core.accounts, tokens: core.tokens, bodyLimit: config.maxRequestBodyBytes, diaryUnlocked: diaryUnlocked).register(on: api)
    let healthBackground = HealthFeature.register(core: core, router: router, api: api)

    let diaryStore = DiaryStore(database: core.database, box: core.box)
    let photos = PhotoStore(dataDirectory: config.dataDirectory, box: core.box)
    let moods = core.moodEstimator.map { BaselineMoodEstimator(estimator: $0, baselines: faceAuth.moodBaselines, jobs: faceAuth.jobs) }
    let diary = DiaryService(store: diaryStore, photos: photos, search: DiarySearchIndex(), moods: moods, logger: core.logger)
    let transfer = DiaryTransfer(store: diaryStore, photos: photos)
    DiaryWebRoutes(diary: diary, transfer: transfer, lock: diaryLock, maxUpload: diaryUpload, heavyWork: core.heavyWork).register(on: router)
    DiaryAPIRoutes(diary: diary, transfer: transfer, lock: diaryLock, maxUpload: diaryUpload, heavyWork: core.heavyWork).register(on: api)
    DiaryUnlockRoutes(lock: diaryLock, accounts: core.accounts, faces: faceTemplates, faceAvailable: core.faceAnalyzer != nil).register(on: router)
    faceSignIn.register(api: api)
    TakeoutRoutes(takeout: TakeoutService(core: core), lock: diaryLock).register(router: router, api: api)
    FaceRoutes(faces: faceAuth, lock: diaryLock, maxUpload: diaryUpload).register(on: router, api: api)

    VisitsFeature(core: core).register(router: router, api: api)
    let videoServices = VideoFeature.register(core: core, router: router, api: api)
    let backupServices = BackupFeature.register(core: core, router: router, registry: metrics.registry)

    return Application(
        router: router,
        // The idle timeout also ends a request head trickled in byte by byte: Hummingbird counts a
        // connection active only from a whole head on.
        server: .http1(configuration: .init(idleTimeout: .seconds(config.idleTimeoutSeconds))),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: "Hibi"),
        services: [DatabaseService(database: core.database), healthBackground] + videoServices + backupServices,
        logger: core.logger
    )
}

/// Static assets change only with a new release, so browsers may keep them for a while.
func assetCache(maxAge: Int) -> CacheControl {
    CacheControl([MediaType.Category.text, .application, .image, .font].map { (MediaType(type: $0), [.maxAge(maxAge)]) })
}
