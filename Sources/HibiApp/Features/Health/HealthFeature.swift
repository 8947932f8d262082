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

    init(platform: Platform, locations: (any LocationHistory)? = nil) {
        self.platform = platform
        service = HealthService(database: platform.database, box: platform.box, outbound: platform.outbound,
                                mediaDirectory: platform.config.mediaDirectory, logger: platform.logger)
        importer = AppleHealthImporter(health: service, locations: locations, logger: platform.logger)
        let launcher = HealthImportLauncher(importer: importer, leases: JobLeases(database: platform.database, holder: platform.instanceID, clock: platform.clock),
                                            logger: platform.logger)
        self.launcher = launcher
        let autoExportDirectory = (platform.config.dataDirectory as NSString).appendingPathComponent("health-auto-export")
        // Spools a crash left behind: no request is in flight before the server starts.
        try? FileManager.default.removeItem(atPath: autoExportDirectory)
        uploads = HealthUploads(directory: (platform.config.mediaDirectory as NSString).appendingPathComponent("health-imports"),
                                importer: importer, launcher: launcher, limit: 8 << 30,
                                autoExportDirectory: autoExportDirectory, autoExportLimit: platform.config.healthAutoExportMaxBytes)
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
                                 users: platform.users, launcher: launcher, logger: platform.logger, clock: platform.clock)]
    }
}

extension HealthFeature {
    /// Records, imports and their attempts, goals, workouts with routes and reports, heart-rate variability.
    public static var migrations: [Migration] {
        [HealthSchema.migration, HealthSchema.dropRedundantIndex, HealthSchema.importAttempts, HealthSchema.goalsWithoutDeadline,
         HealthSchema.workoutsAndReports, HealthSchema.heartRateVariability]
    }

    /// Upload spools (health-imports/<uuid>.upload, owned by a job still to run) and electrocardiograms kept as files
    /// (health-ecg/<user>/<name>.csv, owned by their person's row).
    public var mediaFolders: [MediaFolder] {
        [MediaFolder("health-imports", depth: 1) { files, sql in
            var orphans: [String] = []
            for file in files {
                let select = "SELECT id FROM health_import_jobs WHERE state IN ('queued', 'running') AND upload_path = "
                if try await !MediaFolder.exists(select, file.path, on: sql) { orphans.append(file.path) }
            }
            return orphans
        },
         MediaFolder("health-ecg", depth: 2, removesEmptiedFolders: true) { files, sql in
            var owners: [String: Bool] = [:]
            var orphans: [String] = []
            for file in files {
                let userID = ((file.path as NSString).deletingLastPathComponent as NSString).lastPathComponent
                if owners[userID] == nil { owners[userID] = try await MediaFolder.exists("SELECT id FROM users WHERE id = ", userID, on: sql) }
                if owners[userID] == false { orphans.append(file.path) }
            }
            return orphans
        }]
    }

    public static var navigation: NavEntry? { NavEntry(order: 30, item: NavItem(path: HealthPaths.overview, title: CommonStrings.health, icon: "♥")) }
}
