import Crypto
import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Two "instances" (two AppCores, each with its own data directory and the same data key) on one
/// database: a file SQLite database, or a fresh PostgreSQL database when HIBI_TEST_POSTGRES_URL is set.
enum TwoInstances {
    static let masterKey = Data((0..<32).map { UInt8(($0 * 7 + 3) % 256) }).base64EncodedString()

    static func configs() async throws -> (AppConfig, AppConfig) {
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-instances-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let location: DatabaseLocation
        if let server = TestApp.postgresURL {
            location = .postgres(url: try await TestApp.freshPostgresDatabase(serverURL: server))
        } else {
            // In-memory SQLite is one per connection pool; a file is what two instances can share.
            location = .sqliteFile(path: (shared as NSString).appendingPathComponent("hibi.sqlite"))
        }
        var a = try await TestApp.config(dataDirectory: (shared as NSString).appendingPathComponent("a"), database: location)
        var b = try await TestApp.config(dataDirectory: (shared as NSString).appendingPathComponent("b"), database: location)
        a.masterKey = masterKey
        b.masterKey = masterKey
        let media = (shared as NSString).appendingPathComponent("media")
        a.mediaDirectoryOverride = media
        b.mediaDirectoryOverride = media
        return (a, b)
    }

    /// Opens both at the same moment (migrations and key creation race), runs `body`, and shuts both down
    /// whatever happens.
    static func run(_ body: (AppCore, AppCore) async throws -> Void) async throws {
        let (configA, configB) = try await configs()
        async let openA = AppCore.open(configA, logger: TestApp.quietLogger, for: .command)
        async let openB = AppCore.open(configB, logger: TestApp.quietLogger, for: .command)
        let a: AppCore, b: AppCore
        do { a = try await openA } catch { if let b = try? await openB { await b.database.shutdown() }; throw error }
        do { b = try await openB } catch { await a.database.shutdown(); throw error }
        do {
            try await body(a, b)
        } catch {
            await a.database.shutdown()
            await b.database.shutdown()
            throw error
        }
        await a.database.shutdown()
        await b.database.shutdown()
    }

    static func signer(_ core: AppCore) -> VisitSigner {
        VisitSigner(database: core.database, box: core.box, dataDirectory: core.config.dataDirectory)
    }

    static func visits(_ core: AppCore) -> VisitService {
        VisitService(database: core.database, box: core.box, signer: signer(core), logger: TestApp.quietLogger)
    }

    static func fields(_ name: String) -> VisitFields {
        VisitFields(visitedAt: Date(timeIntervalSince1970: 1_700_000_000), latitude: 35.68, longitude: 139.76, accuracy: nil, altitude: nil,
                    simulated: false, name: name)
    }
}

