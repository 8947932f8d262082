import Foundation
import Hummingbird
import ServiceLifecycle

/// Whole-instance backups: the service `hibi backup` runs, the admin page, and the schedule when
/// HIBI_BACKUP_DIR is set.
public struct BackupFeature: Feature {
    public let service: BackupService
    let runs: BackupRunStore
    let now: BackupNow
    let platform: Platform

    init(platform: Platform, signingKey: any BackupSigningKey) {
        self.platform = platform
        runs = BackupRunStore(database: platform.database)
        service = BackupService(database: platform.database, dataDirectory: platform.config.dataDirectory,
                                mediaDirectory: platform.config.mediaDirectory, box: platform.box, logger: platform.logger,
                                signingKey: signingKey)
        now = BackupNow(settings: platform.config.backups, dataDirectory: platform.config.dataDirectory, runs: runs, backup: service,
                        logger: platform.logger, clock: platform.clock)
    }

    public func routes() -> FeatureRoutes {
        .build { web, _ in BackupAdminRoutes(runs: runs, settings: platform.config.backups, now: now).register(on: web.admin()) }
    }

    public func backgroundServices() -> [any Service] {
        guard platform.config.backups.directory != nil else { return [] }
        let scheduler = BackupScheduler(settings: platform.config.backups, runs: runs, backup: service, logger: platform.logger, clock: platform.clock)
        return [BackupSchedulerService(scheduler: scheduler, runs: runs, registry: platform.metrics, logger: platform.logger, clock: platform.clock)]
    }
}

extension BackupFeature {
    /// The record of backup runs (and, before leases were shared, the lease table: `JobLeases`).
    public static var migrations: [Migration] { [BackupSchema.migration] }
    /// `HIBI_BACKUP_DIR`, `HIBI_BACKUP_EVERY`, `HIBI_BACKUP_KEEP`.
    public static var settings: [any FeatureSettings.Type] { [BackupSettings.self] }

    public static var adminPages: [AdminPage] {
        [AdminPage(order: 20, path: BackupPaths.admin, title: BackupStrings.title, linkID: "admin-backups-link")]
    }
}
