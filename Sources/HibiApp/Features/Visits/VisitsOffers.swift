import Foundation
import SQLKit

// Visits' side of the protocols in Shared/Offers/Offers+Visits.swift.
extension VisitService: PlaceRecorder {
    public func recordPlace(_ place: RecordedPlace, userID: String, now: Date) async throws -> String {
        let address = VisitAddress(country: place.country, region: place.region, locality: place.locality, street: place.street)
        let fields = VisitFields(visitedAt: place.visitedAt, latitude: place.latitude, longitude: place.longitude, name: place.name,
                                 address: address, labels: place.labels)
        return try await create(userID: userID, fields: fields, now: now).id
    }

    public func placePath(visitID: String) -> String { VisitPaths.visit(visitID) }
}

extension LocationService: LocationHistory {
    public func storeWorkoutPoints(_ points: [(time: Int64, latitude: Double, longitude: Double)], workoutID: String, userID: String,
                                   on sql: any SQLDatabase) async throws -> Int {
        try await storeWorkoutPoints(points.map { LocationPoint(time: $0.time, latitude: $0.latitude, longitude: $0.longitude) },
                                     workoutID: workoutID, userID: userID, on: sql)
    }

    public func readTrack(_ stream: any ByteStream, format: TrackFileFormat, maxPoints: Int) throws -> TrackFile {
        var track = TrackFile()
        switch format {
        case .tcx:
            let parser = TCXStreamParser(stream: stream)
            var located: [LocationPoint] = []
            while try parser.next(maxPoints: Self.batchSize) {
                located += parser.takePoints()
                guard located.count <= maxPoints else { throw TrackFileTooLarge() }
            }
            located += parser.takePoints()
            let altitudes = Dictionary(parser.altitudes.map { ($0.time, $0.meters) }, uniquingKeysWith: { first, _ in first })
            track.points = located.map { TrackFile.Point(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, altitude: altitudes[$0.time]) }
            track.times = located.map(\.time)
            track.altitudes = parser.altitudes.map(\.meters)
            track.heartRates = parser.heartRates.map(\.bpm)
            track.skipped = parser.report
        case .fit:
            let reader = FITReader(stream: stream)
            var records: [FITReader.Record] = []
            while try reader.next(maxRecords: Self.batchSize) {
                records += reader.takeRecords()
                guard records.count <= maxPoints else { throw TrackFileTooLarge() }
            }
            records += reader.takeRecords()
            let located = Self.points(records, skipped: &track.skipped)
            let altitudes = Dictionary(records.compactMap { r in r.altitude.map { (r.time, $0) } }, uniquingKeysWith: { first, _ in first })
            track.points = located.map { TrackFile.Point(time: $0.time, latitude: $0.latitude, longitude: $0.longitude, altitude: altitudes[$0.time]) }
            track.times = records.map(\.time)
            track.altitudes = records.compactMap(\.altitude)
            track.heartRates = records.compactMap(\.heartRate)
        }
        return track
    }
}

// What visits add to Journal's search and checklist.
extension VisitsFeature: SearchOffer, GettingStartedOffer {
    /// The database picks the candidates (it reads plaintext columns); the rule of what matches is the diary's.
    public func searchHits(_ search: JournalSearch) async throws -> [SearchHit] {
        let query = search.query
        let words = SearchText.normalize(query).split(whereSeparator: \.isWhitespace).map(String.init)
        let found = try await service.search(userID: search.user.id, words: words, limit: search.limit) { visit in
            let f = visit.fields
            let address = f.address.map { [$0.country, $0.postalCode, $0.region, $0.locality, $0.street] } ?? []
            return SearchGrouping.matches(query, [f.name, f.notes, f.group] + f.labels.map(Optional.some) + f.companions.map(Optional.some) + address)
        }
        return found.map { visit in
            SearchHit(domain: .visits, id: visit.id, title: visit.fields.name, snippet: String(visit.fields.notes.prefix(160)),
                      date: visit.fields.visitedAt, path: VisitPaths.visit(visit.id))
        }
    }

    public func gettingStartedSteps(userID: String) async throws -> [GettingStarted.Step] {
        Self.gettingStartedSteps(visits: try await service.count(userID: userID))
    }

    static func gettingStartedSteps(visits: Int) -> [GettingStarted.Step] {
        [GettingStarted.Step(key: "visit", title: Text(en: "Add a visit", ja: "訪問を追加する"),
                             help: Text(en: "A place you went, on the map.", ja: "行った場所を地図に残します。"),
                             href: VisitPaths.new, done: visits > 0)]
    }
}

// What visits add to the takeout: every visit as GeoJSON and GPX with the signed chain and its public key,
// the location history and the stays found in it, the saved places; visits, points and saved places are read back.
extension VisitsFeature: TakeoutOffer {
    public func writeTakeout(user: User, into archive: TakeoutArchive) async throws {
        let list = try await service.list(userID: user.id, filter: VisitFilter())
        let chain = try await service.chainExport(userID: user.id)
        try await archive.add("visits/visits.geojson", VisitFormats.geoJSON(list, chain: chain))
        try await archive.add("visits/visits.gpx", VisitFormats.gpx(list))
        try await archive.addJSON("visits/chain.json", chain)
        try await archive.add("visits/signing-public-key.txt", Data((chain.publicKey + "\n").utf8))
        // Location history: every stored point (spooled like the health records) and the stays found in it.
        let pointsPath = archive.spoolPath("csv")
        defer { try? FileManager.default.removeItem(atPath: pointsPath) }
        try await spoolLocations(userID: user.id, to: pointsPath)
        try await archive.add("visits/location-points.csv", try Data(contentsOf: URL(fileURLWithPath: pointsPath), options: .alwaysMapped))
        try await archive.addJSON("visits/stays.json", try await locations.stays(userID: user.id, status: nil, limit: 100_000))
        try await archive.add("visits/saved-places.geojson", GoogleSavedPlaces.geoJSON(try await service.allSavedPlaces(userID: user.id)))
    }

