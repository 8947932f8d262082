import Foundation
import Logging
import SQLKit

/// What one location import did: the per-kind report, points stored and already known, visits made
/// from waypoints, and stays offered for confirmation.
public struct LocationImportResult: Codable, Sendable, Equatable {
    public var report: ImportReport
    public var pointsStored: Int
    public var pointDuplicates: Int
    public var visitsImported: Int
    public var staysOffered: Int
    /// The source's shape ("gpx", "records", "semantic", "timeline", "ios-timeline").
    public var shape: String
    public var summary: [String]
}

/// Raw location history in, stays out: stores points in batches, runs stay detection over them,
/// offers the stays, and turns a confirmed one into a normal signed visit through `VisitService`.
public struct LocationService: Sendable {
    let database: Database
    let visits: VisitService
    let logger: Logger
    /// Health's workouts, for a TCX or FIT uploaded alone (an activity: its points join this history and it becomes a workout).
    let workouts: (any WorkoutRecorder)?
    /// Points kept in memory between database writes while a file is read (about 1 MB), each batch one
    /// transaction: 20,000 rather than 5,000 made a million-point GPX import's 200 commits 50.
    static let batchSize = 20_000
    /// Points read back per query while detecting stays.
    static let readPage = 20_000
    /// How far back a live batch looks for the start of a stay still going on.
    static let liveLookback: Int64 = 48 * 3600

    public init(database: Database, visits: VisitService, logger: Logger, workouts: (any WorkoutRecorder)? = nil) {
        self.database = database
        self.visits = visits
        self.logger = logger
        self.workouts = workouts
    }

    // MARK: settings

    public func settings(userID: String) async throws -> StaySettings {
        try await LocationPointStore.settings(userID: userID, on: database.sql)
    }

    public func setSettings(userID: String, _ settings: StaySettings) async throws -> StaySettings {
        let valid = try Self.validate(settings)
        try await LocationPointStore.setSettings(valid, userID: userID, on: database.sql)
        return valid
    }

    static func validate(_ settings: StaySettings) throws(LocationError) -> StaySettings {
        guard settings.distanceMeters.isFinite, StaySettings.distanceRange.contains(settings.distanceMeters) else { throw .invalidSetting(field: "distance") }
        guard StaySettings.durationRange.contains(settings.durationMinutes) else { throw .invalidSetting(field: "duration") }
        return settings
    }

    // MARK: storing points

    /// Stores points for one import or one phone message and keeps the report and the time span.
    struct Batch {
        let userID: String
        var source: String
        let importID: String?
        var report = ImportReport()
        /// The import's time, for points dated in the future (nil: not checked).
        var now: Date?
        /// Points of this import whose time passed the checks (stored or already there), for the one-second check.
        var timed = 0
        /// The kinds of element that gave points (not visits or stays).
        var pointKinds = Set<String>()
        var stored = 0
        var duplicates = 0
        var earliest: Int64?
        var latest: Int64?
        /// SQLite: COMMIT does not checkpoint the WAL (`BatchWriter` checkpoints beside the next batch instead).
        var deferCheckpoint = false

