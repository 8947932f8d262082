import Foundation
import Hummingbird
import ServiceLifecycle

/// The diary: entries with photos and moods, its lock, and the face templates that open it.
/// Accounts asks `faces` and `lock` for face sign-in; the takeout asks `transfer`.
public struct DiaryFeature: Feature {
    public let service: DiaryService
    public let transfer: DiaryTransfer
    /// Every format the diary imports (Hibi's own export goes on to `transfer`).
    public let imports: DiaryForeignImport
    public let details: DiaryDetailsStore
    /// Imports that outlive their request: progress, and a resume after a restart.
    public let importJobs: DiaryImportJobStore
    let runner: DiaryImportRunner
    public let lock: DiaryLock
    public let faces: FaceAuthService
    let accounts: any PasswordCheck
    let heavyWork: HeavyWork
    /// Photos and face frames arrive as JSON with base64 or as multipart; 12 MB covers a phone photo.
    static let maxUpload = 12 * 1024 * 1024
    /// An entry's save carries up to `DiaryRules.maxPhotosPerEntry` photos: room for about six phone
    /// photos (base64 in JSON adds a third), read into memory once per save.
    static let maxEntryUpload = 64 * 1024 * 1024

    init(platform: Platform, visits: (any PlaceRecorder)?, attempts: any LoginAttempts, ratings: any DayRatings) {
        lock = DiaryLock(database: platform.database, sessions: platform.sessions)
        let templates = FaceTemplateStore(database: platform.database, box: platform.box)
        faces = FaceAuthService(engine: platform.faceAnalyzer, templates: templates, database: platform.database,
                                throttle: attempts, policy: platform.config.loginPolicy,
                                logger: platform.logger, clock: platform.clock)
        let store = DiaryStore(database: platform.database, box: platform.box)
        let photos = PhotoStore(dataDirectory: platform.config.mediaDirectory, box: platform.box)
        let moods = platform.moodEstimator.map { [faces] in BaselineMoodEstimator(estimator: $0, baselines: faces.moodBaselines, jobs: faces.jobs) }
        service = DiaryService(store: store, photos: photos, search: DiarySearchIndex(), moods: moods, logger: platform.logger,
                               thumbnails: PhotoThumbnails(photos: photos, ffmpegPath: platform.config.videos.ffmpegPath, database: platform.database))
        transfer = DiaryTransfer(store: store, photos: photos)
        details = DiaryDetailsStore(database: platform.database, box: platform.box)
        imports = DiaryForeignImport(transfer: transfer, store: store, photos: photos, details: details,
                                     ratings: ratings, visits: visits, box: platform.box)
        importJobs = DiaryImportJobStore(database: platform.database, box: platform.box)
        runner = DiaryImportRunner(imports: imports, jobs: importJobs, leases: JobLeases(database: platform.database, holder: platform.instanceID, clock: platform.clock),
                                   users: platform.users, logger: platform.logger,
                                   directory: (platform.config.mediaDirectory as NSString).appendingPathComponent("diary-imports"), clock: platform.clock)
        accounts = platform.accounts
        heavyWork = platform.heavyWork
    }

    public func backgroundServices() -> [any Service] {
        [DiaryImportBackgroundService(runner: runner)]
    }

    public func routes() -> FeatureRoutes {
        .build { web, api in
            // The lock is checked once per group, by its middleware; the handlers get an opened diary's user.
            let diaryWeb = web.diary(lock), diaryAPI = api.diary(lock)
            DiaryWebRoutes(diary: service, transfer: transfer, imports: imports, runner: runner, maxUpload: Self.maxEntryUpload,
                           heavyWork: heavyWork).register(on: diaryWeb)
            DiaryAPIRoutes(diary: service, transfer: transfer, imports: imports, runner: runner, maxUpload: Self.maxUpload,
                           maxEntryUpload: Self.maxEntryUpload, heavyWork: heavyWork).register(on: diaryAPI)
            DiaryUnlockRoutes(lock: lock, accounts: accounts, faces: faces.templates, faceAvailable: faces.engine != nil).register(on: web.signedIn())
            FaceRoutes(faces: faces, lock: lock, maxUpload: Self.maxUpload).register(web: diaryWeb, api: diaryAPI, signedInAPI: api.signedIn())
        }
    }
}

extension DiaryFeature {
    /// Entries, faces and their liveness, photos, entry details and import jobs.
    public static var migrations: [Migration] {
        [DiarySchema.migration, DiarySchema.indexes, FaceLivenessSchema.migration, DiaryPhotoSchema.migration,
         DiaryDetailsSchema.migration, DiaryPhotoSchema.thumbnailFailures, DiaryImportJobSchema.migration]
    }

    public static func storageUsage(database: Database, config: AppConfig, box: SealedBoxService) -> [StorageQuota.Usage] {
        let photos = PhotoStore(dataDirectory: config.mediaDirectory, box: box)
        return [{ photos.usedBytes(userID: $0) }]
    }

    /// Photos and their thumbnails: diary-photos/<user>/<photo>.sealed and <photo>.thumb.sealed, owned by the photo's row.
    public var mediaFolders: [MediaFolder] {
        [MediaFolder("diary-photos", depth: 2) { files, sql in
            var orphans: [String] = []
            for file in files where file.name.hasSuffix(".sealed") {
                let stem = String(file.name.dropLast(".sealed".count))
                let photoID = stem.hasSuffix(".thumb") ? String(stem.dropLast(".thumb".count)) : stem
                if try await !MediaFolder.exists("SELECT id FROM diary_photos WHERE id = ", photoID, on: sql) { orphans.append(file.path) }
            }
            return orphans
        }]
    }

    public static var navigation: NavEntry? { NavEntry(order: 20, item: NavItem(path: DiaryPaths.list, title: CommonStrings.diary, icon: "📔")) }

    /// Entry text, face templates and photo files; liveness challenges (minutes long) simply end.
    public static func ownerSealedValues(config: AppConfig) -> OwnerSealedValues {
        OwnerSealedValues(
            columns: [
                .init(table: "diary_entries", column: "text_sealed", context: { DiaryStore.textContext(userID: $0, $1) }, legacy: DiaryStore.legacyTextContext),
                .init(table: "face_templates", column: "embedding_sealed", context: { FaceTemplateStore.context(userID: $0, $1) },
                      legacy: FaceTemplateStore.legacyContext),
            ],
            emptiedTables: ["face_liveness_challenges"],
            files: { box in try PhotoStore(dataDirectory: config.mediaDirectory, box: box).resealToOwners() })
    }
}