    public func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> [String: Int] {
        var visitCount = 0
        if let geoJSON = try reader.contents(of: "visits/visits.geojson") {
            // importAll finds a visit already there by its content key, so the same takeout twice adds nothing.
            let parsed = try VisitFormats.parseGeoJSON(geoJSON)
            if !parsed.isEmpty { visitCount = try await service.importAll(userID: user.id, visits: parsed, now: now).added }
        }
        var locationPoints = 0
        if let csv = try reader.contents(of: "visits/location-points.csv") {
            locationPoints = try await locations.importFile(userID: user.id, stream: MemoryByteStream(Array(csv)), now: now).pointsStored
        }
        var savedPlaces = 0
        if let geoJSON = try reader.contents(of: "visits/saved-places.geojson") {
            let parsed = try GoogleSavedPlaces.parse(geoJSON)
            savedPlaces = try await service.importSavedPlaces(userID: user.id, places: parsed.places, report: parsed.report, now: now).added
        }
        return ["visits": visitCount, "locationPoints": locationPoints, "savedPlaces": savedPlaces]
    }

    /// `time,latitude,longitude` (ISO 8601 UTC, degrees), one point a line, in time order.
    func spoolLocations(userID: String, to path: String) async throws {
        guard FileManager.default.createFile(atPath: path, contents: Data("time,latitude,longitude\n".utf8), attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? handle.close() }
        try handle.seekToEnd()
        let format = ISO8601DateFormatter()
        try await locations.forEachPointPage(userID: userID) { page in
            var text = ""
            for point in page {
                text += format.string(from: Date(timeIntervalSince1970: Double(point.time))) + ",\(point.latitude),\(point.longitude)\n"
            }
            try handle.write(contentsOf: Data(text.utf8))
        }
    }
}

/// The visits signing key as a backup names it (`BackupSigningKey`): read from a database or an older version's
/// key file, never made.
public struct VisitsSigningKey: BackupSigningKey {
    public init() {}

    public func storedPublicKey(_ sql: any SQLDatabase, box: SealedBoxService) async throws -> String? {
        try await VisitSigner.storedPublicKey(sql, box: box)
    }

    public func legacyFilePublicKey(dataDirectory: String) throws -> String? {
        let path = (dataDirectory as NSString).appendingPathComponent(VisitSigner.fileName)
        return try VisitSigner.readFile(path: path)?.publicKey.rawRepresentation.base64EncodedString()
    }
}

extension VisitsFeature: DayPageOffer {
    /// A day with at most this many visits; more is a sign of generated data, and Visits' own list shows them all.
    static let dayLimit = 500

    public func dayPart(_ day: DayQuery) async throws -> DayPart {
        let visits = try await service.list(userID: day.user.id, filter: VisitFilter(from: day.interval.start, to: day.interval.end))
            .sorted { $0.fields.visitedAt < $1.fields.visitedAt }
        return VisitDayViews.part(visits: Array(visits.prefix(Self.dayLimit)), day: day)
    }

    /// The same date in each earlier year back to the first visit: one small read a year, not every visit ever.
    public func memories(_ day: DayQuery) async throws -> DayMemories {
        guard let first = try await service.firstVisitDate(userID: day.user.id) else { return VisitDayViews.memories([], day: day) }
        let key = day.key
        var earlier: [Visit] = []
        // At most a century back: a far-future date asked for by hand must not become thousands of reads.
        for year in stride(from: key.year - 1, through: max(1970, DayKey(first, timeZone: day.timeZone).year, key.year - 100), by: -1) {
            guard let date = DayKey(String(format: "%04d-%02d-%02d", year, key.month, key.day)) else { continue }  // 29 February
            let span = date.interval(in: day.timeZone)
            earlier += try await service.list(userID: day.user.id, filter: VisitFilter(from: span.start, to: span.end))
        }
        return VisitDayViews.memories(earlier, day: day)
    }
}

extension VisitsFeature: OverviewOffer {
    /// The range's visits, and (for reviews and insights) which were a first visit to their place: that needs all
    /// history, read as the map's light list, which then gives the range's visits too (names and places, no labels:
    /// neither uses labels).
    public func dayFigures(_ range: DayRange) async throws -> [DayKey: DaySummary] {
        let userID = range.user.id, start = range.span.start, end = range.span.end
        guard range.purpose != .days else {
            let visits = try await service.list(userID: userID, filter: VisitFilter(from: start, to: end))
            return VisitMark.figures(visits.map { VisitMark(id: $0.id, at: $0.fields.visitedAt, name: $0.fields.name, latitude: $0.fields.latitude,
                                                             longitude: $0.fields.longitude, labels: $0.fields.labels) },
                                     newPlaces: [], span: range.span)
        }
        let history = try await service.allMapPoints(userID: userID).filter { $0.at < end }
            .map { VisitMark(id: $0.id, at: $0.at, name: $0.name, latitude: $0.lat, longitude: $0.lon) }
        return VisitMark.figures(history.filter { $0.at >= start }, newPlaces: VisitMark.newPlaceVisits(history), span: range.span)
    }

    public func firstRecorded(user: User, diaryOpen: Bool) async throws -> Date? {
        try await service.firstVisitDate(userID: user.id)
    }
}
