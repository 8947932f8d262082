import Foundation
import Hummingbird

/// Wires the health feature into the application: one call from `buildApplication(core:)`.
enum HealthFeature {
    static func register(core: AppCore, router: Router<HibiRequestContext>, api: RouterGroup<HibiRequestContext>) -> HealthBackgroundService {
        let health = HealthService(database: core.database, box: core.box, outbound: core.outbound, logger: core.logger)
        let importer = AppleHealthImporter(health: health, logger: core.logger)
        let launcher = HealthImportLauncher(importer: importer, leases: JobLeases(database: core.database, holder: core.instanceID), logger: core.logger)
        let uploads = HealthUploads(directory: (core.config.mediaDirectory as NSString).appendingPathComponent("health-imports"),
                                    importer: importer, launcher: launcher, limit: 8 << 30)
        HealthAPIRoutes(health: health, importer: importer, uploads: uploads, bodyLimit: core.config.maxRequestBodyBytes).register(on: api)
        HealthWebRoutes(health: health, renderer: ShareCardRenderer()).register(on: router)
        return HealthBackgroundService(health: health, importer: importer, sender: ReminderSender(reminders: health.reminders, outbound: core.outbound, logger: core.logger),
                                       users: core.users, launcher: launcher, logger: core.logger)
    }
}
