import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Issue 17: workouts, their routes and electrocardiograms leave with the person (takeout) and with the
/// instance (backup), and electrocardiograms do not outlive their owner.
@Suite(.serialized) struct WorkoutTakeoutTests {
    @Test func aRouteWrittenAsGPXReadsBackPointForPoint() throws {
        let workout = HealthWorkout(id: "w1", activity: "Running <fast> & far", start: Date(timeIntervalSince1970: 1_714_899_600),
                                    end: Date(timeIntervalSince1970: 1_714_900_000), durationMinutes: 6, distanceKm: nil, energyKcal: nil,
                                    device: "", details: nil)
        let points = [WorkoutRoutePoint(t: 1_714_899_600, lat: 35.680001, lon: 139.700001, ele: 4.076904),
                      WorkoutRoutePoint(t: 1_714_899_605, lat: -33.8688197, lon: 151.2092955, ele: nil),
                      WorkoutRoutePoint(t: 1_714_899_610, lat: 0.1 + 0.2, lon: -0.000001, ele: -12.5)]
        let gpx = WorkoutRouteGPX.write(workout, points: points)
        #expect(String(decoding: gpx, as: UTF8.self).contains("Running &lt;fast&gt; &amp; far"))
        let parsed = try WorkoutRouteGPX.parse(MemoryByteStream(Array(gpx)))
        #expect(parsed.points == points)
        #expect(parsed.skips.isEmpty)
    }

    static func importRealExport(_ core: AppCore, _ user: User) async throws -> ImportResult {
        let importer = core.features.health.importer
        let zip = try RealExportFixtures.zip()
        let job = try await importer.prepare(path: zip, fileName: "export.zip", user: user, uploadPath: nil, now: Date())
        return try await importer.run(job: job, path: zip, user: user)
    }

