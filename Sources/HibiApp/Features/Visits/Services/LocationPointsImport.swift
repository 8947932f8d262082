import Foundation

/// A Hibi takeout's location history (`visits/location-points.csv`) back into an account: the points
/// stored like any import's (a point already there is a duplicate), then stays detected over their span.
extension LocationService {
    /// The `source` of points restored from a takeout.
    public static let takeoutSource = "hibi-takeout"

    func importPointsCSV(userID: String, stream: any ByteStream, now: Date) async throws -> LocationImportResult {
        var reader = LocationPointsCSV()
        var batch = Batch(userID: userID, source: Self.takeoutSource, importID: UUID().uuidString.lowercased())
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        while true {
            let n = try stream.read(into: chunk, count: 1 << 20)
            if n == 0 { break }
            try reader.feed(UnsafeBufferPointer(start: chunk, count: n))
            if reader.points.count >= Self.batchSize {
                try await batch.store(reader.points, kinds: [LocationPointsCSV.kind], on: database)
                reader.points.removeAll(keepingCapacity: true)
            }
        }
        try reader.finish()
        try await batch.store(reader.points, kinds: [LocationPointsCSV.kind], on: database)
        // What was stored and what was skipped, under one kind.
        let stored = batch.report
        batch.report = reader.report
        batch.report.merge(stored)
        return try await finish(batch, visitsImported: 0, placeVisits: [], shape: "hibi-csv", now: now)
    }
}
