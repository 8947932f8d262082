import Foundation

/// Strava's bulk export ("Download your data"): `activities.csv` at the archive's root, one row per activity,
/// naming its file under `activities/` (`.gpx`, `.tcx`, `.fit`, the last two often gzipped). Pure: the CSV's
/// header and rows in, workouts out; the archive and the database are the importer's.
public enum StravaExport {
    /// The report's kind for an activity's file (its route): added with its points, or skipped with a reason.
    public static let fileKind = "Strava activity file"
    /// The `device` of a workout Strava's export made, part of its identity.
    public static let device = "Strava"

    /// Where each needed column is, found by name. Strava's header names some columns twice: the first
    /// `Elapsed Time`/`Distance`/`Max Heart Rate` are the summary in the account's units (km or miles),
    /// the later ones the detail in seconds and metres; older exports have only the first.
    public struct Columns: Equatable, Sendable {
        var id: Int
        var date: Int
        var type: Int
        var name: Int?
        var filename: Int?
        var elapsed: Int?
        var moving: Int?
        /// The metres column (the later `Distance`), when the header has two.
        var distanceMeters: Int?
        /// The only `Distance` of an older export, in kilometres.
        var distanceKm: Int?
        var elevationGain: Int?
        var averageHeartRate: Int?
        var maxHeartRate: Int?
        var calories: Int?
    }

    public enum HeaderProblem: Error, Equatable, Sendable {
        /// A column without which no activity can be read (`Activity ID`, `Activity Date`, `Activity Type`).
        case missingColumn(String)

        public var text: Text {
            switch self {
            case let .missingColumn(name):
                Text(en: "activities.csv has no \"\(name)\" column (Hibi reads the English header of Strava's export; set the account's language to English and export again)",
                     ja: "activities.csv に「\(name)」列がありません(Hibi は Strava のエクスポートの英語の見出しを読みます。アカウントの言語を英語にしてもう一度エクスポートしてください)")
            }
        }
    }

    public static func columns(_ header: [String]) throws(HeaderProblem) -> Columns {
        let names = header.map { $0.replacingOccurrences(of: "\u{FEFF}", with: "").trimmingCharacters(in: .whitespacesAndNewlines) }
        func all(_ name: String) -> [Int] { names.indices.filter { names[$0].caseInsensitiveCompare(name) == .orderedSame } }
        func first(_ name: String) -> Int? { all(name).first }
        func last(_ name: String) -> Int? { all(name).last }
        guard let id = first("Activity ID") else { throw .missingColumn("Activity ID") }
        guard let date = first("Activity Date") else { throw .missingColumn("Activity Date") }
        guard let type = first("Activity Type") else { throw .missingColumn("Activity Type") }
        let distances = all("Distance")
        let elapsed = all("Elapsed Time")
        return Columns(id: id, date: date, type: type, name: first("Activity Name"), filename: first("Filename"),
                       elapsed: elapsed.last, moving: last("Moving Time"),
                       distanceMeters: distances.count > 1 ? distances.last : nil, distanceKm: distances.count == 1 ? distances.first : nil,
                       elevationGain: last("Elevation Gain"), averageHeartRate: last("Average Heart Rate"), maxHeartRate: last("Max Heart Rate"),
                       calories: last("Calories"))
    }

    /// One row of activities.csv as read.
    public struct Activity: Equatable, Sendable {
        public var id: String
        public var activity: String
        public var name: String?
        /// The export's start time (UTC), nil when the date is in a form Hibi does not read (the file's first point is used then).
        public var start: Int64?
        public var elapsedSeconds: Double?
        public var movingSeconds: Double?
        public var distanceKm: Double?
        public var elevationGainM: Double?
        public var averageHeartRate: Double?
        public var maxHeartRate: Double?
        public var energyKcal: Double?
        /// The archive member, as the CSV names it (`activities/123.fit.gz`), nil for an activity entered by hand.
        public var file: String?
    }

