import Foundation

/// A reader fed a file a buffer at a time that leaves its points for the caller to store (pure: no I/O).
protocol LocationLineReader {
    var report: ImportReport { get set }
    var points: [LocationPoint] { get set }
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(LocationError)
    mutating func finish() throws(LocationError)
}

extension LocationPointsCSV: LocationLineReader {}
extension OwnTracksRecorder: LocationLineReader {}

/// A Hibi takeout's location history (`visits/location-points.csv`) back into an account: the points
/// stored like any import's (a point already there is a duplicate), then stays detected over their span.
/// OwnTracks Recorder files take the same path, a line at a time.
extension LocationService {
    /// The `source` of points restored from a takeout.
    public static let takeoutSource = "hibi-takeout"

    func importPointsCSV(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        try await importLines(LocationPointsCSV(), kind: LocationPointsCSV.kind, userID: userID, source: Self.takeoutSource, shape: "hibi-csv",
                              stream: stream, now: now)
    }

    func importOwnTracksRecorder(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        try await importLines(OwnTracksRecorder(), kind: OwnTracksRecorder.kind, userID: userID, source: "owntracks-rec", shape: "owntracks-rec",
                              stream: stream, now: now)
    }

    func importLines<Reader: LocationLineReader>(_ reader: Reader, kind: String, userID: String, source: String, shape: String,
                                                 stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        var reader = reader
        var batch = Batch(userID: userID, source: source, importID: UUID().uuidString.lowercased())
        batch.now = now
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        while true {
            let n = try stream.read(into: chunk, count: 1 << 20)
            if n == 0 { break }
            try reader.feed(UnsafeBufferPointer(start: chunk, count: n))
            if reader.points.count >= Self.batchSize {
                try await batch.store(reader.points, kinds: [kind], on: database)
                reader.points.removeAll(keepingCapacity: true)
            }
        }
        try reader.finish()
        try await batch.store(reader.points, kinds: [kind], on: database)
        // What was stored and what was skipped, under one kind.
        let stored = batch.report
        batch.report = reader.report
        batch.report.merge(stored)
        return try await finish(batch, visitsImported: 0, placeVisits: [], shape: shape, now: now)
    }

    /// Garmin, Google Fit or Strava TCX: every trackpoint with a time and a position into the history, and the
    /// activity as a workout in Health (with its route, heart rate and the laps' distance).
    func importTCX(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        let parser = TCXStreamParser(stream: stream)
        var batch = Batch(userID: userID, source: "tcx", importID: UUID().uuidString.lowercased())
        batch.now = now
        var route = WorkoutRoute()
        while try parser.next(maxPoints: Self.batchSize) {
            let points = parser.takePoints()
            route.add(points)
            try await batch.store(points, kinds: [TCXStreamParser.kind], on: database)
        }
        let points = parser.takePoints()
        route.add(points)
        try await batch.store(points, kinds: [TCXStreamParser.kind], on: database)
        let stored = batch.report
        batch.report = parser.report
        batch.report.merge(stored)
        if let start = parser.firstTime, let end = parser.lastTime {
            let altitudes = Dictionary(parser.altitudes.map { ($0.time, $0.meters) }, uniquingKeysWith: { first, _ in first })
            let workout = route.workout(source: "TCX", sport: parser.sport, start: start, end: end, distanceMeters: parser.lapMeters,
                                        energyKcal: parser.lapCalories, heartRates: parser.heartRates.map(\.bpm),
                                        altitudes: parser.altitudes.map(\.meters), altitude: { altitudes[$0] })
            try await recordWorkout(workout, userID: userID, into: &batch.report)
        }
        return try await finish(batch, visitsImported: 0, placeVisits: [], shape: "tcx", now: now)
    }

    /// The positions a route file gave, kept (up to Health's limit for a route) for the workout it makes.
    struct WorkoutRoute {
        var points: [LocationPoint] = []
        var leftOut = 0
        /// The route's length in metres, point to point (to the file's last point, past the limit too).
        var meters = 0.0
        private var previous: LocationPoint?

        mutating func add(_ more: [LocationPoint]) {
            for point in more {
                if let previous {
                    meters += Geo.distance(lat1: previous.latitude, lon1: previous.longitude, lat2: point.latitude, lon2: point.longitude)
                }
                previous = point
                if points.count < RecordedWorkout.maxRoutePoints { points.append(point) } else { leftOut &+= 1 }
            }
        }

