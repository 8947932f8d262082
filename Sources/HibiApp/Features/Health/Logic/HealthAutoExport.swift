import Foundation

/// Reads the JSON that the iOS app Health Auto Export posts to a REST API automation
/// (`{"data": {"metrics": [...], "workouts": [...]}}`, export versions 1 and 2) into the same drafts as
/// the Apple Health export import: the same types, the same canonical units, the same sleep categories
/// ("AsleepCore", "InBed", …), the same plausible ranges. Pure: the service writes what this returns.
///
/// Every data point comes out once, kept or skipped with a reason, counted under its metric's name,
/// so the answer reports per metric what was added, already there, and skipped.
public enum HealthAutoExport {
    /// A parsed payload: records per report kind (the metric's name), workouts, and what was skipped.
    public struct Payload: Sendable {
        public var records: [(kind: String, draft: HealthRecordDraft)] = []
        public var workouts: [AppleHealthWorkout] = []
        public var skips: [ImportSkip] = []
    }

    public enum Failure: Error, Equatable {
        case notJSON
        case wrongShape(String)
    }

    /// The report kind of a workout's heart-rate samples (stored as heart-rate records, as the export keeps them).
    public static let workoutHeartRateKind = "workout heartRateData"
    /// The same kind the export import counts workouts under.
    public static let workoutKind = "Workout"

    /// Health Auto Export's metric names for the types Hibi knows by name.
    static let knownMetrics: [String: HealthDataType] = [
        "step_count": .steps,
        "active_energy": .activeCalories,
        "heart_rate": .heartRate,
        "resting_heart_rate": .restingHeartRate,
        "heart_rate_variability": .heartRateVariability,
        "heart_rate_variability_sdnn": .heartRateVariability,
        "weight_body_mass": .weight,
        "body_fat_percentage": .bodyFat,
        "walking_running_distance": .walkingRunningDistance,
        "sleep_analysis": .sleep,
    ]

    /// Other metrics under the Apple Health identifier the export import keeps them as, so both land as one type.
    static let appleIdentifiers: [String: String] = [
        "basal_energy_burned": "HKQuantityTypeIdentifierBasalEnergyBurned",
        "flights_climbed": "HKQuantityTypeIdentifierFlightsClimbed",
        "apple_exercise_time": "HKQuantityTypeIdentifierAppleExerciseTime",
        "apple_stand_time": "HKQuantityTypeIdentifierAppleStandTime",
        "apple_stand_hour": "HKCategoryTypeIdentifierAppleStandHour",
        "blood_oxygen_saturation": "HKQuantityTypeIdentifierOxygenSaturation",
        "respiratory_rate": "HKQuantityTypeIdentifierRespiratoryRate",
        "vo2_max": "HKQuantityTypeIdentifierVO2Max",
        "walking_heart_rate_average": "HKQuantityTypeIdentifierWalkingHeartRateAverage",
        "dietary_water": "HKQuantityTypeIdentifierDietaryWater",
        "body_temperature": "HKQuantityTypeIdentifierBodyTemperature",
        "walking_speed": "HKQuantityTypeIdentifierWalkingSpeed",
        "walking_step_length": "HKQuantityTypeIdentifierWalkingStepLength",
        "body_mass_index": "HKQuantityTypeIdentifierBodyMassIndex",
        "height": "HKQuantityTypeIdentifierHeight",
        "lean_body_mass": "HKQuantityTypeIdentifierLeanBodyMass",
        "mindful_minutes": "HKCategoryTypeIdentifierMindfulSession",
    ]

    /// The app's sleep stage names as the export's categories (HKCategoryValueSleepAnalysis… without the prefix).
    static let sleepStages: [String: String] = [
        "in bed": "InBed", "inbed": "InBed", "asleep": "Asleep", "core": "AsleepCore", "deep": "AsleepDeep",
        "rem": "AsleepREM", "awake": "Awake", "unspecified": "AsleepUnspecified",
    ]

    /// The fields of an aggregated sleep night (Summarize Data on), each as a stage; `asleep` is
    /// the time asleep without a stage (version 2) or all of it (version 1, which has no stages).
    static let aggregatedSleepFields: [(field: String, category: String)] = [
        ("asleep", "Asleep"), ("core", "AsleepCore"), ("deep", "AsleepDeep"), ("rem", "AsleepREM"), ("awake", "Awake"),
    ]

