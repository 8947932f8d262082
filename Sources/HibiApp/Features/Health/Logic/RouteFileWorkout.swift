import Foundation

/// A TCX or FIT file uploaded alone to the location import, as the workout Health keeps (the same types and units
/// as a Strava export's activity: minutes, kilometres, the route, the heart rate's average and maximum, metres
/// climbed). Pure: what the file said in, a workout or the reason it is none out.
public enum RouteFileWorkout {
    /// The sports TCX (`Sport="Running"`, "Biking", "Other") and FIT (its sport enum's names) write, as the workout
    /// activities Hibi keeps (Apple's names, as the other imports store them). A sport not listed is "Other".
    static let activities: [String: String] = [
        "running": "Running", "biking": "Cycling", "cycling": "Cycling", "e_biking": "Cycling", "walking": "Walking",
        "hiking": "Hiking", "swimming": "Swimming", "rowing": "Rowing", "cross_country_skiing": "CrossCountrySkiing",
        "alpine_skiing": "DownhillSkiing", "snowboarding": "Snowboarding", "paddling": "PaddleSports",
        "stand_up_paddleboarding": "PaddleSports", "kayaking": "PaddleSports", "rock_climbing": "Climbing",
        "mountaineering": "Hiking", "inline_skating": "SkatingSports", "ice_skating": "SkatingSports", "surfing": "SurfingSports",
        "golf": "Golf", "soccer": "Soccer", "tennis": "Tennis", "basketball": "Basketball", "training": "Other",
        "fitness_equipment": "Other", "generic": "Other", "other": "Other",
    ]

    public static func activity(_ sport: String?) -> String {
        guard let sport else { return "Other" }
        return activities[sport.lowercased()] ?? "Other"
    }

    /// The workout, or why the file makes none: a time before 1900 or after 2199, or a file whose records are
    /// all at one second or span more than 30 days (a clock that was wrong, not an activity).
    public enum Made: Equatable, Sendable {
        case workout(AppleHealthWorkout)
        case skipped(ImportSkipReason)
    }

    public static func workout(_ file: RecordedWorkout) -> Made {
        guard AppleHealthMapping.plausible(file.start), AppleHealthMapping.plausible(file.end), file.end >= file.start else { return .skipped(.outOfRange) }
        guard file.end > file.start else { return .skipped(.sameSecond) }
        let seconds = file.end &- file.start
        guard seconds < 30 * 86400 else { return .skipped(.implausibleValue) }
        let minutes = Double(seconds) / 60
        let activity = activity(file.sport)
        let summary = StravaExport.summary(times: [file.start, file.end], altitudes: file.altitudes, heartRates: file.heartRates)
        var details: [(String, String)] = [("source", file.source)]
        if let gain = summary.elevationGainM { details.append(("elevationAscentM", AppleHealthMapping.number(gain.rounded()))) }
        if let average = summary.averageHeartRate { details.append(("heartRateAvg", AppleHealthMapping.number(average.rounded()))) }
        if let max = summary.maxHeartRate { details.append(("heartRateMax", AppleHealthMapping.number(max.rounded()))) }
        let record = HealthRecordDraft(type: HealthDataType.workout.rawValue, value: minutes, category: activity, unit: "min",
                                       start: file.start, end: file.end, device: file.source, details: AppleHealthMapping.json(details))
        let distance = file.distanceMeters.flatMap { $0.isFinite && $0 > 0 && $0 < 10_000_000 ? $0 / 1000 : nil }
        let energy = file.energyKcal.flatMap { $0.isFinite && $0 > 0 && $0 < 100_000 ? $0 : nil }
        var workout = AppleHealthWorkout(record: record, activity: activity, durationMinutes: minutes, distanceKm: distance, energyKcal: energy)
        workout.points = file.route.compactMap { point in
            WorkoutRoutePoint.valid(lat: point.latitude, lon: point.longitude) && AppleHealthMapping.plausible(point.time)
                ? WorkoutRoutePoint(t: point.time, lat: point.latitude, lon: point.longitude, ele: point.altitude) : nil
        }
        return .workout(workout)
    }
}