        /// Points with the kind of element each came from (runs of one kind go in one statement, so
        /// what was new and what was known is reported per kind).
        mutating func store(_ points: [LocationPoint], kinds: [String], on database: Database) async throws {
            var points = points
            var kinds = kinds
            if points.contains(where: { LocationTimeRules.problem($0.time, now: now) != nil }) {
                var keptPoints: [LocationPoint] = []
                var keptKinds: [String] = []
                for (index, point) in points.enumerated() {
                    let kind = index < kinds.count ? kinds[index] : (kinds.last ?? "point")
                    if let reason = LocationTimeRules.problem(point.time, now: now) {
                        report.skip(kind, reason, at: Date(timeIntervalSince1970: Double(point.time)).formatted(.iso8601))
                    } else {
                        keptPoints.append(point)
                        keptKinds.append(kind)
                    }
                }
                points = keptPoints
                kinds = keptKinds
            }
            guard !points.isEmpty else { return }
            timed += points.count
            pointKinds.formUnion(kinds)
            var runStart = 0
            while runStart < points.count {
                let kind = runStart < kinds.count ? kinds[runStart] : (kinds.last ?? "point")
                var runEnd = runStart + 1
                while runEnd < points.count, (runEnd < kinds.count ? kinds[runEnd] : kind) == kind { runEnd += 1 }
                let slice = points[runStart..<runEnd]
                let (userID, source, importID) = (self.userID, self.source, self.importID)
                let insert: @Sendable (any SQLDatabase) async throws -> Int = { sql in
                    try await LocationPointStore.insert(slice, userID: userID, source: source, importID: importID, on: sql)
                }
                let inserted = deferCheckpoint ? try await database.bulkTransaction(autoCheckpoint: false, insert) : try await database.transaction(insert)
                report.count(kind, added: inserted, duplicates: slice.count - inserted)
                stored += inserted
                duplicates += slice.count - inserted
                runStart = runEnd
            }
            for p in points {
                earliest = min(earliest ?? p.time, p.time)
                latest = max(latest ?? p.time, p.time)
            }
        }
    }

    /// Writes each batch while the reader reads the next: the file is read on this task's thread and the
    /// batch before is written on another (SQLite on NIO's thread pool), as the Apple Health import does.
    /// One batch at a time is in flight, so memory stays at two batches.
    /// On SQLite the batches' COMMITs do not checkpoint the WAL: a passive checkpoint runs on another connection
    /// beside the next batch (`ImportWALCheckpointer`, as the Apple Health import does). A COMMIT that checkpointed
    /// copied the WAL into the database file and synced both on the writer's thread while the parser waited for it.
    struct BatchWriter {
        private var batch: Batch
        private var wal: ImportWALCheckpointer?
        private var writing: Task<(Batch, ImportWALCheckpointer?), any Error>?

        init(_ batch: Batch, database: Database) {
            self.batch = batch
            if database.engine == .sqlite {
                self.batch.deferCheckpoint = true
                wal = ImportWALCheckpointer(database: database)
            }
        }

        /// Waits for the batch before to be written, then starts writing this one.
        mutating func store(_ points: [LocationPoint], kinds: [String], on database: Database) async throws {
            let before = try await inFlight()
            let wal = self.wal
            writing = Task {
                var batch = before
                var wal = wal
                do {
                    try await batch.store(points, kinds: kinds, on: database)
                } catch {
                    // The checkpoint beside this batch is waited for too: nothing of the import outlives it.
                    await wal?.finish()
                    throw error
                }
                await wal?.committed()
                return (batch, wal)
            }
        }

        private mutating func inFlight() async throws -> Batch {
            if let task = writing {
                writing = nil
                (batch, wal) = try await task.value
            }
            return batch
        }

        /// Every batch written, and the WAL checkpointed: the counts and the time span of all of them.
        mutating func written() async throws -> Batch {
            let batch = try await inFlight()
            await wal?.finish()
            wal = nil
            return batch
        }
    }

    // MARK: imports

    /// GPX already read (an upload): waypoints become visits (all or none, signed), track points are
    /// stored, then stays are detected over the track's span.
    public func importGPX(userID: String, visits fields: [VisitFields], kinds: [String], report: ImportReport, trackPoints: [LocationPoint],
                          now: Date) async throws -> LocationImportResult {
        let outcome = try await visits.importAll(userID: userID, visits: fields, now: now)
        var batch = Batch(userID: userID, source: "gpx", importID: UUID().uuidString.lowercased())
        batch.now = now
        batch.report = report
        outcome.settle(&batch.report, kinds: kinds)
        let imported = outcome.added
        var start = 0
        while start < trackPoints.count {
            let end = min(start + Self.batchSize, trackPoints.count)
            try await batch.store(Array(trackPoints[start..<end]), kinds: ["trkpt"], on: database)
            start = end
        }
        return try await finish(batch, visitsImported: imported, placeVisits: [], shape: "gpx", now: now)
    }

