import Foundation
import Testing
@testable import HibiApp

/// A real-shaped export: every element accounted for, nothing dropped silently.
@Suite(.serialized) struct HealthRealExportTests {
    func items(_ text: String) throws -> [AppleHealthItem] {
        let parser = AppleHealthExportParser(stream: MemoryByteStream(text), timeZone: TimeZone(identifier: "Asia/Tokyo") ?? .gmt)
        var result: [AppleHealthItem] = []
        while let item = try parser.next() { result.append(item) }
        return result
    }

    /// Issue 17 said the 21.37 g DietaryFatTotal record was dropped ("Imported 5 new records … for 6
    /// records"). It was not: the export.xml inside that export.zip has five data elements and no such
    /// record (the six came from a different export.xml). What was dropped without a word: the route the
    /// workout names, and any element Hibi did not store. The parser now accounts for every element.
    @Test func everyElementOfTheRealShapedExportComesOutOnce() throws {
        let all = try items(RealExportFixtures.export)
        var perKind: [String: Int] = [:]
        var locations = 0
        for item in all {
            switch item {
            case let .record(_, kind): perKind[kind, default: 0] += 1
            case let .workout(workout):
                perKind["Workout", default: 0] += 1
                locations += workout.points.count + workout.skips.count
            case let .skipped(skip): perKind[skip.kind, default: 0] += 1
            case .birthDate: break
            }
        }
        perKind["Location"] = locations
        #expect(perKind == RealExportFixtures.counts)

        let records = all.compactMap { item -> HealthRecordDraft? in if case let .record(draft, _) = item { return draft } else { return nil } }
        #expect(records.contains { $0.type == "HKQuantityTypeIdentifierDietaryFatTotal" && $0.value == 21.37 && $0.unit == "g" })
        // Category samples keep their length: sleep in hours, the others in minutes.
        #expect(records.contains { $0.type == "sleep" && $0.value == 1.5 && $0.category == "AsleepREM" })
        #expect(records.contains { $0.type == "HKCategoryTypeIdentifierMindfulSession" && $0.value == 10 && $0.unit == "min" })
        #expect(records.contains { $0.type == "HKCategoryTypeIdentifierAppleStandHour" && $0.value == 60 && $0.category == "AppleStandHourStood" })
        // A unit Hibi cannot convert keeps Apple's type, unit and value.
        #expect(records.contains { $0.type == "HKQuantityTypeIdentifierBodyMass" && $0.unit == "furlong" && $0.value == 3 })
        // The blood pressure pair as one row naming both, and the food with its members.
        #expect(records.contains { $0.type == "HKCorrelationTypeIdentifierBloodPressure" && $0.category == "121/79" && $0.value == 2 })
        #expect(records.contains { $0.type == "HKCorrelationTypeIdentifierFood" && $0.details?.contains("DietaryFatTotal 18.5 g") == true
                                   && $0.details?.contains("Lunch") == true })

        let workouts = all.compactMap { item -> AppleHealthWorkout? in if case let .workout(w) = item { return w } else { return nil } }
        #expect(workouts.count == 2)
        #expect(workouts[0].activity == "Running" && workouts[0].points.count == 2 && workouts[0].skips.map(\.reason) == [.unparseableDate])
        #expect(abs((workouts[0].distanceKm ?? 0) - 0.4971749504535062 * 1.609344) < 1e-9)
        #expect(workouts[1].activity == "Cycling" && workouts[1].distanceKm == 12.25 && workouts[1].energyKcal == 250.5)
        #expect(workouts[1].routeFiles == ["/workout-routes/route_2024-05-05_6.30pm.gpx"])
        #expect(workouts[1].record.details?.contains("HKIndoorWorkout") == true)
        #expect(workouts[1].record.details?.contains("HKMetadataKeySyncVersion") == false)

        let skips = all.compactMap { item -> ImportSkip? in if case let .skipped(s) = item { return s } else { return nil } }
        #expect(skips.map(\.reason) == [.unparseableDate, .unsupported])
        #expect(skips.first?.at == "line 19")
    }

    @Test func routeGPXFilesAreReadWithTheProjectReader() throws {
        let parsed = try WorkoutRouteGPX.parse(MemoryByteStream(RealExportFixtures.routeGPX))
        #expect(parsed.points.count == 3)
        #expect(parsed.points.first == WorkoutRoutePoint(t: 1_714_899_600, lat: 35.680001, lon: 139.700001, ele: 4.076904))
        #expect(parsed.points.last?.ele == nil)
        #expect(parsed.skips.map(\.reason) == [.outOfRange])
        #expect(WorkoutRouteGPX.parseTime("2024-05-05T09:00:00.250Z") == 1_714_899_600)
    }

    struct Fixture {
        let core: AppCore
        let health: HealthService
        let importer: AppleHealthImporter
        let user: User
    }

    func fixture() async throws -> Fixture {
        let core = try await AppCore.open(try await TestApp.config(), logger: TestApp.quietLogger)
        let user = try await core.accounts.createUser(username: "aiko", displayName: "Aiko", password: Browser.password, isAdmin: true,
                                                      language: nil, now: Date())
        var importer = core.features.health.importer
        importer.batchSize = 5
        return Fixture(core: core, health: core.features.health.service, importer: importer, user: user)
    }

    func importFile(_ f: Fixture, _ path: String) async throws -> ImportResult {
        let job = try await f.importer.prepare(path: path, fileName: "export", user: f.user, uploadPath: nil, now: Date())
        return try await f.importer.run(job: job, path: path, user: f.user)
    }

    func kind(_ report: ImportReport, _ name: String) -> ImportReport.Kind? { report.kinds.first { $0.kind == name } }

    @Test func theReportAddsUpToTheFileAndAReimportDoublesNothing() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        let path = try ExportFixtures.write(RealExportFixtures.export)
        let first = try await importFile(f, path)
        let report = first.job.report
        for (name, count) in RealExportFixtures.counts {
            let entry = try #require(kind(report, name), "no \(name) in the report")
            #expect(entry.added + entry.duplicates + entry.skippedCount == count, "\(name)")
        }
        #expect(kind(report, "Record")?.added == 11)
        #expect(kind(report, "Record")?.duplicates == 2) // the blood pressure pair, inside its Correlation and again at the top
        #expect(kind(report, "Record")?.skipped == [ImportReport.Skip(reason: .unparseableDate, count: 1, firstAt: "line 19")])
        #expect(kind(report, "ClinicalRecord")?.skipped.first?.reason == .unsupported)
        #expect(kind(report, "Location")?.added == 2)
        // export.xml alone: the route file it names is not there, and the report says so.
        #expect(kind(report, "FileReference")?.skipped.first?.reason == .missingFile)
        #expect(report.lines(.en).contains("Health records: 11 added, 2 already there, 1 skipped: date that cannot be read (first at line 19)"))
        // Stored with the job: a later read shows the same.
        #expect(try await f.health.jobs.find(id: first.job.id, userID: f.user.id)?.report == report)

        let workouts = try await f.health.workouts(user: f.user, in: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 2e9))
        #expect(workouts.map(\.activity) == ["Running", "Cycling"])
        #expect(try await f.health.workoutRoute(user: f.user, workoutID: workouts[0].id).count == 2)

        let again = try await importFile(f, path)
        #expect(again.job.inserted == 0)
        #expect(kind(again.job.report, "Record")?.duplicates == 13)
        #expect(kind(again.job.report, "Workout")?.duplicates == 2)
        #expect(kind(again.job.report, "Location")?.duplicates == 2)
        #expect(try await f.health.records.count(userID: f.user.id) == first.job.inserted.asInt) // the workouts are records too, once
    }

    @Test func anExportZipBringsRoutesAndElectrocardiograms() async throws {
        let f = try await fixture()
        defer { Task { await f.core.database.shutdown() } }
        let zip = try RealExportFixtures.zip()
        let first = try await importFile(f, zip)
        let report = first.job.report
        #expect(kind(report, "trkpt")?.added == 3)
        #expect(kind(report, "trkpt")?.skipped.first?.reason == .outOfRange)
        #expect(kind(report, "FileReference") == nil)
        #expect(kind(report, "electrocardiogram")?.added == 1)
        let cycling = try #require(try await f.health.workouts(user: f.user, in: DateInterval(start: Date(timeIntervalSince1970: 1_714_000_000), duration: 2e6)).first)
        let route = try await f.health.workoutRoute(user: f.user, workoutID: cycling.id)
        #expect(route.map(\.t) == [1_714_899_600, 1_714_899_605, 1_714_899_610])
        #expect(f.health.electrocardiograms.list(userID: f.user.id).map(\.name) == ["ecg_2024-05-05.csv"])
        let stored = try #require(f.health.electrocardiograms.path(name: "ecg_2024-05-05.csv", userID: f.user.id))
        #expect(try String(contentsOfFile: stored, encoding: .utf8) == RealExportFixtures.ecgCSV)
        // Another user sees none of it.
        let other = try await f.core.accounts.createUser(username: "ben", displayName: "Ben", password: Browser.password, isAdmin: false,
                                                         language: nil, now: Date())
        #expect(f.health.electrocardiograms.list(userID: other.id).isEmpty)
        await #expect(throws: HealthError.self) { _ = try await f.health.workoutRoute(user: other, workoutID: cycling.id) }

        let again = try await importFile(f, zip)
        #expect(kind(again.job.report, "trkpt")?.duplicates == 3)
        #expect(kind(again.job.report, "electrocardiogram")?.duplicates == 1)
        #expect(try await f.health.workoutRoute(user: f.user, workoutID: cycling.id).count == 3)
    }
}

