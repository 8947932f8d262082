import Foundation
import Hummingbird
import ServiceLifecycle

/// Health records: manual entry, Apple Health imports, goals, badges, trends, reminders, share cards.
public struct HealthFeature: Feature {
    public let service: HealthService
    public let importer: AppleHealthImporter
    let uploads: HealthUploads
    let launcher: HealthImportLauncher
    let platform: Platform

    init(platform: Platform, locations: LocationService? = nil) {
        self.platform = platform
        service = HealthService(database: platform.database, box: platform.box, outbound: platform.outbound,
                                mediaDirectory: platform.config.mediaDirectory, logger: platform.logger)
        importer = AppleHealthImporter(health: service, locations: locations, logger: platform.logger)
        let launcher = HealthImportLauncher(importer: importer, leases: JobLeases(database: platform.database, holder: platform.instanceID),
                                            logger: platform.logger)
        self.launcher = launcher
        uploads = HealthUploads(directory: (platform.config.mediaDirectory as NSString).appendingPathComponent("health-imports"),
                                importer: importer, launcher: launcher, limit: 8 << 30)
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            HealthAPIRoutes(health: service, importer: importer, uploads: uploads, bodyLimit: platform.config.maxRequestBodyBytes).register(on: api.signedIn())
            HealthWebRoutes(health: service, renderer: ShareCardRenderer()).register(on: web.signedIn())
            HealthWorkoutAPIRoutes(health: service).register(on: api.signedIn())
        }
    }

    public func backgroundServices() -> [any Service] {
        [HealthBackgroundService(health: service, importer: importer,
                                 sender: ReminderSender(reminders: service.reminders, outbound: platform.outbound, logger: platform.logger),
                                 users: platform.users, launcher: launcher, logger: platform.logger)]
    }
}