    /// Any location file from a stream (the command line's path for files of any size), told by its
    /// content: FIT by its ".FIT" header, a Hibi takeout's location-points.csv by its header, an
    /// OwnTracks Recorder file by its time-stamped lines, TCX by its root element, GPX when it starts
    /// with "<", else Google's JSON shapes. Memory stays at one batch of points.
    public func importFile(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        let sniffing = SniffedStream(stream)
        let first = try sniffing.firstSignificantByte()
        let head = try sniffing.head(atLeast: 8192)
        if FITReader.looksLike(head) {
            return try await importFIT(userID: userID, stream: sniffing, now: now)
        }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            // Workouts are Health's: a Strava export becomes workouts there, its points joining this history.
            throw LocationError.importInvalid(position: "byte 1", reason: LocationStrings.archiveToHealth)
        }
        if first == UInt8(ascii: "t") || first == UInt8(ascii: "T") {
            return try await importPointsCSV(userID: userID, stream: sniffing, now: now)
        }
        if let first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), OwnTracksRecorder.looksLike(head) {
            return try await importOwnTracksRecorder(userID: userID, stream: sniffing, now: now)
        }
        if first == UInt8(ascii: "<"), TCXStreamParser.looksLike(head) {
            return try await importTCX(userID: userID, stream: sniffing, now: now)
        }
        if first == UInt8(ascii: "<") {
            let parser = GPXStreamParser(stream: sniffing, importedAt: now)
            var batch = Batch(userID: userID, source: "gpx", importID: UUID().uuidString.lowercased())
            batch.now = now
            var writer = BatchWriter(batch, database: database)
            do {
                while try parser.next(maxPoints: Self.batchSize) {
                    try await writer.store(parser.takePoints(), kinds: ["trkpt"], on: database)
                }
                try await writer.store(parser.takePoints(), kinds: ["trkpt"], on: database)
                batch = try await writer.written()
                let (fields, report) = try parser.finish()
                let outcome = try await visits.importAll(userID: userID, visits: fields, now: now)
                let imported = outcome.added
                let trackReport = batch.report
                batch.report = report
                outcome.settle(&batch.report, kinds: parser.visitKinds)
                batch.report.merge(trackReport)
                return try await finish(batch, visitsImported: imported, placeVisits: [], shape: "gpx", now: now)
            } catch let error as VisitError {
                // What was read before the problem is stored as in any failed import, and no write outlives the import.
                _ = try? await writer.written()
                if case let .importInvalid(position, reason) = error {
                    throw LocationError.importInvalid(position: position, reason: reason)
                }
                throw error
            }
        }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            throw LocationError.importInvalid(position: "byte 1", reason: LocationStrings.formatsExpected)
        }
        var scanner = JSONElementScanner()
        var reader = TakeoutLocationReader()
        var positions: [String: Int] = [:]
        var batch = Batch(userID: userID, source: "takeout", importID: UUID().uuidString.lowercased())
        batch.now = now
        var placeVisits: [StayCandidate] = []
        var placeKinds: [String] = []
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        var offset = 0
        while true {
            let n = try sniffing.read(into: chunk, count: 1 << 20)
            if n == 0 { break }
            do {
                try scanner.feed(UnsafeBufferPointer(start: chunk, count: n)) { element in
                    let position = positions[element.key, default: 0]
                    positions[element.key] = position + 1
                    reader.take(element, position: position)
                }
            } catch let failure as JSONElementScanner.Failure {
                let reason: Text = switch failure {
                case .notJSON: Text(en: "not valid JSON", ja: "正しい JSON ではありません")
                case let .elementTooLarge(key): Text(en: "an element of \(key) is too large", ja: "\(key) の要素が大きすぎます")
                }
                throw LocationError.importInvalid(position: "near byte \(offset + n)", reason: reason)
            }
            offset += n
            if reader.points.count >= Self.batchSize {
                batch.source = "takeout-\(reader.shape ?? "json")"
                try await batch.store(reader.points, kinds: reader.pointKinds, on: database)
                reader.points.removeAll(keepingCapacity: true)
                reader.pointKinds.removeAll(keepingCapacity: true)
            }
            if reader.stays.count > 0 {
                placeVisits += reader.stays
                placeKinds += reader.stayKinds
                reader.stays.removeAll()
                reader.stayKinds.removeAll()
            }
        }
        guard scanner.isComplete else {
            throw LocationError.importInvalid(position: "end of file", reason: Text(en: "the file ends before its last bracket (is it truncated?)",
                                                                                  ja: "最後の括弧の前でファイルが終わっています(途中までしかコピーされていない可能性があります)"))
        }
        batch.source = "takeout-\(reader.shape ?? "json")"
        try await batch.store(reader.points, kinds: reader.pointKinds, on: database)
        let stored = batch.report
        batch.report = reader.report
        for kind in stored.kinds {
            if let index = batch.report.kinds.firstIndex(where: { $0.kind == kind.kind }) {
                batch.report.kinds[index].added += kind.added
                batch.report.kinds[index].duplicates += kind.duplicates
            } else {
                batch.report.kinds.append(kind)
            }
        }
        placeVisits += reader.stays
        placeKinds += reader.stayKinds
        return try await finish(batch, visitsImported: 0, placeVisits: placeVisits, placeKinds: placeKinds, shape: reader.shape ?? "json", now: now)
    }

    /// Stores the place visits a file named as stays (each counted as added, or already there when a
    /// stored stay covers it), then finds stays in the points the import stored.
    func finish(_ batch: Batch, visitsImported: Int, placeVisits: [StayCandidate], placeKinds: [String] = [], shape: String,
                now: Date) async throws -> LocationImportResult {
        var batch = batch
        // A file whose every point is at one second: a clock never set, not a place in time. Taken back out.
        if let importID = batch.importID, batch.stored > 0,
           LocationTimeRules.allAtOneSecond(count: batch.timed, earliest: batch.earliest, latest: batch.latest) {
            try await LocationPointStore.deleteImport(importID, userID: batch.userID, on: database.sql)
            let at = batch.earliest.map { Date(timeIntervalSince1970: Double($0)).formatted(.iso8601) }
            for index in batch.report.kinds.indices where batch.pointKinds.contains(batch.report.kinds[index].kind) && batch.report.kinds[index].added > 0 {
                let added = batch.report.kinds[index].added
                batch.report.kinds[index].added = 0
                batch.report.kinds[index].skipped.append(.init(reason: .sameSecond, count: added, firstAt: at))
            }
            batch.stored = 0
            batch.earliest = nil
            batch.latest = nil
        }
        let settings = try await settings(userID: batch.userID)
        let outcomes = try await offerEach(userID: batch.userID, placeVisits, source: "takeout", settings: settings, now: now)
        for (index, outcome) in outcomes.enumerated() {
            let kind = index < placeKinds.count ? placeKinds[index] : "placeVisit"
            if outcome == .known { batch.report.duplicate(kind) } else { batch.report.add(kind) }
        }
        var offered = outcomes.filter { $0 == .offered }.count
        if let from = batch.earliest, let to = batch.latest {
            offered += try await detect(userID: batch.userID, from: from, to: to, final: true, source: batch.source, settings: settings, now: now)
        }
        return LocationImportResult(report: batch.report, pointsStored: batch.stored, pointDuplicates: batch.duplicates, visitsImported: visitsImported,
                                    staysOffered: offered, shape: shape, summary: [])
    }

    // MARK: live

    /// Points from a phone: stored, then the stays they completed are offered (a stay still going on is not).
    @discardableResult
    public func receive(userID: String, points: [LocationPoint], report: ImportReport, source: String, now: Date) async throws -> Int {
        var batch = Batch(userID: userID, source: source, importID: nil)
        batch.now = now
        batch.report = report
        try await batch.store(points, kinds: ["location"], on: database)
        guard let earliest = batch.earliest, let latest = batch.latest else { return 0 }
        let sql = database.sql
        // Re-read from where the last batch left a window undecided (bounded), or from the last stay.
        let since: Int64
        if let live = try await LocationPointStore.liveSince(userID: userID, on: sql) {
            since = live
        } else {
            since = (try await LocationPointStore.latestDeparture(userID: userID, on: sql) ?? Int64.min / 2) &+ 1
        }
        let from = min(max(since, earliest &- Self.liveLookback), earliest)
        let settings = try await settings(userID: userID)
        let (offered, pending) = try await detectLive(userID: userID, from: from, source: source, settings: settings, now: now)
        try await LocationPointStore.setLiveSince(pending ?? latest, settings: settings, userID: userID, on: sql)
        return offered
    }

    /// Detection over the live feed from `from` on: the stays it completed, and where the window it
    /// leaves undecided begins.
    func detectLive(userID: String, from: Int64, source: String, settings: StaySettings, now: Date) async throws -> (Int, Int64?) {
        var detector = StayDetector(settings: settings)
        var candidates: [StayCandidate] = []
        var after: (Int64, Double, Double)?
        while true {
            let page = try await LocationPointStore.points(userID: userID, from: from, to: Int64.max / 2, after: after, limit: Self.readPage,
                                                           on: database.sql)
            for point in page { candidates += detector.add(point) }
            guard page.count == Self.readPage, let last = page.last else { break }
            after = (last.time, last.latitude, last.longitude)
        }
        return (try await offer(userID: userID, candidates, source: source, settings: settings, now: now), detector.pendingSince)
    }

    // MARK: detection

    /// Runs the detector over the stored points in [from, to], reading them a page at a time.
    func detect(userID: String, from: Int64, to: Int64, final: Bool, source: String, settings: StaySettings, now: Date) async throws -> Int {
        var detector = StayDetector(settings: settings)
        var candidates: [StayCandidate] = []
        var after: (Int64, Double, Double)?
        while true {
            let page = try await LocationPointStore.points(userID: userID, from: from, to: to, after: after, limit: Self.readPage, on: database.sql)
            for point in page { candidates += detector.add(point) }
            guard page.count == Self.readPage, let last = page.last else { break }
            after = (last.time, last.latitude, last.longitude)
        }
        if final { candidates += detector.finish() }
        return try await offer(userID: userID, candidates, source: source, settings: settings, now: now)
    }

    enum OfferOutcome: Equatable { case offered, merged, known }

    /// Stores each stay as offered, merged with a visit, or not at all when it is already known; returns how many were offered.
    func offer(userID: String, _ candidates: [StayCandidate], source: String, settings: StaySettings, now: Date) async throws -> Int {
        try await offerEach(userID: userID, candidates, source: source, settings: settings, now: now).filter { $0 == .offered }.count
    }

    /// What became of each stay: offered to the person, merged with a visit it matches, or already known.
    /// All of them in one transaction, the stored stays they could overlap read once and kept in memory with the ones
    /// this adds (under SQLite's write lock that is what the table holds). A query per stay for those stays, one for the
    /// visits nearby and one insert committed alone, each a trip through the pool to another thread, were 1.5 s of a
    /// million-point GPX import's 4.9 s of CPU (1,388 stays; perf, release build); SQLite now runs the loop on one thread.
    func offerEach(userID: String, _ candidates: [StayCandidate], source: String, settings: StaySettings, now: Date) async throws -> [OfferOutcome] {
        guard let from = candidates.lazy.map(\.arrival).min(), let to = candidates.lazy.map(\.departure).max() else { return [] }
        let near = StayOffer.sameplace(settings)
        return try await database.transaction { sql in
            var stored = try await LocationPointStore.overlappingStays(userID: userID, from: from, to: to, on: sql).map(Self.storedStay)
            if let session = sql as? SQLiteSession, let handle = session.rawHandle {
                return try await LocationPointSQLite.offer(candidates, stored: stored, settings: settings, userID: userID, source: source, now: now,
                                                           handle: handle)
            }
            var outcomes: [OfferOutcome] = []
            for stay in candidates {
                let places = try await LocationPointStore.visitsNear(userID: userID, latitude: stay.latitude, longitude: stay.longitude, meters: near, on: sql)
                guard let row = Self.stayRow(stay, settings: settings, storedStays: stored, visits: places, source: source),
                      try await LocationPointStore.insertStay(row, userID: userID, now: now, on: sql) else {
                    outcomes.append(.known)
                    continue
                }
                outcomes.append(row.status == .merged ? .merged : .offered)
                stored.append(Self.storedStay(row))
            }
            return outcomes
        }
    }

    typealias StoredStay = (arrival: Int64, departure: Int64, latitude: Double, longitude: Double)

    static func storedStay(_ stay: DetectedStay) -> StoredStay {
        (Int64(saturating: stay.arrival.timeIntervalSince1970), Int64(saturating: stay.departure.timeIntervalSince1970), stay.latitude, stay.longitude)
    }

    /// The row a found stay is stored as (offered, or merged with the visit that records it), or nil when it is already known.
    static func stayRow(_ stay: StayCandidate, settings: StaySettings, storedStays: [StoredStay], visits places: [StayOffer.Place],
                        source: String) -> DetectedStay? {
        let decision = StayOffer.decide(stay, settings: settings, storedStays: storedStays, visits: places)
        if decision == .known { return nil }
        let visitID: String? = if case let .merged(id) = decision { id } else { nil }
        return DetectedStay(id: UUID().uuidString.lowercased(), arrival: Date(timeIntervalSince1970: Double(stay.arrival)),
                            departure: Date(timeIntervalSince1970: Double(stay.departure)), latitude: stay.latitude, longitude: stay.longitude,
                            pointCount: stay.pointCount, name: StayOffer.name(for: stay, settings: settings, knownPlaces: places),
                            status: visitID == nil ? .open : .merged, visitId: visitID, source: source)
    }

    /// Every stored point of a person in time order, handed to `body` a page at a time (the takeout
    /// writes them out without holding a long history in memory).
    public func forEachPointPage(userID: String, _ body: ([LocationPoint]) throws -> Void) async throws {
        var after: (Int64, Double, Double)?
        while true {
            let page = try await LocationPointStore.points(userID: userID, from: Int64.min / 2, to: Int64.max / 2, after: after,
                                                           limit: Self.readPage, on: database.sql)
            try body(page)
            guard page.count == Self.readPage, let last = page.last else { return }
            after = (last.time, last.latitude, last.longitude)
        }
    }

    // MARK: stays

    public func stays(userID: String, status: StayStatus?, limit: Int = 500) async throws -> [DetectedStay] {
        try await LocationPointStore.stays(userID: userID, status: status, limit: limit, on: database.sql)
    }

    /// The stay becomes a visit signed into the person's chain like any other; claimed first, so two
    /// clicks make one visit.
    public func confirm(userID: String, id: String, name: String?, now: Date) async throws -> (DetectedStay, Visit) {
        guard let stay = try await LocationPointStore.stay(id: id, userID: userID, on: database.sql) else { throw LocationError.stayNotFound }
        guard stay.status == .open else { throw LocationError.stayDecided }
        let chosen = name?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == false ? name ?? stay.name : stay.name
        guard try await LocationPointStore.decide(id: id, userID: userID, status: .confirmed, visitID: nil, now: now, on: database.sql) else {
            throw LocationError.stayDecided
        }
        let visit: Visit
        do {
            visit = try await visits.create(userID: userID, fields: VisitFields(visitedAt: stay.arrival, latitude: stay.latitude, longitude: stay.longitude,
                                                                                name: chosen, labels: [Self.stayLabel]), now: now)
        } catch {
            // The visit was not made: the stay is offered again rather than lost.
            try? await database.sql.update(LocationStayRow.table).set("status", to: StayStatus.open.rawValue).set("decided_at", to: Int64?.none)
                .where("id", .equal, id).where("user_id", .equal, userID).run()
            throw error
        }
        try await database.sql.update(LocationStayRow.table).set("visit_id", to: visit.id).set("name", to: visit.fields.name)
            .where("id", .equal, id).where("user_id", .equal, userID).run()
        var confirmed = stay
        confirmed.status = .confirmed
        confirmed.visitId = visit.id
        confirmed.name = visit.fields.name
        return (confirmed, visit)
    }

    /// The label a visit made from a detected stay carries.
    public static let stayLabel = "stay"

    public func dismiss(userID: String, id: String, now: Date) async throws -> DetectedStay {
        guard var stay = try await LocationPointStore.stay(id: id, userID: userID, on: database.sql) else { throw LocationError.stayNotFound }
        guard stay.status == .open,
              try await LocationPointStore.decide(id: id, userID: userID, status: .dismissed, visitID: nil, now: now, on: database.sql) else {
            throw LocationError.stayDecided
        }
        stay.status = .dismissed
        return stay
    }

    public func hasPoints(userID: String) async throws -> Bool {
        try await LocationPointStore.hasPoints(userID: userID, on: database.sql)
    }

    public func pointCount(userID: String) async throws -> Int {
        try await LocationPointStore.pointCount(userID: userID, on: database.sql)
    }
}

