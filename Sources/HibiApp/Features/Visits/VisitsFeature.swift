import Foundation
import Hummingbird

/// Visits: a check-in log, signed and hash-chained so tampering shows; map, GeoJSON and GPX.
public struct VisitsFeature: Feature {
    public let service: VisitService
    public let signer: VisitSigner
    /// Location history: raw points, detected stays, live location from phones.
    public let locations: LocationService
    let platform: Platform

    init(platform: Platform, workouts: (any WorkoutRecorder)? = nil) {
        self.platform = platform
        signer = VisitSigner(database: platform.database, box: platform.box, dataDirectory: platform.config.dataDirectory, logger: platform.logger)
        service = VisitService(database: platform.database, box: platform.box, signer: signer,
                               webhook: ChainHeadWebhook(outbound: platform.outbound), logger: platform.logger)
        locations = LocationService(database: platform.database, visits: service, logger: platform.logger, workouts: workouts)
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            VisitWebRoutes(visits: service, signer: signer, tiles: platform.mapTiles).register(on: web.signedIn())
            LocationWebRoutes(locations: locations, publicURL: platform.config.publicURL).register(on: web.signedIn())
            SavedPlaceWebRoutes(visits: service).register(on: web.signedIn())
            VisitAPIRoutes(visits: service, locations: locations, bodyLimit: platform.config.maxRequestBodyBytes, heavyWork: platform.heavyWork).register(on: api.signedIn())
            LocationAPIRoutes(locations: locations, tokens: platform.tokens, heavyWork: platform.heavyWork).register(on: api, signedIn: api.signedIn())
            SavedPlaceAPIRoutes(visits: service).register(on: api.signedIn())
        }
    }

    /// The verify sentence in English, for the command line.
    public static func message(_ report: ChainReport) -> String {
        VisitStrings.verifyMessage(report, language: .en)
    }

    /// What a location import did, in English, for the command line.
    public static func importSummary(_ result: LocationImportResult) -> [String] {
        LocationStrings.summary(result, .en)
    }
}

extension VisitsFeature {
    /// The signed visit log, the location history and saved places.
    public static var migrations: [Migration] {
        [VisitsSchema.migration, VisitsSchema.acknowledgedHead, LocationSchema.migration, SavedPlaceSchema.migration]
    }

    public static func storageUsage(database: Database, config: AppConfig, box: SealedBoxService) -> [StorageQuota.Usage] {
        [{ try await VisitStore.photoBytes(userID: $0, on: database.sql) }]
    }

    public static var navigation: NavEntry? { NavEntry(order: 40, item: NavItem(path: VisitPaths.list, title: CommonStrings.visits, icon: "📍")) }

    public static func ownerSealedValues(config: AppConfig) -> OwnerSealedValues {
        OwnerSealedValues(columns: [.init(table: "visit_photos", column: "data", context: { VisitService.photoContext(userID: $0, $1) },
                                          legacy: VisitService.legacyPhotoContext)])
    }
}