    /// Marks a sleep record made from a night's totals rather than from one stage sample: its value is
    /// the stage's hours, not its start-to-end span (the night logic reads it as a total).
    public static let aggregatedMarker = "aggregated"

    /// Reads a whole body held in memory, through the same two passes as a streamed one.
    public static func parse(_ data: Data) throws(Failure) -> Payload {
        var outline = Outline()
        try outline.feed(data)
        var reader = Reader(try outline.finish())
        var payload = Payload()
        try reader.feed(data, into: &payload)
        reader.finish(into: &payload)
        return payload
    }

    // MARK: reading a body as a stream

    /// The arrays read element by element: each metric's points, the workouts, and every other list under
    /// `data` (symptoms, ecg, … reported as not kept). What stays is the outline: the metrics' names and units.
    static func splits(_ path: [String]) -> Bool {
        guard path.first == "data" else { return false }
        if path.count == 2 { return path[1] != "metrics" }
        return path.count == 4 && path[1] == "metrics" && path[3] == "data"
    }

    /// Most bytes one element may have. A point is about 100 bytes; a workout holds its route and heart
    /// rate (a day-long hike with a point a second is about 13 MB). A longer one is skipped with a reason.
    static let maxElementBytes = 16 << 20
    /// Most bytes of the outline: the metric objects without their points (a few hundred metrics at most).
    static let maxOutlineBytes = 4 << 20