        func workout(source: String, sport: String?, start: Int64, end: Int64, distanceMeters: Double?, energyKcal: Double?,
                     heartRates: [Double], altitudes: [Double], altitude: (Int64) -> Double?) -> RecordedWorkout {
            RecordedWorkout(source: source, sport: sport, start: start, end: end,
                            distanceMeters: distanceMeters ?? (points.count > 1 ? meters : nil), energyKcal: energyKcal,
                            heartRates: heartRates, altitudes: altitudes,
                            route: points.map { TrackFile.Point(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, altitude: altitude($0.time)) },
                            routePointsLeftOut: leftOut)
        }
    }

    /// The workout through Health (`WorkoutRecorder`), its report joining the import's: added, already there, or skipped with the reason.
    func recordWorkout(_ workout: RecordedWorkout, userID: String, into report: inout ImportReport) async throws {
        guard let workouts else { return }
        report.merge(try await workouts.recordWorkout(workout, userID: userID))
    }

    /// A FIT activity (Garmin, Wahoo, Strava): record messages with a position into the history.
    func importFIT(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        let reader = FITReader(stream: stream)
        var batch = Batch(userID: userID, source: "fit", importID: UUID().uuidString.lowercased())
        batch.now = now
        var skipped = ImportReport()
        var more = true
        var route = WorkoutRoute()
        var span: (start: Int64, end: Int64)?
        var heartRates: [Double] = [], altitudes: [Double] = []
        var altitudeAt: [Int64: Double] = [:]
        while more {
            do {
                more = try reader.next(maxRecords: Self.batchSize)
            } catch {
                throw LocationError.importInvalid(position: Self.position(error), reason: Self.reason(error))
            }
            let records = reader.takeRecords()
            // What the workout reads of every record (also those without a position), bounded like its route.
            for record in records {
                span = (min(span?.start ?? record.time, record.time), max(span?.end ?? record.time, record.time))
                if let bpm = record.heartRate, bpm > 0, bpm < 255, heartRates.count < RecordedWorkout.maxRoutePoints { heartRates.append(bpm) }
                if let meters = record.altitude, altitudes.count < RecordedWorkout.maxRoutePoints {
                    altitudes.append(meters)
                    if record.latitude != nil, altitudeAt.count < RecordedWorkout.maxRoutePoints { altitudeAt[record.time] = altitudeAt[record.time] ?? meters }
                }
            }
            let points = Self.points(records, skipped: &skipped)
            route.add(points)
            try await batch.store(points, kinds: [FITReader.kind], on: database)
        }
        let stored = batch.report
        batch.report = reader.report
        batch.report.merge(skipped)
        batch.report.merge(stored)
        if let span {
            let workout = route.workout(source: "FIT", sport: reader.sport, start: span.start, end: span.end, distanceMeters: reader.totalMeters,
                                        energyKcal: reader.totalCalories, heartRates: heartRates, altitudes: altitudes, altitude: { altitudeAt[$0] })
            try await recordWorkout(workout, userID: userID, into: &batch.report)
        }
        return try await finish(batch, visitsImported: 0, placeVisits: [], shape: "fit", now: now)
    }

    /// The records that carry a position on the globe, the others counted as skipped.
    static func points(_ records: [FITReader.Record], skipped: inout ImportReport) -> [LocationPoint] {
        var points: [LocationPoint] = []
        points.reserveCapacity(records.count)
        for record in records {
            guard let lat = record.latitude, let lon = record.longitude else {
                skipped.skip(FITReader.kind, .missingValue)
                continue
            }
            guard TakeoutLocationReader.valid(lat, lon) else {
                skipped.skip(FITReader.kind, .outOfRange)
                continue
            }
            points.append(LocationPoint(time: record.time, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon)))
        }
        return points
    }

    static func position(_ failure: FITReader.Failure) -> String {
        switch failure {
        case .notFIT: "byte 1"
        case let .truncated(offset), let .malformed(_, offset): "byte \(offset &+ 1)"
        }
    }

    static func reason(_ failure: FITReader.Failure) -> Text {
        switch failure {
        case .notFIT: Text(en: "not a FIT file (no .FIT header)", ja: "FIT ファイルではありません(.FIT ヘッダーがありません)")
        case .truncated: Text(en: "the FIT file ends in the middle of a message (is it truncated?)",
                              ja: "FIT ファイルがメッセージの途中で終わっています(途中までしかコピーされていない可能性があります)")
        case let .malformed(what, _): Text(en: "the FIT file is malformed (\(what))", ja: "FIT ファイルの形式が正しくありません(\(what))")
        }
    }
}