    public static func activity(_ row: [String], columns c: Columns) -> Activity? {
        func field(_ index: Int?) -> String? {
            guard let index, index < row.count else { return nil }
            let value = row[index].trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        func number(_ index: Int?) -> Double? {
            guard let text = field(index), let value = Double(text.replacingOccurrences(of: ",", with: "")), value.isFinite, value >= 0 else { return nil }
            return value
        }
        guard let id = field(c.id), let type = field(c.type) else { return nil }
        let km = number(c.distanceMeters).map { $0 / 1000 } ?? number(c.distanceKm)
        return Activity(id: String(id.prefix(40)), activity: activity(type), name: field(c.name).map { String($0.prefix(200)) },
                        start: field(c.date).flatMap(parseDate), elapsedSeconds: number(c.elapsed), movingSeconds: number(c.moving),
                        distanceKm: km, elevationGainM: number(c.elevationGain), averageHeartRate: number(c.averageHeartRate).flatMap(heartRate),
                        maxHeartRate: number(c.maxHeartRate).flatMap(heartRate), energyKcal: number(c.calories), file: field(c.filename))
    }

    static func heartRate(_ bpm: Double) -> Double? { bpm > 0 && bpm < 300 ? bpm : nil }

    /// Strava's sport types as the workout activities Hibi already keeps (Apple's names, as the Apple Health
    /// and Health Auto Export imports store them); a type not listed is kept under its own name, spaces removed.
    static let activities: [String: String] = [
        "Run": "Running", "Trail Run": "Running", "TrailRun": "Running", "Virtual Run": "Running", "VirtualRun": "Running",
        "Ride": "Cycling", "Virtual Ride": "Cycling", "VirtualRide": "Cycling", "E-Bike Ride": "Cycling", "EBikeRide": "Cycling",
        "Mountain Bike Ride": "Cycling", "MountainBikeRide": "Cycling", "Gravel Ride": "Cycling", "GravelRide": "Cycling",
        "Walk": "Walking", "Hike": "Hiking", "Swim": "Swimming", "Rowing": "Rowing", "Virtual Row": "Rowing",
        "Alpine Ski": "DownhillSkiing", "AlpineSki": "DownhillSkiing", "Backcountry Ski": "CrossCountrySkiing",
        "Nordic Ski": "CrossCountrySkiing", "NordicSki": "CrossCountrySkiing", "Snowboard": "Snowboarding",
        "Yoga": "Yoga", "Weight Training": "TraditionalStrengthTraining", "WeightTraining": "TraditionalStrengthTraining",
        "Elliptical": "Elliptical", "Stair-Stepper": "StairClimbing", "StairStepper": "StairClimbing",
        "Kayaking": "PaddleSports", "Canoeing": "PaddleSports", "Stand Up Paddling": "PaddleSports", "StandUpPaddling": "PaddleSports",
        "Rock Climbing": "Climbing", "RockClimbing": "Climbing", "Inline Skate": "SkatingSports", "Ice Skate": "SkatingSports",
        "Surfing": "SurfingSports", "Golf": "Golf", "Soccer": "Soccer", "Tennis": "Tennis", "Pilates": "Pilates",
        "Workout": "Other", "HIIT": "HighIntensityIntervalTraining", "Crossfit": "CrossTraining",
    ]

    public static func activity(_ type: String) -> String {
        if let known = activities[type] { return known }
        let joined = type.split(whereSeparator: { $0 == " " || $0 == "-" }).joined()
        return joined.isEmpty ? "Other" : String(joined.prefix(60))
    }

    /// "Oct 7, 2020, 2:43:11 PM" (the English export, in UTC), or an ISO-8601 time.
    public static func parseDate(_ text: String) -> Int64? {
        if let iso = LocationTime.parse(text) { return iso }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["MMM d, yyyy, h:mm:ss a", "MMM d, yyyy h:mm:ss a", "yyyy-MM-dd HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return Int64(exactly: date.timeIntervalSince1970.rounded()) }
        }
        return nil
    }

    /// What the activity's file adds when the CSV is silent: the points' altitude climbed and heart rates.
    public struct FileSummary: Equatable, Sendable {
        public var start: Int64?
        public var end: Int64?
        public var elevationGainM: Double?
        public var averageHeartRate: Double?
        public var maxHeartRate: Double?
    }

    /// Metres climbed: the rises between consecutive altitudes, each counted once it passes `threshold`
    /// metres above the lowest point since the last count (GPS and barometer noise of a metre or two would
    /// otherwise add up to hundreds of metres on a flat ride).
    public static func elevationGain(_ altitudes: [Double], threshold: Double = 2) -> Double? {
        guard var base = altitudes.first else { return nil }
        var gain = 0.0
        for altitude in altitudes.dropFirst() where altitude.isFinite {
            if altitude < base {
                base = altitude
            } else if altitude - base >= threshold {
                gain += altitude - base
                base = altitude
            }
        }
        return gain
    }

    public static func summary(times: [Int64], altitudes: [Double], heartRates: [Double]) -> FileSummary {
        let rates = heartRates.compactMap(heartRate)
        return FileSummary(start: times.min(), end: times.max(), elevationGainM: elevationGain(altitudes),
                           averageHeartRate: rates.isEmpty ? nil : (rates.reduce(0, +) / Double(rates.count)).rounded(),
                           maxHeartRate: rates.max())
    }

    /// The workout an activity makes: the CSV's numbers first, the file's where the CSV has none. Nil when
    /// neither gives a start time.
    public static func workout(_ activity: Activity, file: FileSummary?) -> AppleHealthWorkout? {
        guard let start = activity.start ?? file?.start, AppleHealthMapping.plausible(start) else { return nil }
        let seconds = activity.elapsedSeconds ?? file.flatMap { f in f.end.map { Double($0 &- (f.start ?? $0)) } } ?? 0
        guard seconds.isFinite, seconds >= 0, seconds < 30 * 86400 else { return nil }
        let end = start &+ (Int64(exactly: seconds.rounded()) ?? 0)
        let minutes = seconds / 60
        var details: [(String, String)] = [("source", device), ("id", activity.id)]
        if let name = activity.name { details.append(("name", name)) }
        if let moving = activity.movingSeconds { details.append(("movingMinutes", AppleHealthMapping.number((moving / 60 * 10).rounded() / 10))) }
        if let gain = activity.elevationGainM ?? file?.elevationGainM { details.append(("elevationAscentM", AppleHealthMapping.number(gain.rounded()))) }
        if let average = activity.averageHeartRate ?? file?.averageHeartRate { details.append(("heartRateAvg", AppleHealthMapping.number(average.rounded()))) }
        if let max = activity.maxHeartRate ?? file?.maxHeartRate { details.append(("heartRateMax", AppleHealthMapping.number(max.rounded()))) }
        let record = HealthRecordDraft(type: HealthDataType.workout.rawValue, value: minutes, category: activity.activity, unit: "min",
                                       start: start, end: end, device: device, details: AppleHealthMapping.json(details))
        return AppleHealthWorkout(record: record, activity: activity.activity, durationMinutes: minutes, distanceKm: activity.distanceKm,
                                  energyKcal: activity.energyKcal)
    }
}