    static func element(_ data: Data) throws(Failure) -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { throw .notJSON }
        return value
    }

    /// The first pass over a body: checks that it is JSON throughout (every element decodes, every bracket
    /// closes, nothing follows the end) and keeps its outline, so nothing is stored from a body that
    /// breaks off or goes wrong halfway. Memory: one element and the outline.
    public struct Outline {
        var stream = JSONArrayStream(maxElementBytes: HealthAutoExport.maxElementBytes, outlineLimit: HealthAutoExport.maxOutlineBytes,
                                     splits: HealthAutoExport.splits)

        public init() {}

        public mutating func feed(_ bytes: Data) throws(Failure) {
            var failed = false
            stream.feed(bytes) { located in
                guard !failed, case let .element(data) = located.piece else { return }
                failed = (try? HealthAutoExport.element(data)) == nil
            }
            if failed || stream.malformed { throw .notJSON }
        }

        /// What the second pass needs: each metric's name and units (nil: the metric is skipped whole),
        /// and what the outline alone already says was skipped.
        public struct Metrics: Sendable {
            var metrics: [(name: String, units: String)?] = []
            var skips: [ImportSkip] = []
        }

        public func finish() throws(Failure) -> Metrics {
            guard stream.complete, !stream.malformed else { throw .notJSON }
            guard !stream.outlineOverflow else { throw .wrongShape("data.metrics: too many metrics in one post") }
            guard let root = try? JSONSerialization.jsonObject(with: Data(stream.outline)) else { throw .notJSON }
            guard let object = root as? [String: Any], let body = object["data"] as? [String: Any] else {
                throw .wrongShape("expected {\"data\": {\"metrics\": [...], \"workouts\": [...]}}")
            }
            var result = Metrics()
            if let metrics = body["metrics"] {
                guard let list = metrics as? [Any] else { throw .wrongShape("data.metrics: expected a list") }
                var payload = Payload()
                for (index, raw) in list.enumerated() {
                    result.metrics.append(HealthAutoExport.readMetric(raw, at: "data.metrics[\(index)]", into: &payload))
                }
                result.skips = payload.skips
            }
            if let workouts = body["workouts"], !(workouts is [Any]) { throw .wrongShape("data.workouts: expected a list") }
            return result
        }
    }

    /// The second pass: each element of the split arrays, in order, into records, workouts and skips,
    /// exactly as a whole body was read before (the same kinds, reasons and positions).
    public struct Reader {
        var stream = JSONArrayStream(maxElementBytes: HealthAutoExport.maxElementBytes, outlineLimit: 0, splits: HealthAutoExport.splits)
        let metrics: Outline.Metrics
        var started = false

        public init(_ metrics: Outline.Metrics) { self.metrics = metrics }

        public mutating func feed(_ bytes: Data, into payload: inout Payload) throws(Failure) {
            if !started {
                started = true
                payload.skips += metrics.skips
            }
            var failure: Failure?
            let metrics = metrics
            stream.feed(bytes) { located in
                guard failure == nil else { return }
                do throws(Failure) {
                    try Self.take(located, path: located.path, metrics: metrics, into: &payload)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }

        public mutating func finish(into payload: inout Payload) {
            if !started {
                started = true
                payload.skips += metrics.skips
            }
        }

        static func take(_ located: JSONArrayStream.Located, path: [String], metrics: Outline.Metrics, into payload: inout Payload) throws(Failure) {
            guard path.count >= 2 else { return }
            if path.count == 4 {
                // A metric's point; a metric skipped whole (no name) has its points passed over with it.
                guard let index = Int(path[2]), metrics.metrics.indices.contains(index), let (name, units) = metrics.metrics[index] else { return }
                let at = "data.metrics[\(index)].data[\(located.index)]"
                switch located.piece {
                case .tooLarge: payload.skips.append(ImportSkip(kind: name, reason: .tooMany, at: at))
                case let .element(data): readPoint(try element(data), name: name, units: units, at: at, into: &payload)
                }
            } else if path[1] == "workouts" {
                let at = "data.workouts[\(located.index)]"
                switch located.piece {
                case .tooLarge: payload.skips.append(ImportSkip(kind: workoutKind, reason: .tooMany, at: at))
                case let .element(data): readWorkout(try element(data), at: at, into: &payload)
                }
            } else {
                // symptoms, ecg, medications, …: said, not silently passed over.
                payload.skips.append(ImportSkip(kind: path[1], reason: .unsupported, at: "data.\(path[1])[\(located.index)]"))
            }
        }
    }

    // MARK: metrics

    /// A metric's name and units, or nil with the reason it is skipped whole. Its points come one by one (`readPoint`).
    static func readMetric(_ raw: Any, at position: String, into payload: inout Payload) -> (name: String, units: String)? {
        guard let metric = raw as? [String: Any], let name = metric["name"] as? String, !name.isEmpty else {
            payload.skips.append(ImportSkip(kind: "metrics", reason: .missingValue, at: position))
            return nil
        }
        let units = metric["units"] as? String ?? ""
        guard metric["data"] is [Any] else {
            // `"data": null` or `[]` is a metric with nothing in the period; anything else is malformed.
            if metric["data"] != nil, !(metric["data"] is NSNull) {
                payload.skips.append(ImportSkip(kind: name, reason: .missingValue, at: position + ".data"))
            }
            return nil
        }
        return (name, units)
    }

    static func readPoint(_ point: Any, name: String, units: String, at: String, into payload: inout Payload) {
        guard let fields = point as? [String: Any] else {
            payload.skips.append(ImportSkip(kind: name, reason: .missingValue, at: at))
            return
        }
        let drafts: [AppleHealthMapping.Parsed<HealthRecordDraft>]
        switch name {
        case "sleep_analysis": drafts = sleep(fields, units: units)
        case "blood_pressure": drafts = bloodPressure(fields, units: units)
        default: drafts = [quantity(name, fields, units: units)]
        }
        for parsed in drafts {
            switch parsed {
            case let .kept(draft): payload.records.append((name, draft))
            case let .skipped(reason): payload.skips.append(ImportSkip(kind: name, reason: reason, at: at))
            }
        }
    }

    static func number(_ value: Any?) -> Double? { JSONNumber.read(value) }

    static func date(_ value: Any?) -> Int64? {
        guard let text = value as? String else { return nil }
        return AppleHealthMapping.parseDate(text)
    }

    /// A `{date, qty}` or `{date, Min, Avg, Max}` point as a record of the metric's type, in Hibi's unit.
    static func quantity(_ name: String, _ fields: [String: Any], units: String) -> AppleHealthMapping.Parsed<HealthRecordDraft> {
        guard let dateField = fields["date"] else { return .skipped(.missingValue) }
        guard let start = date(dateField) else { return .skipped(.unparseableDate) }
        guard AppleHealthMapping.plausible(start) else { return .skipped(.outOfRange) }
        var details: [(String, String)] = []
        let value: Double
        if let qty = number(fields["qty"]) {
            value = qty
        } else if let average = number(fields["Avg"]) {
            // Heart rate summarised per minute (or hour): the average is the value, the range is kept beside it.
            value = average
            if let low = number(fields["Min"]) { details.append(("min", AppleHealthMapping.number(low))) }
            if let high = number(fields["Max"]) { details.append(("max", AppleHealthMapping.number(high))) }
        } else {
            return .skipped(.missingValue)
        }
        guard value.isFinite else { return .skipped(.outOfRange) }
        let device = (fields["source"] as? String) ?? ""
        let pointUnits = (fields["units"] as? String) ?? units
        var draft = HealthRecordDraft(type: appleIdentifiers[name] ?? name, value: value, unit: pointUnits, start: start, end: start,
                                      device: device, details: details.isEmpty ? nil : AppleHealthMapping.json(details))
        if let known = knownMetrics[name] {
            draft.type = known.rawValue
            if known == .bodyFat {
                // Apple writes body fat as a fraction; the app as a percentage. Both become a percentage.
                draft.value = value <= 1 ? value * 100 : value
                draft.unit = "%"
            } else if let factor = HealthUnits.factor(from: pointUnits, for: known) {
                draft.value = value * factor
                draft.unit = known.canonicalUnit
            } else {
                return .skipped(.unknownUnit)
            }
        }
        guard HealthRules.isPlausible(type: draft.type, value: draft.value) else { return .skipped(.implausibleValue) }
        return .kept(draft)
    }

    static func bloodPressure(_ fields: [String: Any], units: String) -> [AppleHealthMapping.Parsed<HealthRecordDraft>] {
        guard let dateField = fields["date"] else { return [.skipped(.missingValue)] }
        guard let start = date(dateField) else { return [.skipped(.unparseableDate)] }
        guard AppleHealthMapping.plausible(start) else { return [.skipped(.outOfRange)] }
        let device = (fields["source"] as? String) ?? ""
        return [("systolic", HealthDataType.bloodPressureSystolic), ("diastolic", .bloodPressureDiastolic)].map { field, type in
            guard let value = number(fields[field]), value.isFinite else { return .skipped(.missingValue) }
            guard let factor = HealthUnits.factor(from: units.isEmpty ? "mmHg" : units, for: type) else { return .skipped(.unknownUnit) }
            let draft = HealthRecordDraft(type: type.rawValue, value: value * factor, unit: type.canonicalUnit, start: start, end: start, device: device)
            return HealthRules.isPlausible(type: draft.type, value: draft.value) ? .kept(draft) : .skipped(.implausibleValue)
        }
    }

    /// A sleep point: one stage sample (`startDate`, `endDate`, `value`), or a night's totals
    /// (`sleepStart`, `sleepEnd`, `asleep`, `core`, …, `inBed`, `inBedStart`, `inBedEnd`).
    static func sleep(_ fields: [String: Any], units: String) -> [AppleHealthMapping.Parsed<HealthRecordDraft>] {
        if fields["startDate"] != nil || fields["value"] != nil {
            guard let startField = fields["startDate"], let endField = fields["endDate"], let stageName = fields["value"] as? String else {
                return [.skipped(.missingValue)]
            }
            guard let start = date(startField), let end = date(endField) else { return [.skipped(.unparseableDate)] }
            guard AppleHealthMapping.plausible(start), end >= start else { return [.skipped(.outOfRange)] }
            guard let stage = sleepStages[stageName.lowercased()] else { return [.skipped(.unsupported)] }
            // The span is what a stage sample measures, as in the export (its `qty` says the same in hours).
            let draft = HealthRecordDraft(type: HealthDataType.sleep.rawValue, value: Double(end - start) / 3600, category: stage, unit: "h",
                                          start: start, end: end, device: (fields["source"] as? String) ?? "")
            return [HealthRules.isPlausible(type: draft.type, value: draft.value) ? .kept(draft) : .skipped(.implausibleValue)]
        }
        guard let factor = HealthUnits.factor(from: units.isEmpty ? "hr" : units, for: .sleep) else { return [.skipped(.unknownUnit)] }
        guard let sleepStartField = fields["sleepStart"] ?? fields["inBedStart"], let sleepEndField = fields["sleepEnd"] ?? fields["inBedEnd"] else {
            return [.skipped(.missingValue)]
        }
        guard let sleepStart = date(sleepStartField), let sleepEnd = date(sleepEndField) else { return [.skipped(.unparseableDate)] }
        guard AppleHealthMapping.plausible(sleepStart), sleepEnd >= sleepStart else { return [.skipped(.outOfRange)] }
        let details = AppleHealthMapping.json([(aggregatedMarker, "true")])
        let sleepSource = (fields["sleepSource"] as? String) ?? (fields["source"] as? String) ?? ""
        var out: [AppleHealthMapping.Parsed<HealthRecordDraft>] = []
        func add(_ hours: Double, category: String, start: Int64, end: Int64, device: String) {
            let draft = HealthRecordDraft(type: HealthDataType.sleep.rawValue, value: hours * factor, category: category, unit: "h",
                                          start: start, end: end, device: device, details: details)
            out.append(draft.value.isFinite && HealthRules.isPlausible(type: draft.type, value: draft.value) ? .kept(draft) : .skipped(.implausibleValue))
        }
        for (field, category) in aggregatedSleepFields {
            guard let hours = number(fields[field]), hours != 0 else { continue }
            add(hours, category: category, start: sleepStart, end: sleepEnd, device: sleepSource)
        }
        if let hours = number(fields["inBed"]), hours != 0 {
            let start = date(fields["inBedStart"]) ?? sleepStart, end = date(fields["inBedEnd"]) ?? sleepEnd
            add(hours, category: "InBed", start: start, end: max(start, end), device: (fields["inBedSource"] as? String) ?? sleepSource)
        }
        return out.isEmpty ? [.skipped(.missingValue)] : out
    }

    // MARK: workouts

    /// "Outdoor Run" → "Running", "Traditional Strength Training" → "TraditionalStrengthTraining": the
    /// export's activity names (HKWorkoutActivityType… without the prefix), so both imports name a workout alike.
    static func activity(_ name: String) -> (activity: String, location: String?) {
        var words = name.split(separator: " ").map(String.init)
        var location: String?
        if let first = words.first, ["Outdoor", "Indoor", "Pool", "Open"].contains(first), words.count > 1 {
            location = first
            words.removeFirst()
            if first == "Open", words.first == "Water" { words.removeFirst(); location = "Open Water" }
        }
        let short = ["Run": "Running", "Walk": "Walking", "Cycle": "Cycling", "Swim": "Swimming", "Hike": "Hiking", "Row": "Rowing"]
        if words.count == 1, let mapped = short[words[0]] { return (mapped, location) }
        let joined = words.joined()
        return (joined.isEmpty ? name : joined, location)
    }

    /// `{"qty": 5.2, "units": "km"}` (or a list of such points, summed) as a number and its unit.
    static func quantityObject(_ value: Any?) -> (qty: Double, units: String)? {
        if let object = value as? [String: Any], let qty = number(object["qty"]), qty.isFinite {
            return (qty, (object["units"] as? String) ?? "")
        }
        if let list = value as? [Any] {
            var total = 0.0, units = ""
            var any = false
            for item in list {
                guard let object = item as? [String: Any], let qty = number(object["qty"]), qty.isFinite else { continue }
                total += qty
                units = (object["units"] as? String) ?? units
                any = true
            }
            return any && total.isFinite ? (total, units) : nil
        }
        return nil
    }

    static func readWorkout(_ raw: Any, at position: String, into payload: inout Payload) {
        let kind = workoutKind
        guard let fields = raw as? [String: Any], let name = fields["name"] as? String, !name.isEmpty,
              let startField = fields["start"] else {
            payload.skips.append(ImportSkip(kind: kind, reason: .missingValue, at: position))
            return
        }
        guard let start = date(startField) else {
            payload.skips.append(ImportSkip(kind: kind, reason: .unparseableDate, at: position))
            return
        }
        let end = date(fields["end"]) ?? start
        guard AppleHealthMapping.plausible(start), end >= start else {
            payload.skips.append(ImportSkip(kind: kind, reason: .outOfRange, at: position))
            return
        }
        let (activity, location) = activity(name)
        // Version 2 says the duration (seconds, without pauses); version 1 only the start and the end.
        let minutes = (number(fields["duration"]).flatMap { $0.isFinite ? $0 / 60 : nil }) ?? Double(end - start) / 60
        var details: [(String, String)] = [("source", "Health Auto Export")]
        if let id = fields["id"] as? String { details.append(("id", String(id.prefix(100)))) }
        if let location = (fields["location"] as? String) ?? location { details.append(("location", String(location.prefix(100)))) }
        var distance: Double?
        if let (qty, units) = quantityObject(fields["distance"]), let factor = HealthUnits.factor(from: units, for: .walkingRunningDistance) {
            distance = qty * factor
        }
        var energy: Double?
        if let (qty, units) = quantityObject(fields["activeEnergyBurned"] ?? fields["activeEnergy"]),
           let factor = HealthUnits.factor(from: units, for: .activeCalories) {
            energy = qty * factor
        }
        if let (qty, units) = quantityObject(fields["stepCount"]), HealthUnits.factor(from: units, for: .steps) != nil {
            details.append(("stepCount", AppleHealthMapping.number(qty)))
        }
        // Elevation: version 1 `{"ascent", "descent", "units"}`, version 2 `elevationUp` / `elevationDown`.
        func meters(_ qty: Double, _ units: String) -> Double? {
            HealthUnits.factor(from: units, for: .walkingRunningDistance).map { qty * $0 * 1000 }
        }
        if let elevation = fields["elevation"] as? [String: Any] {
            let units = (elevation["units"] as? String) ?? "m"
            if let ascent = number(elevation["ascent"]), let m = meters(ascent, units), m.isFinite { details.append(("elevationAscentM", AppleHealthMapping.number(m))) }
            if let descent = number(elevation["descent"]), let m = meters(descent, units), m.isFinite { details.append(("elevationDescentM", AppleHealthMapping.number(m))) }
        }
        if let (qty, units) = quantityObject(fields["elevationUp"]), let m = meters(qty, units), m.isFinite {
            details.append(("elevationAscentM", AppleHealthMapping.number(m)))
        }
        if let (qty, units) = quantityObject(fields["elevationDown"]), let m = meters(qty, units), m.isFinite {
            details.append(("elevationDescentM", AppleHealthMapping.number(m)))
        }
        if let heartRate = fields["heartRate"] as? [String: Any] {
            for key in ["min", "avg", "max"] {
                if let (qty, _) = quantityObject(heartRate[key]) { details.append(("heartRate" + key.capitalized, AppleHealthMapping.number(qty))) }
            }
        }
        let device = (fields["source"] as? String) ?? ""
        let record = HealthRecordDraft(type: HealthDataType.workout.rawValue, value: minutes, category: activity, unit: "min",
                                       start: start, end: end, device: device, details: AppleHealthMapping.json(details))
        guard HealthRules.isPlausible(type: record.type, value: record.value) else {
            payload.skips.append(ImportSkip(kind: kind, reason: .implausibleValue, at: position))
            return
        }
        var workout = AppleHealthWorkout(record: record, activity: activity, durationMinutes: minutes, distanceKm: distance, energyKcal: energy)
        if let route = fields["route"] as? [Any] {
            for (index, item) in route.enumerated() {
                let at = "\(position).route[\(index)]"
                guard let point = item as? [String: Any], let lat = number(point["lat"] ?? point["latitude"]),
                      let lon = number(point["lon"] ?? point["longitude"]), let timeField = point["timestamp"] ?? point["date"] else {
                    workout.skips.append(ImportSkip(kind: "Location", reason: .missingValue, at: at))
                    continue
                }
                guard let t = date(timeField) else {
                    workout.skips.append(ImportSkip(kind: "Location", reason: .unparseableDate, at: at))
                    continue
                }
                guard WorkoutRoutePoint.valid(lat: lat, lon: lon), AppleHealthMapping.plausible(t) else {
                    workout.skips.append(ImportSkip(kind: "Location", reason: .outOfRange, at: at))
                    continue
                }
                guard workout.points.count < AppleHealthExportParser.maxRoutePoints else {
                    workout.skips.append(ImportSkip(kind: "Location", reason: .tooMany, at: at))
                    continue
                }
                let altitude = number(point["altitude"]).flatMap { $0.isFinite ? $0 : nil }
                workout.points.append(WorkoutRoutePoint(t: t, lat: lat, lon: lon, ele: altitude))
            }
        }
        payload.workouts.append(workout)
        // Heart rate during the workout: heart-rate records, as the export keeps them (one per sample).
        if let samples = fields["heartRateData"] as? [Any] {
            for (index, item) in samples.enumerated() {
                let at = "\(position).heartRateData[\(index)]"
                guard let sample = item as? [String: Any] else {
                    payload.skips.append(ImportSkip(kind: workoutHeartRateKind, reason: .missingValue, at: at))
                    continue
                }
                var withSource = sample
                if withSource["source"] == nil, !device.isEmpty { withSource["source"] = device }
                switch quantity("heart_rate", withSource, units: (sample["units"] as? String) ?? "count/min") {
                case let .kept(draft): payload.records.append((workoutHeartRateKind, draft))
                case let .skipped(reason): payload.skips.append(ImportSkip(kind: workoutHeartRateKind, reason: reason, at: at))
                }
            }
        }
    }
}
