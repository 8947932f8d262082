import Foundation

/// `visits/location-points.csv` of a Hibi takeout (`time,latitude,longitude`, ISO 8601 UTC, degrees, one
/// point a line) read back a buffer at a time, so a history of millions of points costs one batch of
/// memory. The file is Hibi's own and has no quoting; a line that is not three fields, a time, and a
/// place on the globe is skipped with its reason and line, never silently. Pure: no I/O.
public struct LocationPointsCSV: Sendable {
    public static let header = "time,latitude,longitude"
    /// The report's kind for these points.
    public static let kind = "point"
    /// Hibi writes lines of under 80 bytes; a far longer one is not this file.
    static let maxLineBytes = 4096

    public var report = ImportReport()
    /// Points read and not yet taken by the caller, in file order.
    public var points: [LocationPoint] = []
    private var lines = LineSplitter()
    private var line = 0

    public init() {}

    /// Reads the lines this buffer completes.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(LocationError) {
        // Taken out while it calls back into `take`, which changes the rest of self.
        var splitter = lines
        lines = LineSplitter()
        defer { lines = splitter }
        try splitter.feed(bytes) { (text: ArraySlice<UInt8>) throws(LocationError) in try take(text) }
        guard splitter.pendingCount <= Self.maxLineBytes else {
            throw .importInvalid(position: "line \(line + 1)", reason: Text(en: "the line is too long for a location point",
                                                                           ja: "位置情報の行としては長すぎます"))
        }
    }

    /// The last line, when the file does not end with a line break.
    public mutating func finish() throws(LocationError) {
        var splitter = lines
        lines = LineSplitter()
        defer { lines = splitter }
        try splitter.finish { (text: ArraySlice<UInt8>) throws(LocationError) in try take(text) }
        guard line > 0 else {
            throw .importInvalid(position: "line 1", reason: Text(en: "the file is empty", ja: "ファイルが空です"))
        }
    }

    private mutating func take(_ text: ArraySlice<UInt8>) throws(LocationError) {
        line += 1
        var bytes = text
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        if line == 1 {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            guard String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased() == Self.header else {
                throw .importInvalid(position: "line 1", reason: Text(en: "expected the header \(Self.header) (a Hibi takeout's visits/location-points.csv)",
                                                                      ja: "見出し行 \(Self.header) が必要です(Hibi のデータ書き出しの visits/location-points.csv)"))
            }
            return
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // a blank line, such as the one before the end
        let at = "line \(line)"
        let fields = bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
        guard fields.count == 3, !fields[0].isEmpty, let lat = Double(fields[1]), let lon = Double(fields[2]) else {
            report.skip(Self.kind, .missingValue, at: at)
            return
        }
        guard let time = LocationTime.parse(fields[0]) else {
            report.skip(Self.kind, .unparseableDate, at: at)
            return
        }
        guard TakeoutLocationReader.valid(lat, lon) else {
            report.skip(Self.kind, .outOfRange, at: at)
            return
        }
        points.append(LocationPoint(time: time, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon)))
    }
}
