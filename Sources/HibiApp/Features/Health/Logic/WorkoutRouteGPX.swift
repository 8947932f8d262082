import Foundation

/// A `workout-routes/*.gpx` file of an Apple Health export: its track points, read with the project's
/// streaming XML reader (bounded like every XML Hibi reads). Each `<trkpt>` is either a point or a skip.
/// Strava's and Garmin's GPX also carry a heart rate per point in Garmin's TrackPointExtension
/// (`<gpxtpx:hr>`, `<ns3:hr>`: the prefix is whatever the file binds), read for the workout's average and maximum.
public enum WorkoutRouteGPX {
    public static let limits = XMLLimits(maxValueBytes: 4 * 1024, maxTagBytes: 16 * 1024, maxAttributes: 32, maxDepth: 16)

    public static func parse(_ stream: any ByteStream, maxPoints: Int = AppleHealthExportParser.maxRoutePoints) throws
        -> (points: [WorkoutRoutePoint], skips: [ImportSkip]) {
        let track = try read(stream, maxPoints: maxPoints)
        return (track.points, track.skips)
    }

    /// The points, the skips, and the heart rates (beats per minute) of the points that carried one.
    public static func read(_ stream: any ByteStream, maxPoints: Int = AppleHealthExportParser.maxRoutePoints) throws
        -> (points: [WorkoutRoutePoint], skips: [ImportSkip], heartRates: [Double]) {
        let reader = XMLStreamReader(stream: stream, limits: limits, reportsText: true)
        var points: [WorkoutRoutePoint] = []
        var skips: [ImportSkip] = []
        var heartRates: [Double] = []
        var open: (lat: Double?, lon: Double?, ele: Double?, time: String?, hr: Double?, line: Int)?
        var field = ""
        while let event = try reader.nextEvent() {
            switch event {
            case let .start(name, attributes):
                if name == "trkpt" {
                    open = (attributes.first { $0.name == "lat" }.flatMap { Double($0.value) },
                            attributes.first { $0.name == "lon" }.flatMap { Double($0.value) }, nil, nil, nil, reader.line)
                }
                field = name
            case let .text(text):
                guard open != nil else { continue }
                let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if field == "ele" { open?.ele = Double(value).flatMap { $0.isFinite ? $0 : nil } }
                else if field == "time" { open?.time = value }
                else if field == "hr" || field.hasSuffix(":hr") { open?.hr = Double(value).flatMap(StravaExport.heartRate) }
            case let .end(name):
                field = ""
                guard name == "trkpt", let point = open else { continue }
                open = nil
                let at = "line \(point.line)"
                guard let lat = point.lat, let lon = point.lon, let text = point.time else {
                    skips.append(ImportSkip(kind: "trkpt", reason: .missingValue, at: at)); continue
                }
                guard let t = parseTime(text) else { skips.append(ImportSkip(kind: "trkpt", reason: .unparseableDate, at: at)); continue }
                guard WorkoutRoutePoint.valid(lat: lat, lon: lon), AppleHealthMapping.plausible(t) else {
                    skips.append(ImportSkip(kind: "trkpt", reason: .outOfRange, at: at)); continue
                }
                guard points.count < maxPoints else { skips.append(ImportSkip(kind: "trkpt", reason: .tooMany, at: at)); continue }
                points.append(WorkoutRoutePoint(t: t, lat: lat, lon: lon, ele: point.ele))
                if let hr = point.hr { heartRates.append(hr) }
            }
        }
        return (points, skips, heartRates)
    }

    /// "2019-06-11T22:00:42Z", with or without fractional seconds.
    static func parseTime(_ text: String) -> Int64? {
        guard let dot = text.firstIndex(of: ".") else { return AppleHealthMapping.parseDate(text) }
        let rest = text[text.index(after: dot)...].drop { $0.isNumber }
        return AppleHealthMapping.parseDate(String(text[..<dot]) + rest)
    }
}
