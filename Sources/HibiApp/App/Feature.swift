import Hummingbird
import Logging
import ServiceLifecycle

/// The shape of every feature. A feature is built once from the platform (and the features it asks
/// things of), keeps its services as properties for the CLI and the other features, and hands the one
/// assembly (`buildApplication(core:)`) its routes and its background work. To add a feature, copy a
/// folder under `Features/`, write one of these, and add it to `Features`.
public protocol Feature: Sendable {
    /// Pages and forms (mounted at the root) and JSON endpoints (mounted under `/api/v1`).
    func routes() -> FeatureRoutes
    /// Work that runs beside the server: scans, reminders, schedules. Only `hibi serve` starts it, so a
    /// command that builds the features starts nothing.
    func backgroundServices() -> [any Service]
    /// One-off start-up work of a server (creating folders, sweeping unfinished uploads); commands skip it.
    func prepareToServe(logger: Logger) async
    /// The steps that create and change its tables, each with its version in the one global sequence
    /// (`Schema.all` merges every feature's and the platform's by version; versions are never reused).
    static var migrations: [Migration] { get }
    /// Its own settings types, each read from the environment by `AppConfig.load` beside the platform's.
    static var settings: [any FeatureSettings.Type] { get }
    /// The folders of files it keeps under the media directory, and which of them no row owns: the assembly's
    /// one `MediaOrphanSweeper` sweeps them all.
    var mediaFolders: [MediaFolder] { get }
    /// Its entry in the main navigation, if it has one (`Layout.navigation` orders them).
    static var navigation: NavEntry? { get }
    /// The pages it serves that every page's frame links to (the search box, the account menu: `SitePage`).
    static var sitePages: [(page: SitePage, path: String)] { get }
    /// Its pages in the administration section's menu (`Layout.adminNav` orders them).
    static var adminPages: [AdminPage] { get }
    /// Values it sealed under contexts that named only the row, re-sealed to their owners once at start-up
    /// (`OwnerSealing`, before any feature is built, hence static).
    static func ownerSealedValues(config: AppConfig) -> OwnerSealedValues
    /// What a person's uploads to it take, counted against their storage quota (`StorageQuota`, made before
    /// any feature is built, hence static).
    static func storageUsage(database: Database, config: AppConfig, box: SealedBoxService) -> [StorageQuota.Usage]
}

extension Feature {
    public func backgroundServices() -> [any Service] { [] }
    public func prepareToServe(logger: Logger) async {}
    public var mediaFolders: [MediaFolder] { [] }
    public static var migrations: [Migration] { [] }
    public static var settings: [any FeatureSettings.Type] { [] }
    public static var navigation: NavEntry? { nil }
    public static var sitePages: [(page: SitePage, path: String)] { [] }
    public static var adminPages: [AdminPage] { [] }
    public static func ownerSealedValues(config: AppConfig) -> OwnerSealedValues { OwnerSealedValues() }
    public static func storageUsage(database: Database, config: AppConfig, box: SealedBoxService) -> [StorageQuota.Usage] { [] }
}

/// A feature's two route collections. Route types add themselves to these with their `register` methods.
public struct FeatureRoutes {
    public let web = RouteCollection(context: HibiRequestContext.self)
    public let api = RouteCollection(context: HibiRequestContext.self)

    public init() {}

    /// Builds the collections with `body` adding route types to them.
    public static func build(_ body: (_ web: RouteCollection<HibiRequestContext>, _ api: RouteCollection<HibiRequestContext>) -> Void) -> FeatureRoutes {
        let routes = FeatureRoutes()
        body(routes.web, routes.api)
        return routes
    }
}

/// Every feature of the app, built once in `AppCore.open` and shared by the server, the CLI and the tests.
/// The order of `all` is the order routes are added in; paths never overlap, so it matters only for reading.
public struct Features: Sendable {
    public let diary: DiaryFeature
    public let health: HealthFeature
    public let visits: VisitsFeature
    public let videos: VideosFeature
    public let accounts: AccountsFeature
    public let backups: BackupFeature
    public let journal: JournalFeature

    init(platform: Platform) {
        // A TCX or FIT uploaded to the location import also becomes a workout in Health (its recorder needs only the database).
        visits = VisitsFeature(platform: platform, workouts: RouteFileWorkouts(database: platform.database))
        // After visits: a Day One entry's place becomes a visit in the signed log.
        diary = DiaryFeature(platform: platform, visits: visits.service, attempts: LoginThrottleStore(database: platform.database),
                            ratings: DayRatingStore(database: platform.database))
        // After visits: a workout route's points also go to the location history.
        health = HealthFeature(platform: platform, locations: visits.locations)
        videos = VideosFeature(platform: platform)
        // Accounts iterates what the others put in a takeout (Shared/Offers/Offers+Accounts.swift), in archive order.
        // The diary's face check and lock serve face sign-in and the takeout; its upload checks the takeout's import.
        accounts = AccountsFeature(platform: platform, faces: diary, diaryLock: diary.lock, takeoutOffers: [diary, health, visits, videos],
                                   uploads: diary.transfer, takeoutVideoFiles: { [videos] in try await videos.takeoutFiles(userID: $0) })
        // Backup names the visits log's signing key in its manifest (Shared/Offers/Offers+Backup.swift).
        backups = BackupFeature(platform: platform, signingKey: VisitsSigningKey())
        // Journal iterates what the others offer it (Shared/Offers/Offers+Journal.swift), in the order shown.
        journal = JournalFeature(platform: platform, setupState: SetupState(users: platform.users), diaryLock: diary.lock,
                                 searches: [diary, visits, videos, health], gettingStarted: [diary, health, visits, videos],
                                 dayPages: [diary, health, visits, videos], overviews: [diary, health, visits, videos], shareCards: HealthShareCards())
    }

    public var all: [any Feature] { [accounts, diary, health, visits, videos, backups, journal] }

    /// The features' types, in the order of `all`, for what they declare before they are built.
    public static let types: [any Feature.Type] = [AccountsFeature.self, DiaryFeature.self, HealthFeature.self, VisitsFeature.self,
                                                   VideosFeature.self, BackupFeature.self, JournalFeature.self]

    /// Every feature's media folders, for the one orphan sweep.
    public var mediaFolders: [MediaFolder] { all.flatMap(\.mediaFolders) }
}

extension AppConfig {
    /// The configuration from the environment (a flag wins over the environment, which wins over defaults): the
    /// platform's settings, then every feature's own (`Feature.settings`), in the order of `Features.types`.
    public static func load(environment: [String: String], overrides: Overrides = .init()) throws(ConfigError) -> AppConfig {
        var config = try loadPlatform(environment: environment, overrides: overrides)
        for settings in Features.types.flatMap({ $0.settings }) {
            try settings.load(environment: environment, into: &config)
        }
        return config
    }
}

extension Schema {
    /// Every migration, the platform's and each feature's, in version order: the one sequence a database
    /// follows (a step's version, not its place in a list, decides when it runs).
    public static var all: [Migration] {
        (platform + Features.types.flatMap { $0.migrations }).sorted { $0.version < $1.version }
    }
}