    @Test func theTakeoutCarriesWorkoutsRoutesAndElectrocardiograms() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try await HealthReportAPITests.importRealExport(browser, api).state == "done")
            let page = try await api.call(.get, "/api/v1/me/export")
            #expect(page.status == .ok)
            let archive = try ZipReader(data: page.data, maxTotalBytes: 1 << 30)

            let workoutsData = try #require(try archive.contents(of: "health/workouts.json"))
            let workouts = try JSONCoding.decoder.decode([HealthService.WorkoutExport].self, from: workoutsData)
            #expect(workouts.map(\.activity) == ["Running", "Cycling"])  // oldest first
            let cycling = try #require(workouts.last)
            #expect(cycling.distanceKm == 12.25 && cycling.energyKcal == 250.5 && cycling.durationMinutes == 30)
            #expect(cycling.routePoints == 3)
            #expect(cycling.routeFile == "health/workout-routes/\(cycling.id).gpx")
            #expect(workouts.first?.routePoints == 2)

            let gpx = try #require(try archive.contents(of: "health/workout-routes/\(cycling.id).gpx"))
            let route = try WorkoutRouteGPX.parse(MemoryByteStream(Array(gpx))).points
            #expect(route.map(\.t) == [1_714_899_600, 1_714_899_605, 1_714_899_610])
            #expect(route.first == WorkoutRoutePoint(t: 1_714_899_600, lat: 35.680001, lon: 139.700001, ele: 4.076904))

            let ecg = try #require(try archive.contents(of: "health/electrocardiograms/ecg_2024-05-05.csv"))
            #expect(String(decoding: ecg, as: UTF8.self) == RealExportFixtures.ecgCSV)
            let readme = String(decoding: try #require(try archive.contents(of: "README.txt")), as: UTF8.self)
            #expect(readme.contains("health/workouts.json") && readme.contains("health/workout-routes/") && readme.contains("health/electrocardiograms/"))
        }
    }

    /// `hibi backup` carries the workout tables and the electrocardiogram files (under the media folder's
    /// `health-ecg/`): restored into an empty database, the workout, its route and the file are there.
    @Test func aBackupRestoresWorkoutsRoutesAndElectrocardiograms() async throws {
        let source = try BackupFixture.directory("workouts-source")
        let sourceConfig = try await BackupFixture.sqliteConfig(source)
        let core = try await AppCore.open(sourceConfig, logger: TestApp.quietLogger)
        do {
            let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                          language: nil, now: Date())
            #expect(try await Self.importRealExport(core, user).job.state == .done)
        } catch {
            await core.database.shutdown()
            throw error
        }
        await core.database.shutdown()

        let archive = (source as NSString).appendingPathComponent("instance.hibi-backup")
        let manifest = try await BackupFixture.backup(sourceConfig, to: archive)
        #expect(manifest.files.contains { $0.member.hasPrefix("media/health-ecg/") && $0.member.hasSuffix("/ecg_2024-05-05.csv") })

        let target = try BackupFixture.directory("workouts-target")
        try BackupFixture.copyKeys(from: source, to: target)
        let targetConfig = try await BackupFixture.targetConfig(target)
        try await BackupFixture.restore(archive, into: targetConfig)

        let restored = try await AppCore.open(targetConfig, logger: TestApp.quietLogger)
        defer { Task { await restored.database.shutdown() } }
        let user = try #require(try await restored.users.find(username: "aiko"))
        let health = restored.features.health.service
        let workouts = try await health.workouts(user: user, in: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 2e9))
        #expect(workouts.map(\.activity) == ["Running", "Cycling"])
        let cycling = try #require(workouts.last)
        #expect(cycling.distanceKm == 12.25)
        #expect(try await health.workoutRoute(user: user, workoutID: cycling.id).map(\.t) == [1_714_899_600, 1_714_899_605, 1_714_899_610])
        let file = try #require(health.electrocardiograms.path(name: "ecg_2024-05-05.csv", userID: user.id))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == RealExportFixtures.ecgCSV)
        #expect(try await restored.features.visits.locations.pointCount(userID: user.id) == 5)
    }

    /// No action deletes an account yet; a user row that goes (by hand, or a future deletion) takes its
    /// rows with it (ON DELETE CASCADE), and the media sweep removes its electrocardiograms, no one else's.
    @Test func electrocardiogramsGoWhenTheirUserIsDeleted() async throws {
        let directory = try BackupFixture.directory("ecg-owner")
        let config = try await BackupFixture.sqliteConfig(directory)
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        defer { Task { await core.database.shutdown() } }
        let aiko = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        let ken = try await core.accounts.createUser(username: "ken", displayName: "Ken", password: Browser.password, isAdmin: false,
                                                     language: nil, now: Date())
        _ = try await Self.importRealExport(core, aiko)
        _ = try await Self.importRealExport(core, ken)
        let health = core.features.health.service
        let aikoFile = try #require(health.electrocardiograms.path(name: "ecg_2024-05-05.csv", userID: aiko.id))
        #expect(health.electrocardiograms.path(name: "ecg_2024-05-05.csv", userID: ken.id) != nil)

        var sweeper = MediaOrphanSweeper(database: core.database, mediaDirectory: config.mediaDirectory,
                                         leases: JobLeases(database: core.database, holder: "test"), folders: core.features.mediaFolders,
                                         logger: TestApp.quietLogger)
        sweeper.minimumAge = 0
        // While both accounts exist, nothing is swept.
        #expect(try await sweeper.sweep()?.isEmpty == true)

        try await core.database.sql.delete(from: "users").where("id", .equal, aiko.id).run()
        let removed = try #require(try await sweeper.sweep())
        #expect(removed == [aikoFile])
        #expect(!FileManager.default.fileExists(atPath: aikoFile))
        #expect(!FileManager.default.fileExists(atPath: (aikoFile as NSString).deletingLastPathComponent))
        #expect(health.electrocardiograms.list(userID: aiko.id).isEmpty)
        #expect(health.electrocardiograms.list(userID: ken.id).map(\.name) == ["ecg_2024-05-05.csv"])
        // The rows went with the user: workouts, routes and location points.
        #expect(try await health.workouts(user: aiko, in: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 2e9)).isEmpty)
        #expect(try await core.features.visits.locations.pointCount(userID: aiko.id) == 0)
    }
}