@Suite struct InstancesTests {
    @Test func bothInstancesStartedAtOnceShareOneSigningKeyAndVisitsWrittenAlternatelyVerifyFromBoth() async throws {
        try await TwoInstances.run { a, b in
            // Both make the key at the same moment: one row wins and both sign with it.
            async let keyA = TwoInstances.signer(a).publicKeyBase64()
            async let keyB = TwoInstances.signer(b).publicKeyBase64()
            let (publicA, publicB) = try await (keyA, keyB)
            #expect(publicA == publicB)
            let rows = try await a.database.sql.raw("SELECT COUNT(*) AS n FROM instance_secrets").first()?.decode(column: "n", as: Int.self)
            #expect(rows == 1)
            // No key file in either data directory: the database holds the only copy, sealed.
            for core in [a, b] {
                #expect(!FileManager.default.fileExists(atPath: (core.config.dataDirectory as NSString).appendingPathComponent(VisitSigner.fileName)))
            }
            let sealed = try #require(try await a.database.sql.raw("SELECT sealed FROM instance_secrets").first()?.decode(column: "sealed", as: Data.self))
            let raw = try await TwoInstances.signer(a).signingKey().rawRepresentation
            #expect(sealed.range(of: raw) == nil)

            let user = try await a.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                       language: nil, now: Date())
            let services = [TwoInstances.visits(a), TwoInstances.visits(b)]
            for index in 0..<6 {
                _ = try await services[index % 2].create(userID: user.id, fields: TwoInstances.fields("visit \(index)"), now: Date())
            }
            for service in services {
                let report = try await service.verify(userID: user.id, allSignatures: true)
                #expect(report.intact)
                #expect(report.problem == nil)
            }
        }
    }

    @Test func anExistingKeyFileIsMovedIntoTheDatabaseAndOldChainsKeepVerifying() async throws {
        let (config, _) = try await TwoInstances.configs()
        try FileManager.default.createDirectory(atPath: config.dataDirectory, withIntermediateDirectories: true)
        let legacy = Curve25519.Signing.PrivateKey()
        let path = (config.dataDirectory as NSString).appendingPathComponent(VisitSigner.fileName)
        try Data((legacy.rawRepresentation.base64EncodedString() + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, for: .command)
        do {
            let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            _ = try await TwoInstances.visits(core).create(userID: user.id, fields: TwoInstances.fields("before"), now: Date())
            #expect(!FileManager.default.fileExists(atPath: path))
            // A new signer (a restarted or second instance) reads the same key from the database.
            let again = TwoInstances.visits(core)
            #expect(try await again.signer.publicKeyBase64() == legacy.publicKey.rawRepresentation.base64EncodedString())
            _ = try await again.create(userID: user.id, fields: TwoInstances.fields("after"), now: Date())
            #expect(try await again.verify(userID: user.id, allSignatures: true).intact)
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()
    }

    @Test func aWrongDataKeyCannotOpenTheStoredSigningKey() async throws {
        try await TwoInstances.run { a, _ in
            _ = try await TwoInstances.signer(a).signingKey()
            let other = SealedBoxService(key: SymmetricKey(size: .bits256))
            await #expect(throws: EncryptionError.wrongKey) {
                _ = try await VisitSigner(database: a.database, box: other, dataDirectory: a.config.dataDirectory).signingKey()
            }
        }
    }

    @Test func oneOfTwoRacingInstancesGetsALeaseAndTheOtherTakesItOverOnceExpired() async throws {
        try await TwoInstances.run { a, b in
            let leaseA = JobLeases(database: a.database, holder: a.instanceID)
            let leaseB = JobLeases(database: b.database, holder: b.instanceID)
            for round in 0..<5 {
                let name = "race-\(round)"
                async let gotA = leaseA.claim(name, lease: 60)
                async let gotB = leaseB.claim(name, lease: 60)
                let (x, y) = try await (gotA, gotB)
                #expect(x != y, "exactly one instance holds \(name)")
            }
            // A holder that stopped renewing (killed): the lease runs out and the other instance takes over.
            let now = Date()
            #expect(try await leaseA.claim("job", now: now, lease: 5))
            #expect(try await leaseB.claim("job", now: now + 2, lease: 5) == false)
            #expect(try await leaseB.claim("job", now: now + 7, lease: 5))
            // The old holder notices at its next heartbeat.
            #expect(try await leaseA.renew("job", now: now + 8, lease: 5) == false)
            #expect(try await leaseB.renew("job", now: now + 8, lease: 5))
            try await leaseB.release("job")
            #expect(try await leaseA.claim("job", now: now + 9, lease: 5))
        }
    }

    @Test func workUnderALeaseRunsOnceWhileTheHeartbeatKeepsItAlive() async throws {
        try await TwoInstances.run { a, b in
            let leaseA = JobLeases(database: a.database, holder: a.instanceID)
            let leaseB = JobLeases(database: b.database, holder: b.instanceID)
            let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
            // A lease of 1 s renewed every third of it: held for 3 s of work, longer than the lease itself.
            let first = Task {
                try await leaseA.run("long", lease: 1) {
                    startedContinuation.yield()
                    try await Task.sleep(for: .seconds(3))
                    return "a"
                }
            }
            for await _ in started { break }
            try await Task.sleep(for: .seconds(2))
            #expect(try await leaseB.run("long", lease: 1) { "b" } == nil)
            #expect(try await first.value == "a")
            // Released when done: the other instance gets it at once.
            #expect(try await leaseB.run("long", lease: 1) { "b" } == "b")
        }
    }

    @Test func migrationsRunOnceWhenTwoInstancesStartOnAnEmptyDatabase() async throws {
        try await TwoInstances.run { a, _ in
            let versions = try await a.database.sql.raw("SELECT version FROM hibi_schema").all().map { try $0.decode(column: "version", as: Int.self) }
            #expect(versions.count == Set(versions).count)
            #expect(Set(versions) == Set(Schema.all.map(\.version)))
        }
    }

    @Test func onlyTheInstanceHoldingAnInterruptedImportResumesIt() async throws {
        try await TwoInstances.run { a, b in
            let time = TestTime()
            let (serviceA, serviceB, user, job) = try await Self.interruptedImport(a, b, clock: time.clock)
            #expect(await serviceB.resumeInterrupted().isEmpty, "B leaves a job whose holder's lease is still live")
            #expect(await serviceA.resumeInterrupted().isEmpty, "A does not start a second run of a job it holds")
            time.advance(3)
            async let launchedA = serviceA.resumeInterrupted()
            async let launchedB = serviceB.resumeInterrupted()
            let launched = await launchedA + launchedB
            #expect(launched == [job.id], "exactly one instance resumes it")
            var finished: ImportJob?
            for _ in 0..<100 {
                finished = try await serviceB.health.jobs.find(id: job.id, userID: user.id)
                if finished?.state == .done { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(finished?.state == .done, "\(finished?.errorMessage?.en ?? "no error recorded")")
            #expect(finished?.inserted == 3)
            let count = try await b.database.sql.raw("SELECT COUNT(*) AS n FROM health_records").first()?.decode(column: "n", as: Int.self)
            #expect(count == 3)
        }
    }

    /// Seen under load: B listed the job, A resumed and finished it (upload removed, lease released), then B
    /// claimed the free lease and marked the finished job failed, "the uploaded file is gone".
    @Test func anImportFinishedByOneInstanceIsNotFailedByAnotherThatListedItBefore() async throws {
        try await TwoInstances.run { a, b in
            let time = TestTime()
            let (serviceA, serviceB, user, job) = try await Self.interruptedImport(a, b, clock: time.clock)
            let listedByB = try await serviceB.health.jobs.interruptedUploads()
            #expect(listedByB.map(\.id) == [job.id])
            time.advance(3)
            #expect(await serviceA.resumeInterrupted() == [job.id])
            var finished: ImportJob?
            for _ in 0..<200 {
                finished = try await serviceA.health.jobs.find(id: job.id, userID: user.id)
                if finished?.state == .done, try await serviceA.launcher.leases.isHeld(HealthImportLauncher.leaseName(uploadPath: job.uploadPath ?? "")) == false { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(finished?.state == .done)
            #expect(await serviceB.resume(listedByB).isEmpty)
            let after = try await serviceB.health.jobs.find(id: job.id, userID: user.id)
            #expect(after?.state == .done, "\(after?.errorMessage?.en ?? "")")
        }
    }

    /// Instance A took an upload, started its import and died: its 2-second lease is left to run out on
    /// `clock`, which both instances' leases read (the test moves it rather than sleeping).
    static func interruptedImport(_ a: AppCore, _ b: AppCore, clock: WallClock) async throws
        -> (HealthBackgroundService, HealthBackgroundService, User, ImportJob) {
        let user = try await a.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                   language: nil, now: Date())
        func background(_ core: AppCore) -> HealthBackgroundService {
            let health = HealthService(database: core.database, box: core.box, logger: TestApp.quietLogger)
            let importer = AppleHealthImporter(health: health, logger: TestApp.quietLogger)
            var launcher = HealthImportLauncher(importer: importer, leases: JobLeases(database: core.database, holder: core.instanceID, clock: clock),
                                                logger: TestApp.quietLogger)
            launcher.lease = 2
            return HealthBackgroundService(health: health, importer: importer,
                                           sender: ReminderSender(reminders: health.reminders, logger: TestApp.quietLogger),
                                           users: core.users, launcher: launcher, logger: TestApp.quietLogger)
        }
        let serviceA = background(a), serviceB = background(b)
        let media = (a.config.mediaDirectory as NSString).appendingPathComponent("health-imports")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let path = (media as NSString).appendingPathComponent("\(UUID().uuidString).upload")
        try Data(Self.export.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await serviceA.launcher.leases.claim(HealthImportLauncher.leaseName(uploadPath: path), lease: 2))
        let job = try await serviceA.importer.prepare(path: path, fileName: "export.xml", user: user, uploadPath: path, now: Date())
        try await serviceA.health.jobs.startAttempt(job.id)
        return (serviceA, serviceB, user, job)
    }

    @Test func aDiaryEditThroughOneInstanceIsFoundBySearchOnTheOtherInTheSameSecond() async throws {
        try await TwoInstances.run { a, b in
            let user = try await a.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                       language: nil, now: Date())
            func diary(_ core: AppCore) -> DiaryService {
                DiaryService(store: DiaryStore(database: core.database, box: core.box), photos: PhotoStore(dataDirectory: core.config.mediaDirectory, box: core.box),
                             search: DiarySearchIndex(), moods: nil, logger: TestApp.quietLogger)
            }
            let diaryA = diary(a), diaryB = diary(b)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let page = PageRequest(page: 1, perPage: 20)
            let entry = try await diaryA.create(userID: user.id, draft: .init(date: now, text: "a kingfisher by the river", tags: [], confirmedMood: nil, photo: nil), now: now)
            // B builds its index, then the entry is edited through A with the very same clock second.
            #expect(try await diaryB.list(userID: user.id, query: "kingfisher", filter: .init(), paging: page).total == 1)
            _ = try await diaryA.update(userID: user.id, id: entry.id, change: .init(text: "a heron by the river"), now: now)
            #expect(try await diaryB.list(userID: user.id, query: "kingfisher", filter: .init(), paging: page).total == 0)
            #expect(try await diaryB.list(userID: user.id, query: "heron", filter: .init(), paging: page).total == 1)
            // A delete through B is seen by A's index too.
            #expect(try await diaryA.list(userID: user.id, query: "heron", filter: .init(), paging: page).total == 1)
            try await diaryB.delete(userID: user.id, id: entry.id)
            #expect(try await diaryA.list(userID: user.id, query: "heron", filter: .init(), paging: page).total == 0)
        }
    }

    @Test func orphanMediaFilesAreSweptByOneInstanceAndOwnedOrYoungFilesStay() async throws {
        try await TwoInstances.run { a, b in
            let user = try await a.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                       language: nil, now: Date())
            let photos = PhotoStore(dataDirectory: a.config.mediaDirectory, box: a.box)
            let diary = DiaryService(store: DiaryStore(database: a.database, box: a.box), photos: photos, search: DiarySearchIndex(), moods: nil,
                                     logger: TestApp.quietLogger)
            let owned = try await diary.create(userID: user.id, draft: .init(date: Date(), text: "kept", tags: [], confirmedMood: nil, photo: TestImages.png), now: Date())
            let media = a.config.mediaDirectory as NSString
            let ownedPhoto = try #require(owned.photos.first)
            let ownedPath = try #require(photos.path(userID: user.id, photoID: ownedPhoto.id))
            let orphanPhoto = try #require(photos.path(userID: user.id, photoID: UUID().uuidString.lowercased()))
            let youngPhoto = try #require(photos.path(userID: user.id, photoID: UUID().uuidString.lowercased()))
            let thumbs = media.appendingPathComponent("videos/thumbs")
            try FileManager.default.createDirectory(atPath: thumbs, withIntermediateDirectories: true)
            let orphanThumb = (thumbs as NSString).appendingPathComponent(UUID().uuidString.lowercased() + ".jpg")
            let spools = media.appendingPathComponent("health-imports")
            try FileManager.default.createDirectory(atPath: spools, withIntermediateDirectories: true)
            let orphanSpool = (spools as NSString).appendingPathComponent(UUID().uuidString + ".upload")
            for path in [orphanPhoto, youngPhoto, orphanThumb, orphanSpool] {
                #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
            }
            let old = Date().addingTimeInterval(-2 * 3600)
            for path in [ownedPath, orphanPhoto, orphanThumb, orphanSpool] {
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
            }
            func sweeper(_ core: AppCore) -> MediaOrphanSweeper {
                MediaOrphanSweeper(database: core.database, mediaDirectory: core.config.mediaDirectory,
                                   leases: JobLeases(database: core.database, holder: core.instanceID), folders: core.features.mediaFolders,
                                   logger: TestApp.quietLogger)
            }
            async let sweptA = sweeper(a).sweep()
            async let sweptB = sweeper(b).sweep()
            let results = try await [sweptA, sweptB]
            let removed = Set(results.compactMap { $0 }.flatMap { $0 })
            #expect(removed == [orphanPhoto, orphanThumb, orphanSpool])
            #expect(results.compactMap { $0 }.map(\.count).reduce(0, +) == 3, "each file removed by one instance only")
            #expect(FileManager.default.fileExists(atPath: ownedPath))
            #expect(FileManager.default.fileExists(atPath: youngPhoto))
        }
    }

    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 08:00:00 +0000" endDate="2024-01-01 09:00:00 +0000" value="1200"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-02 08:00:00 +0000" endDate="2024-01-02 09:00:00 +0000" value="2200"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-03 08:00:00 +0000" endDate="2024-01-03 09:00:00 +0000" value="3200"/>
        </HealthData>
        """
}
