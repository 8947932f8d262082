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
        /// The header's language (`Language.code`).
        var language: String
        var id: Int
        var date: Int
        var type: Int
        var name: Int?
        var filename: Int?
        var elapsed: Int?
        var moving: Int?
        /// The metres column (the later `Distance`), when the header has two.
        var distanceMeters: Int?
        /// The first `Distance`: the summary (the only one of an older export, in kilometres).
        var distanceKm: Int?
        var elevationGain: Int?
        var averageHeartRate: Int?
        var maxHeartRate: Int?
        var calories: Int?
    }

    /// The column names of one language Strava writes the export in (it follows the account's language).
    /// Only languages seen in real exports are listed (Tests/Fixtures/strava/SOURCES.md); a name nil is a
    /// column not confirmed in that language, left unread.
    public struct Language: Sendable {
        public var code: String
        var id: String, date: String, type: String
        var name: String?, filename: String?, elapsed: String?, moving: String?, distance: String?
        var elevationGain: String?, averageHeartRate: String?, maxHeartRate: String?, calories: String?
        /// Sport types as this language writes them, mapped to the English ones of `activities`.
        var types: [String: String] = [:]
        /// The summary columns' decimal separator (the detail columns always use a point).
        var decimalComma = false
        /// `Activity Date` as this language writes it (UTC), after ISO 8601.
        var dateFormats: [(locale: String, format: String)]
    }

    public static let languages: [Language] = [
        Language(code: "en", id: "Activity ID", date: "Activity Date", type: "Activity Type", name: "Activity Name", filename: "Filename",
                 elapsed: "Elapsed Time", moving: "Moving Time", distance: "Distance", elevationGain: "Elevation Gain",
                 averageHeartRate: "Average Heart Rate", maxHeartRate: "Max Heart Rate", calories: "Calories",
                 dateFormats: [("en_US_POSIX", "MMM d, yyyy, h:mm:ss a"), ("en_US_POSIX", "MMM d, yyyy h:mm:ss a"), ("en_US_POSIX", "yyyy-MM-dd HH:mm:ss")]),
        Language(code: "de", id: "Aktivitäts-ID", date: "Aktivitätsdatum", type: "Aktivitätsart", name: "Name der Aktivität", filename: "Dateiname",
                 elapsed: "Verstrichene Zeit", moving: "Bewegungszeit", distance: "Distanz", elevationGain: "Höhenzunahme",
                 averageHeartRate: "Durchschnittliche Herzfrequenz", maxHeartRate: "Max. Herzfrequenz", calories: "Kalorien",
                 types: ["Lauf": "Run", "Radfahrt": "Ride"], decimalComma: true,
                 dateFormats: [("de_DE", "dd.MM.yyyy, HH:mm:ss"), ("de_DE", "d. MMM yyyy, HH:mm:ss")]),
        Language(code: "fr", id: "ID de l'activité", date: "Date de l'activité", type: "Type d'activité", name: "Nom de l'activité",
                 filename: "Nom du fichier", elapsed: "Temps écoulé", moving: "Durée de déplacement", distance: "Distance",
                 elevationGain: "Dénivelé positif", averageHeartRate: "Fréquence cardiaque moyenne", maxHeartRate: "Fréquence cardiaque max.",
                 calories: nil,
                 types: ["Course à pied": "Run", "Vélo": "Ride", "Natation": "Swim", "Marche": "Walk", "Randonnée": "Hike"], decimalComma: true,
                 dateFormats: [("fr_FR", "d MMM yyyy, HH:mm:ss"), ("fr_FR", "d MMM yyyy HH:mm:ss")]),
    ]

    public enum HeaderProblem: Error, Equatable, Sendable {
        /// A column without which no activity can be read (`Activity ID`, `Activity Date`, `Activity Type`, or
        /// their names in the language the header is in).
        case missingColumn(String)

        public var text: Text {
            switch self {
            case let .missingColumn(name):
                Text(en: "activities.csv has no \"\(name)\" column (Hibi reads Strava's export in English, German and French; set the account's language to one of them and export again)",
                     ja: "activities.csv に「\(name)」列がありません(Hibi が読める Strava のエクスポートは英語・ドイツ語・フランス語です。アカウントの言語をそのいずれかにしてもう一度エクスポートしてください)")
            }
        }
    }

    public static func columns(_ header: [String]) throws(HeaderProblem) -> Columns {
        let names = header.map { $0.replacingOccurrences(of: "\u{FEFF}", with: "").trimmingCharacters(in: .whitespacesAndNewlines) }
        func all(_ name: String?) -> [Int] {
            guard let name else { return [] }
            return names.indices.filter { names[$0].caseInsensitiveCompare(name) == .orderedSame }
        }
        func first(_ name: String?) -> Int? { all(name).first }
        func last(_ name: String?) -> Int? { all(name).last }
        // The language is the one whose `Activity ID` the header has; none: the English name is missing.
        let language = languages.first { !all($0.id).isEmpty } ?? languages[0]
        guard let id = first(language.id) else { throw .missingColumn(language.id) }
        guard let date = first(language.date) else { throw .missingColumn(language.date) }
        guard let type = first(language.type) else { throw .missingColumn(language.type) }
        let distances = all(language.distance)
        let elapsed = all(language.elapsed)
        return Columns(language: language.code, id: id, date: date, type: type, name: first(language.name), filename: first(language.filename),
                       elapsed: elapsed.last, moving: last(language.moving),
                       distanceMeters: distances.count > 1 ? distances.last : nil, distanceKm: distances.first,
                       elevationGain: last(language.elevationGain), averageHeartRate: last(language.averageHeartRate),
                       maxHeartRate: last(language.maxHeartRate), calories: last(language.calories))
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
        let language = languages.first { $0.code == c.language } ?? languages[0]
        func number(_ index: Int?) -> Double? {
            guard let text = field(index), let value = Double(normalized(text, decimalComma: language.decimalComma)), value.isFinite, value >= 0 else { return nil }
            return value
        }
        guard let id = field(c.id), let type = field(c.type) else { return nil }
        let summary = number(c.distanceKm)
        var km = c.distanceMeters == nil ? summary : number(c.distanceMeters).map { $0 / 1000 }
        // A later `Distance` far below the summary repeats the summary (as some localized exports write it) rather
        // than giving metres: the summary is kilometres or miles, within a factor of 2 of the metres column's km.
        if let metres = km, let summary, c.distanceMeters != nil, metres < summary / 2 { km = summary }
        return Activity(id: String(id.prefix(40)), activity: activity(language.types[type] ?? type), name: field(c.name).map { String($0.prefix(200)) },
                        start: field(c.date).flatMap { parseDate($0, language: language) }, elapsedSeconds: number(c.elapsed), movingSeconds: number(c.moving),
                        distanceKm: km, elevationGainM: number(c.elevationGain), averageHeartRate: number(c.averageHeartRate).flatMap(heartRate),
                        maxHeartRate: number(c.maxHeartRate).flatMap(heartRate), energyKcal: number(c.calories), file: field(c.filename))
    }

    /// A number as Swift reads it: English summaries group thousands with commas ("1,234.5"); German and French
    /// write "2,81" (and "1.234,5"), while their detail columns are plain ("2810.0"), so a comma is the decimal
    /// separator only where the language uses one.
    static func normalized(_ text: String, decimalComma: Bool) -> String {
        let spaced = text.filter { $0 != " " && $0 != "\u{A0}" && $0 != "\u{202F}" }
        guard decimalComma else { return spaced.replacingOccurrences(of: ",", with: "") }
        guard spaced.contains(",") else { return spaced }
        return spaced.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".")
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

    /// "Oct 7, 2020, 2:43:11 PM" (the English export, in UTC), the language's own form, or an ISO-8601 time.
    public static func parseDate(_ text: String, language: Language = languages[0]) -> Int64? {
        if let iso = LocationTime.parse(text) { return iso }
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for (locale, format) in language.dateFormats {
            formatter.locale = Locale(identifier: locale)
            formatter.dateFormat = format
            if let date = formatter.date(from: text), let seconds = Int64(exactly: date.timeIntervalSince1970.rounded()) { return seconds }
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
