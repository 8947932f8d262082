import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

public func makeLogger(level: Logger.Level, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) -> Logger {
    Logger(label: "hibi") { label in JSONLogHandler(label: label, level: level, write: write) }
}

/// The one builder used by `hibi serve` and by every test.
public func buildApplication(_ config: AppConfig, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    let logger = logger ?? makeLogger(level: config.logLevel)
    let core = try await AppCore.open(config, logger: logger)
    return await buildApplication(core: core)
}

/// The one assembly: the shared middleware, then every feature's routes and background work.
public func buildApplication(core: AppCore) async -> some ApplicationProtocol {
    let config = core.config
    let metrics = HTTPMetrics(registry: core.metrics)
    let router = Router(context: HibiRequestContext.self)

    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    router.add(middleware: SecurityHeadersMiddleware(mapTiles: core.mapTiles))
    router.add(middleware: IdentityMiddleware(identities: AccountIdentities(sessions: core.sessions, tokens: core.tokens),
                                              secureCookies: config.usesSecureCookies, trustedProxies: config.trustedProxies,
                                              box: core.box, clock: core.clock))
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
    router.add(middleware: CSRFMiddleware(formLimit: 64 * 1024, box: core.box))

    OperationsRoutes(database: core.database, metrics: metrics, openAPIDocument: core.openAPIDocument, metricsToken: config.metricsToken).register(on: router)
    AppShellRoutes(resourcesDirectory: config.resourcesDirectory).register(on: router)
    // One hourly sweep of media files no row owns, over every feature's folders (claimed by one instance).
    var services: [any Service] = [
        DatabaseService(database: core.database),
        MediaOrphanSweepService(sweeper: MediaOrphanSweeper(database: core.database, mediaDirectory: config.mediaDirectory,
                                                            leases: JobLeases(database: core.database, holder: core.instanceID, clock: core.clock),
                                                            folders: core.features.mediaFolders, logger: core.logger),
                                clock: core.clock),
    ]
    for feature in core.features.all {
        let routes = feature.routes()
        router.addRoutes(routes.web)
        router.addRoutes(routes.api, atPath: RouterPath(APIPaths.root))
        await feature.prepareToServe(logger: core.logger)
        services += feature.backgroundServices()
    }

    // Shared by every connection: how many each client address holds open (issue 28 item 8).
    let connections = ConnectionCounter(limit: config.connectionLimits.perClient)
    let limits = config.connectionLimits, trustedProxies = config.trustedProxies
    return Application(
        router: router,
        // The idle timeout also ends a request head trickled in byte by byte: Hummingbird counts a
        // connection active only from a whole head on. A body trickled in is the guard's to end.
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionGuardHandler(limits: limits, counter: connections, trustedProxies: trustedProxies)],
            idleTimeout: .seconds(config.idleTimeoutSeconds))),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: "Hibi"),
        services: services,
        logger: core.logger
    )
}

/// Static assets change only with a new release, so browsers may keep them for a while.
func assetCache(maxAge: Int) -> CacheControl {
    CacheControl([MediaType.Category.text, .application, .image, .font].map { (MediaType(type: $0), [.maxAge(maxAge)]) })
}