extension Int64 {
    var asInt: Int { Int(self) }
}

extension HealthRealExportTests {
    @Test func keptTypesShowReadableNames() {
        #expect(HealthDataType.title(of: "HKQuantityTypeIdentifierDietaryFatTotal").en == "Fat")
        #expect(HealthDataType.title(of: "HKCorrelationTypeIdentifierBloodPressure").ja == "血圧(最高・最低)")
        #expect(HealthDataType.title(of: "HKCategoryTypeIdentifierMindfulSession").en == "Mindful minutes")
        #expect(HealthDataType.title(of: "HKQuantityTypeIdentifierNumberOfTimesFallen").en == "Number of times fallen")
    }
}

extension HealthRealExportTests {
    @Test func recordProblemsHaveTheirReasons() {
        let start = XMLAttribute("startDate", "2024-05-01 08:00:00 +0900")
        let steps = XMLAttribute("type", "HKQuantityTypeIdentifierStepCount")
        #expect(AppleHealthMapping.recordProblem([steps, start, XMLAttribute("value", "12")]) == nil)
        #expect(AppleHealthMapping.recordProblem([steps, start]) == .missingValue)
        #expect(AppleHealthMapping.recordProblem([steps, start, XMLAttribute("value", "nan")]) == .outOfRange)
        #expect(AppleHealthMapping.recordProblem([steps, XMLAttribute("startDate", "1066-10-14 09:00:00 +0000"), XMLAttribute("value", "1")]) == .outOfRange)
        #expect(AppleHealthMapping.recordProblem([steps, XMLAttribute("startDate", "soon"), XMLAttribute("value", "1")]) == .unparseableDate)
        #expect(AppleHealthMapping.recordProblem([XMLAttribute("type", "HKCategoryTypeIdentifierMindfulSession"), start]) == nil)
    }
}

