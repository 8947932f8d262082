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

    /// Garmin, Google Fit or Strava TCX: every trackpoint with a time and a position into the history.
    func importTCX(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        let parser = TCXStreamParser(stream: stream)
        var batch = Batch(userID: userID, source: "tcx", importID: UUID().uuidString.lowercased())
        batch.now = now
        while try parser.next(maxPoints: Self.batchSize) {
            try await batch.store(parser.takePoints(), kinds: [TCXStreamParser.kind], on: database)
        }
        try await batch.store(parser.takePoints(), kinds: [TCXStreamParser.kind], on: database)
        let stored = batch.report
        batch.report = parser.report
        batch.report.merge(stored)
        return try await finish(batch, visitsImported: 0, placeVisits: [], shape: "tcx", now: now)
    }

    /// A FIT activity (Garmin, Wahoo, Strava): record messages with a position into the history.
    func importFIT(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        let reader = FITReader(stream: stream)
        var batch = Batch(userID: userID, source: "fit", importID: UUID().uuidString.lowercased())
        batch.now = now
        var skipped = ImportReport()
        var more = true
        while more {
            do {
                more = try reader.next(maxRecords: Self.batchSize)
            } catch {
                throw LocationError.importInvalid(position: Self.position(error), reason: Self.reason(error))
            }
            let points = Self.points(reader.takeRecords(), skipped: &skipped)
            try await batch.store(points, kinds: [FITReader.kind], on: database)
        }
        let stored = batch.report
        batch.report = reader.report
        batch.report.merge(skipped)
        batch.report.merge(stored)
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
