import Foundation

/// A Training Center XML file (Garmin Connect, Google Fit, Strava's export) read from a stream in
/// steps like `GPXStreamParser`: every `<Trackpoint>` with a `<Time>` and a `<Position>` becomes a point
/// of the location history. Altitude and heart rate are read for the workout a Strava export makes
/// (`heartRates`), not kept in the location history, which holds time and place only. A trackpoint
/// without a position (an indoor ride, a heart-rate-only second) is skipped with a reason.
public final class TCXStreamParser {
    public static let kind = "Trackpoint"
    private let reader: XMLStreamReader
    public private(set) var report = ImportReport()
    private var points: [LocationPoint] = []
    /// (time, beats per minute) of the trackpoints that carried a heart rate.
    public private(set) var heartRates: [(time: Int64, bpm: Double)] = []
    /// (time, metres) of the trackpoints with a position that carried an altitude, for a workout's route.
    public private(set) var altitudes: [(time: Int64, meters: Double)] = []
    public private(set) var sawRoot = false
    /// What the file says of the activity, for the workout a TCX uploaded alone makes: its `Sport`, the laps'
    /// distance and calories added up, and the first and last trackpoint time.
    public private(set) var sport: String?
    public private(set) var lapMeters: Double?
    public private(set) var lapCalories: Double?
    public private(set) var firstTime: Int64?
    public private(set) var lastTime: Int64?
    /// Inside a lap's own `<DistanceMeters>` or `<Calories>` (not a trackpoint's running distance).
    private var lapField: String?
    private var ended = false
    private var stack: [String] = []
    private var text = ""
    private var point: (time: Int64?, badTime: Bool, lat: Double?, lon: Double?, bpm: Double?, ele: Double?, line: Int)?
    /// Heart rates are kept for one activity (a Strava export's file), not for a year of them.
    static let maxHeartRates = 200_000

    public init(stream: any ByteStream) {
        reader = XMLStreamReader(stream: stream, limits: XMLLimits(), reportsText: true)
    }

    /// Whether a file's first bytes hold a TCX root element.
    public static func looksLike(_ head: [UInt8]) -> Bool {
        String(decoding: head.prefix(8192), as: UTF8.self).contains("<TrainingCenterDatabase")
    }

    /// Reads until `maxPoints` points are waiting or the file ends; false once it has ended.
    public func next(maxPoints: Int) throws(LocationError) -> Bool {
        guard !ended else { return false }
        do {
            while points.count < maxPoints {
                guard let token = try reader.nextToken() else {
                    ended = true
                    guard sawRoot else { throw Self.invalid(1, "expected a <TrainingCenterDatabase> document", "<TrainingCenterDatabase> 文書が必要です") }
                    return false
                }
                switch token {
                case let .start(name):
                    let local = GPXReader.local(name)
                    text = ""
                    if !sawRoot {
                        guard local == "TrainingCenterDatabase" else {
                            throw Self.invalid(reader.line, "expected a <TrainingCenterDatabase> document", "<TrainingCenterDatabase> 文書が必要です")
                        }
                        sawRoot = true
                    }
                    if local == "Trackpoint" { point = (nil, false, nil, nil, nil, nil, reader.line) }
                    if local == "Activity", sport == nil, let name = reader.attributes.string(named: "Sport") { sport = String(name.prefix(60)) }
                    if (local == "DistanceMeters" || local == "Calories"), stack.last == "Lap" { lapField = local }
                    stack.append(local)
                case let .end(name):
                    end(GPXReader.local(name))
                    if !stack.isEmpty { stack.removeLast() }
                    text = ""
                case let .text(run): if point != nil || lapField != nil { text += run }
                }
            }
            return true
        } catch let error as XMLStreamError {
            throw Self.invalid(error.line, "not well-formed XML (\(error.text.en))", "XML の形式が正しくありません(\(error.text.ja))")
        } catch let error as LocationError {
            throw error
        } catch {
            throw Self.invalid(reader.line, "the file cannot be read", "ファイルを読み込めません")
        }
    }

    static func invalid(_ line: Int, _ en: String, _ ja: String) -> LocationError {
        .importInvalid(position: "line \(line)", reason: Text(en: en, ja: ja))
    }

    public func takePoints() -> [LocationPoint] {
        defer { points.removeAll(keepingCapacity: true) }
        return points
    }

    private func parent(_ depth: Int) -> String? {
        stack.count > depth ? stack[stack.count - 1 - depth] : nil
    }

    private func end(_ name: String) {
        if let field = lapField, field == name {
            lapField = nil
            if let value = Double(GPXReader.trimmed(text)), value.isFinite, value >= 0 {
                if field == "DistanceMeters" { lapMeters = (lapMeters ?? 0) + value } else { lapCalories = (lapCalories ?? 0) + value }
            }
            return
        }
        guard point != nil else { return }
        let value = GPXReader.trimmed(text)
        switch name {
        case "Time" where parent(1) == "Trackpoint":
            if let time = LocationTime.parse(value) { point?.time = time } else { point?.badTime = true }
        case "LatitudeDegrees" where parent(1) == "Position": point?.lat = Double(value)
        case "LongitudeDegrees" where parent(1) == "Position": point?.lon = Double(value)
        case "Value" where parent(1) == "HeartRateBpm": point?.bpm = Double(value)
        case "AltitudeMeters" where parent(1) == "Trackpoint": point?.ele = Double(value)
        case "Trackpoint":
            guard let p = point else { return }
            point = nil
            guard let time = p.time, !p.badTime else {
                report.skip(Self.kind, p.badTime ? .unparseableDate : .missingValue, at: "line \(p.line)")
                return
            }
            firstTime = min(firstTime ?? time, time)
            lastTime = max(lastTime ?? time, time)
            if let bpm = p.bpm, bpm.isFinite, bpm > 0, bpm < 300, heartRates.count < Self.maxHeartRates { heartRates.append((time, bpm)) }
            guard let lat = p.lat, let lon = p.lon else {
                report.skip(Self.kind, .missingValue, at: "line \(p.line)")
                return
            }
            guard TakeoutLocationReader.valid(lat, lon) else {
                report.skip(Self.kind, .outOfRange, at: "line \(p.line)")
                return
            }
            if let ele = p.ele, ele.isFinite, abs(ele) < 20_000, altitudes.count < Self.maxHeartRates { altitudes.append((time, ele)) }
            points.append(LocationPoint(time: time, latitude: VisitRules.roundCoordinate(lat), longitude: VisitRules.roundCoordinate(lon)))
        default: break
        }
    }
}