/// A stream whose first bytes were looked at to tell the format, handed on whole.
final class SniffedStream: ByteStream {
    private let base: any ByteStream
    private var head: [UInt8] = []
    private var headOffset = 0

    init(_ base: any ByteStream) { self.base = base }

    /// The first byte that is not whitespace or a byte-order mark, or nil for an empty stream.
    func firstSignificantByte() throws -> UInt8? {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while head.count < 1 << 20 {
            let n = try scratch.withUnsafeMutableBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return try self.base.read(into: base, count: buffer.count)
            }
            if n == 0 { break }
            head += scratch[0..<n]
            if let byte = head.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }) {
                return byte
            }
        }
        return nil
    }

    /// The file's first `count` bytes (fewer when it is shorter), read ahead and handed on whole.
    func head(atLeast count: Int) throws -> [UInt8] {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while head.count < count {
            let n = try scratch.withUnsafeMutableBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return try self.base.read(into: base, count: buffer.count)
            }
            if n == 0 { break }
            head += scratch[0..<n]
        }
        return head
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if headOffset < head.count {
            let n = min(count, head.count - headOffset)
            head.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { return }
                buffer.update(from: base + headOffset, count: n)
            }
            headOffset += n
            return n
        }
        return try base.read(into: buffer, count: count)
    }
}

#if canImport(Glibc)
import Glibc

/// A file read with plain read(2), a buffer at a time (no mapping, no whole-file load).
public final class LocationFileStream: ByteStream {
    let descriptor: Int32

    public init(path: String) throws {
        descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw LocationError.importInvalid(position: path, reason: Text(en: "the file cannot be opened", ja: "ファイルを開けません"))
        }
    }

    deinit { close(descriptor) }

    public func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        while true {
            let n = Glibc.read(descriptor, buffer, count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw LocationError.importInvalid(position: "read", reason: Text(en: "the file cannot be read", ja: "ファイルを読み込めません"))
        }
    }
}
#endif
