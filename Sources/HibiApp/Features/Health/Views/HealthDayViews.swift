import Foundation

/// Health's part of a day's page (Journal's `/day/:date`): the day's lines (totals, averages, latest readings), the
/// night that ended it, and its workouts with their routes on the day's map.
enum HealthDayViews {
    static let health = Text(en: "Health", ja: "健康")
    static let workouts = Text(en: "Workouts", ja: "ワークアウト")
    static let addRecord = Text(en: "Add a health record", ja: "健康記録を追加")
    static let total = Text(en: "total", ja: "合計")
    static let average = Text(en: "average", ja: "平均")
    static let latest = Text(en: "latest", ja: "最新")
    static func records(_ language: Language, _ count: Int) -> String {
        language == .ja ? "\(count)件の記録" : (count == 1 ? "1 record" : "\(count) records")
    }
    /// Where Health's sections stand among the day's (Journal places the sections by these numbers; its map is at 500).
    static let linesOrder = 200, sleepOrder = 300, workoutsOrder = 400

    /// A workout of the day with its route, thinned for drawing.
    struct Workout: Sendable {
        let workout: HealthWorkout
        let route: [WorkoutRoutePoint]
    }

    static func part(lines: [HealthDayLine], night: SleepNights.Night?, workouts: [Workout], units: UnitPreferences, day: DayQuery) -> DayPart {
        let l = day.language
        let time = day.timeStyle
        var part = DayPart()
        part.recordLinks = [el("a", .href(HealthPaths.newRecord), .role("button"), .class("secondary")) { addRecord(l) }]
        part.recorded = !lines.isEmpty || night != nil || !workouts.isEmpty
        part.fields = ["health": lines, "workouts": workouts.map(WorkoutItem.init)]
        part.tracks = workouts.map { $0.route.map { DayPlace(latitude: $0.lat, longitude: $0.lon) } }
        if !lines.isEmpty {
            part.sections.append(DaySection(order: linesOrder, el("section", .id("day-health")) {
                el("h2") { health(l) }
                el("ul") {
                    for line in lines {
                        el("li", .data("type", line.type)) {
                            HealthDataType.title(of: line.type)(l) + ": "
                            el("strong") { HealthFormat.value(line.value, type: line.type, preferences: units, language: l) }
                            " (" + kind(line.kind)(l) + ", " + records(l, line.records) + ")"
                        }
                    }
                }
            }))
        }
        if let night {
            part.sections.append(DaySection(order: sleepOrder, el("section", .id("day-sleep")) {
                el("h2") { SleepStrings.night(l) }
                el("p") {
                    SleepStrings.asleep(night.asleepHours, start: Date(timeIntervalSince1970: TimeInterval(night.start)).formatted(time),
                                        end: Date(timeIntervalSince1970: TimeInterval(night.end)).formatted(time), l)
                }
                el("ul", .class("sleep-stages")) {
                    for stage in SleepNights.Stage.allCases {
                        if let hours = night.stageHours[stage], hours > 0 {
                            el("li", .data("stage", stage.rawValue)) { SleepStrings.stage(stage)(l) + ": " + SleepStrings.hours(hours, l) }
                        }
                    }
                }
                if let chart = HealthGraphics.sleepChart(night, timeZone: day.timeZone, language: l) {
                    // Built by HealthGraphics from numbers and the string tables: markup Hibi wrote, like the health charts.
                    Node.raw(chart)
                } else {
                    el("p", .class("muted")) { SleepStrings.fromTotals(l) }
                }
            }))
        }
        if !workouts.isEmpty {
            part.sections.append(DaySection(order: workoutsOrder, el("section", .id("day-workouts")) {
                el("h2") { Self.workouts(l) }
                el("ul") {
                    for item in workouts {
                        el("li") {
                            item.workout.start.formatted(time) + " "
                            el("strong") { HealthDataType.title(of: item.workout.activity)(l) }
                            " · " + workoutSummary(item.workout, units: units, language: l)
                        }
                    }
                }
            }))
        }
        return part
    }

    static func kind(_ kind: HealthDayLine.Kind) -> Text {
        switch kind {
        case .total: total
        case .average: average
        case .latest: latest
        }
    }

    /// "42 min · 5.3 km · 310 kcal · ↑ 120 m · 142 bpm average, 171 max" in the person's units (what the workout recorded, nothing guessed).
    /// An imported file supplies these numbers, so they are formatted, never converted to `Int` (a huge
    /// or non-finite value would stop the server); what is not a sensible amount is left out.
    static func workoutSummary(_ workout: HealthWorkout, units: UnitPreferences, language l: Language) -> String {
        func whole(_ value: Double) -> String { value.formatted(.number.precision(.fractionLength(0)).rounded(rule: .toNearestOrAwayFromZero).grouping(.never)) }
        var parts: [String] = []
        if workout.durationMinutes.isFinite, workout.durationMinutes >= 0 {
            parts.append(Text(en: "\(whole(workout.durationMinutes)) min", ja: "\(whole(workout.durationMinutes))分")(l))
        }
        if let km = workout.distanceKm, km.isFinite, km > 0 {
            parts.append(units.distance == .mi ? String(format: "%.1f mi", km / 1.609344) : String(format: "%.1f km", km))
        }
        if let kcal = workout.energyKcal, kcal.isFinite, kcal > 0 {
            parts.append(units.energy == .kJ ? whole(kcal * 4.184) + " kJ" : whole(kcal) + " kcal")
        }
        if let metres = workout.elevationGainM, metres > 0 {
            parts.append(Text(en: "↑ ", ja: "獲得標高 ")(l) + (units.distance == .mi ? whole(metres * 3.28084) + " ft" : whole(metres) + " m"))
        }
        if let average = workout.heartRateAverage, average > 0 {
            let max = workout.heartRateMax.map { whole($0) }
            parts.append(Text(en: "\(whole(average)) bpm average" + (max.map { ", \($0) max" } ?? ""),
                              ja: "平均心拍 \(whole(average)) bpm" + (max.map { "(最大 \($0))" } ?? ""))(l))
        }
        return parts.joined(separator: " · ")
    }
}

/// A workout in the day's API answer.
struct WorkoutItem: Codable, Sendable {
    let id: String
    let activity: String
    let start: Date
    let end: Date
    let durationMinutes: Double
    let distanceKm: Double?
    let energyKcal: Double?
    /// The route as drawn on the day's map: at most 400 points spread along it, `[latitude, longitude]` each.
    let route: [[Double]]

    init(_ item: HealthDayViews.Workout) {
        id = item.workout.id
        activity = item.workout.activity
        start = item.workout.start
        end = item.workout.end
        durationMinutes = item.workout.durationMinutes
        distanceKm = item.workout.distanceKm
        energyKcal = item.workout.energyKcal
        route = item.route.map { [$0.lat, $0.lon] }
    }
}