extension HealthRealExportTests {
    @Test func bulkRecordIdsAreTimeOrderedUUIDsAndUnique() {
        let now = Date(timeIntervalSince1970: 1_714_899_600.123)
        var ids = HealthRecordIDs(now: now)
        let made = (0..<10_000).map { _ in ids.next() }
        #expect(Set(made).count == made.count)
        for id in made.prefix(50) {
            let uuid = UUID(uuidString: id)
            #expect(uuid?.uuidString == id)
            #expect(id.count == 36 && id.dropFirst(14).first == "7" && "89AB".contains(id.dropFirst(19).first ?? "x"))
        }
        // The first 48 bits are the milliseconds, as TimeOrderedID writes them.
        let reference = TimeOrderedID.make(now: now)
        #expect(made[0].prefix(13) == reference.prefix(13))
    }
}

extension HealthRealExportTests {
    /// Ascending within a generator (appends to the `id` index), different from one generator to the next.
    @Test func bulkRecordIdsAscendWithinABatch() {
        let now = Date(timeIntervalSince1970: 1_714_899_600.123)
        var ids = HealthRecordIDs(now: now)
        let made = (0..<1_000).map { _ in ids.next() }
        #expect(made == made.sorted())
        var other = HealthRecordIDs(now: now)
        #expect(!made.contains(other.next()))
    }
}
