import Foundation

/// An OwnTracks Recorder month file (`rec/USER/DEVICE/YYYY-MM.rec`), read a buffer at a time: one
/// message a line, `2024-01-01T10:00:00Z<tab or spaces>*<spaces><tab>{json}` (the recorder pads the
/// second field to 18 characters; files copied through editors have spaces for tabs). `location`
/// messages are kept (`tst`, the fix's own time, before the line's receive time); `lwt`,
/// `transition`, `waypoint`, `card`, `status` and the rest carry no new position and are skipped
/// with a reason under their own type. Pure: no I/O.
public struct OwnTracksRecorder: Sendable {
    public static let kind = "location"
    /// The recorder writes lines of a few hundred bytes (a card carries a small photo: 64 KB is generous).
    static let maxLineBytes = 256 * 1024
    /// The message types the recorder writes; any other `_type` is reported as "other" so a hostile
    /// file cannot grow the report with made-up names.
    static let knownTypes: Set<String> = ["lwt", "transition", "waypoint", "waypoints", "card", "cmd", "steps", "encrypted", "status",
                                          "beacon", "dump", "configuration", "request"]

    public var report = ImportReport()
    public var points: [LocationPoint] = []
    private var lines = LineSplitter()
    private var line = 0
    private var sawMessage = false

    public init() {}

    /// Whether a file's first bytes read as a recorder line: an ISO time, blanks, then a field and a `{`.
    public static func looksLike(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        guard let first = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true).first else { return false }
        let fields = first.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return fields.count >= 3 && LocationTime.parse(String(fields[0])) != nil && fields[2].hasPrefix("{")
    }

    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(LocationError) {
        var splitter = lines
        lines = LineSplitter()
        defer { lines = splitter }
        splitter.feed(bytes) { take($0) }
        guard splitter.pendingCount <= Self.maxLineBytes else {
            throw .importInvalid(position: "line \(line + 1)", reason: Text(en: "the line is too long for an OwnTracks message",
                                                                           ja: "OwnTracks のメッセージの行としては長すぎます"))
        }
    }

    public mutating func finish() throws(LocationError) {
        var splitter = lines
        lines = LineSplitter()
        defer { lines = splitter }
        splitter.finish { take($0) }
        guard sawMessage else {
            throw .importInvalid(position: "line 1", reason: Text(en: "no OwnTracks message in the file", ja: "ファイルに OwnTracks のメッセージがありません"))
        }
    }

    private mutating func take(_ text: ArraySlice<UInt8>) {
        line += 1
        var bytes = text
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        if line == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        let at = "line \(line)"
        // The time, the padded second field, then the JSON from the first "{" to the end of the line.
        guard let brace = bytes.firstIndex(of: UInt8(ascii: "{")) else {
            report.skip(Self.kind, .missingValue, at: at)
            return
        }
        sawMessage = true
        let timeEnd = bytes[..<brace].firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) ?? brace
        let received = LocationTime.parse(String(decoding: bytes[bytes.startIndex..<timeEnd], as: UTF8.self))
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes[brace...])) as? [String: Any] else {
            report.skip(Self.kind, .missingValue, at: at)
            return
        }
        let type = object["_type"] as? String ?? "other"
        guard type == "location" else {
            report.skip(Self.knownTypes.contains(type) ? type : "other", .unsupported, at: at)
            return
        }
        guard let lat = object["lat"].flatMap(JSONNumber.read), let lon = object["lon"].flatMap(JSONNumber.read) else {
            report.skip(Self.kind, .missingValue, at: at)
            return
        }
        let tst = object["tst"].flatMap(JSONNumber.read).flatMap { $0.isFinite && abs($0) < 1e12 ? Int64($0) : nil }
        guard let time = tst ?? received else {
            report.skip(Self.kind, .unparseableDate, at: at)
            return
        }
        guard TakeoutLocationReader.valid(lat, lon) else {
            report.skip(Self.kind, .outOfRange, at: at)
            return
        }
        let accuracy = object["acc"].flatMap(JSONNumber.read).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        points.append(LocationPoint(time: time, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon),
                                    accuracy: accuracy))
    }
}
