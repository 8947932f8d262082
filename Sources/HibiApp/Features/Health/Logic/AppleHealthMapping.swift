import Foundation

/// How Apple Health's export elements become Hibi records.
public enum AppleHealthMapping {
    static let known: [String: HealthDataType] = [
        "HKQuantityTypeIdentifierBodyMass": .weight,
        "HKQuantityTypeIdentifierStepCount": .steps,
        "HKQuantityTypeIdentifierActiveEnergyBurned": .activeCalories,
        "HKQuantityTypeIdentifierHeartRate": .heartRate,
        "HKQuantityTypeIdentifierRestingHeartRate": .restingHeartRate,
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": .heartRateVariability,
        "HKQuantityTypeIdentifierBodyFatPercentage": .bodyFat,
        "HKQuantityTypeIdentifierDistanceWalkingRunning": .walkingRunningDistance,
        "HKCategoryTypeIdentifierSleepAnalysis": .sleep,
        "HKQuantityTypeIdentifierBloodPressureSystolic": .bloodPressureSystolic,
        "HKQuantityTypeIdentifierBloodPressureDiastolic": .bloodPressureDiastolic,
    ]

    /// "HKQuantityTypeIdentifierFlightsClimbed" → "FlightsClimbed", for display of types Hibi keeps as they are.
    public static func shortName(_ identifier: String) -> String {
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataType", "HKWorkoutActivityType", "HKCorrelationTypeIdentifier"]
        where identifier.hasPrefix(prefix) {
            return String(identifier.dropFirst(prefix.count))
        }
        return identifier
    }

    /// Apple's "2024-01-05 08:30:00 +0900" as Unix seconds, parsed by hand: this runs millions of times.
    public static func parseDate(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parseDate(bytes: $0) }
    }

    /// The same from the bytes of an attribute value, with no String made (the import reads two per record).
    public static func parseDate(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        @inline(__always) func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
        @inline(__always) func digits(_ n: Int) -> Int? {
            var v = 0
            for _ in 0..<n {
                guard let c = next(), c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        @inline(__always) func expect(_ byte: UInt8) -> Bool { next() == byte }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        var seconds = 0
        var offset = 0
        if let sep = next() {
            guard sep == 0x20 || sep == 0x54, let h = digits(2), expect(0x3A), let m = digits(2), expect(0x3A), let s = digits(2) else { return nil }
            seconds = h * 3600 + m * 60 + s
            var c = next()
            if c == 0x20 { c = next() }
            if let sign = c {
                if sign == 0x5A { offset = 0 } else {
                    guard sign == 0x2B || sign == 0x2D, let oh = digits(2) else { return nil }
                    var following = next()
                    if following == 0x3A { following = next() }
                    guard let n1 = following, n1 >= 0x30, n1 <= 0x39, let n2 = next(), n2 >= 0x30, n2 <= 0x39 else { return nil }
                    let om = Int(n1 - 0x30) * 10 + Int(n2 - 0x30)
                    offset = (oh * 3600 + om * 60) * (sign == 0x2D ? -1 : 1)
                }
            }
        }
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        return Int64(daysFromCivil(year: year, month: month, day: day)) * 86400 + Int64(seconds - offset)
    }

    /// Powers of ten a Double holds exactly (10^22 is the last).
    private static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    /// A number as `Double(String)` reads it, from bytes. The values in an export are short decimals
    /// ("72", "0.0312"): those are read here (at most 15 digits are exact in a Double, and one division by
    /// an exact power of ten is correctly rounded, so the result is the very Double `Double(String)` gives);
    /// anything else ("1e3", "+5", "nan", long digits) is handed to `Double(String)`.
    public static func parseNumber(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = bytes.count
        var negative = false
        if n > 0, bytes[0] == 0x2D { negative = true; i = 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0, fractionDigits = 0, integerDigits = 0
        var sawDot = false
        var simple = n > i
        while i < n {
            let c = bytes[i]
            if c >= 0x30, c <= 0x39 {
                digitCount += 1
                if digitCount > 15 { simple = false; break }
                mantissa = mantissa * 10 + UInt64(c - 0x30)
                if sawDot { fractionDigits += 1 } else { integerDigits += 1 }
            } else if c == 0x2E, !sawDot {
                sawDot = true
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple, integerDigits > 0, !sawDot || fractionDigits > 0 {
            let magnitude = fractionDigits == 0 ? Double(mantissa) : Double(mantissa) / exactPowersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// A `<Record>` element's attributes as a draft, with the value in Hibi's unit for known types.
    /// Unknown types and units are kept exactly as Apple wrote them.
    static func record(_ attributes: [XMLAttribute], metadata: [(String, String)]) -> HealthRecordDraft? {
        if case let .kept(draft) = parseRecord(attributes, metadata: metadata) { return draft }
        return nil
    }

    /// Why a `<Record>` cannot be kept, or nil when it can.
    static func recordProblem(_ attributes: [XMLAttribute]) -> ImportSkipReason? {
        if case let .skipped(reason) = parseRecord(attributes, metadata: []) { return reason }
        return nil
    }

    /// 1900-01-01 to 2200-01-01: a date outside is a typo or a broken clock, not a measurement.
    static func plausible(_ seconds: Int64) -> Bool { seconds >= -2_208_988_800 && seconds < 7_258_118_400 }

    /// What Hibi reads of a `<Record>`: six attributes, dates and value already parsed. Made either from
    /// attribute strings or straight from the tokenizer's bytes (the import's path: no String for a
    /// date, a number or an attribute Hibi does not keep, and the repeated type, unit and source shared).
    struct RecordFields {
        var type = "", unit = "", source = ""
        /// The value attribute as written, when `parsed` is not a finite number or the type reads it as
        /// text (sleep); otherwise not needed, and left empty on the bytes path.
        var valueText = ""
        var parsed: Double?
        var hasStart = false
        var start: Int64?
        var end: Int64?

        init(attributes: [XMLAttribute]) {
            var value: String?, startText: String?, endText = ""
            for attribute in attributes {
                switch attribute.name {
                case "type": type = attribute.value
                case "unit": unit = attribute.value
                case "value": value = attribute.value
                case "sourceName": source = attribute.value
                case "startDate": startText = attribute.value
                case "endDate": endText = attribute.value
                default: break
                }
            }
            valueText = value ?? ""
            parsed = value.flatMap { Double($0) }
            hasStart = startText != nil
            start = startText.flatMap { parseDate($0) }
            end = parseDate(endText)
        }

        init(_ tag: XMLTagAttributes, strings: inout AppleHealthStrings) {
            var typeAt = -1, unitAt = -1, valueAt = -1, sourceAt = -1, startAt = -1, endAt = -1
            // The last of a repeated attribute wins, as in the strings path.
            for i in 0..<tag.count {
                switch tag.name(i).count {
                case 4:
                    if tag.nameIs(i, "type") { typeAt = i } else if tag.nameIs(i, "unit") { unitAt = i }
                case 5: if tag.nameIs(i, "value") { valueAt = i }
                case 7: if tag.nameIs(i, "endDate") { endAt = i }
                case 9: if tag.nameIs(i, "startDate") { startAt = i }
                case 10: if tag.nameIs(i, "sourceName") { sourceAt = i }
                default: break
                }
            }
            if typeAt >= 0 { type = strings.shared(tag.value(typeAt)) }
            if unitAt >= 0 { unit = strings.shared(tag.value(unitAt)) }
            if sourceAt >= 0 { source = strings.shared(tag.value(sourceAt)) }
            if valueAt >= 0 {
                parsed = parseNumber(bytes: tag.value(valueAt))
                if !(parsed?.isFinite ?? false) || !type.hasPrefix("HKQuantityTypeIdentifier") {
                    valueText = strings.shared(tag.value(valueAt))
                }
            }
            hasStart = startAt >= 0
            if startAt >= 0 { start = parseDate(bytes: tag.value(startAt)) }
            end = endAt >= 0 ? parseDate(bytes: tag.value(endAt)) : nil
        }
    }

    static func parseRecord(_ attributes: [XMLAttribute], metadata: [(String, String)]) -> Parsed<HealthRecordDraft> {
        parseRecord(RecordFields(attributes: attributes), metadata: metadata)
    }

    /// A `<Record>` as a draft, or the reason it cannot be kept (this runs millions of times per export).
    static func parseRecord(_ fields: RecordFields, metadata: [(String, String)]) -> Parsed<HealthRecordDraft> {
        let type = fields.type, unit = fields.unit, source = fields.source
        guard !type.isEmpty, fields.hasStart else { return .skipped(.missingValue) }
        guard let start = fields.start else { return .skipped(.unparseableDate) }
        guard plausible(start) else { return .skipped(.outOfRange) }
        let end = fields.end ?? start
        let parsed = fields.parsed
        if type.hasPrefix("HKQuantityTypeIdentifier") {
            // A quantity without its number is not a measurement (and would have been stored as 0).
            guard let parsed else { return .skipped(.missingValue) }
            if !parsed.isFinite { return .skipped(.outOfRange) }
        }
        let valueText = fields.valueText
        // Not a finite number ("HKCategoryValueSleepAnalysisAsleep", or "nan"): a category sample.
        let number = parsed.flatMap { $0.isFinite ? $0 : nil }
        let category = number == nil ? valueText : ""
        var draft = HealthRecordDraft(type: type, value: number ?? 0, category: category, unit: unit, start: start, end: end,
                                      device: source, details: metadata.isEmpty ? nil : json(metadata))
        if number == nil, type.hasPrefix("HKCategoryTypeIdentifier") {
            // A category sample (mindful session, stand hour, …): its length is what it measures.
            draft.value = Double(max(0, end - start)) / 60
            draft.unit = "min"
            draft.category = valueText.hasPrefix("HKCategoryValue") ? String(valueText.dropFirst("HKCategoryValue".count)) : valueText
        }
        if let known = known[type] {
            draft.type = known.rawValue
            switch known {
            case .sleep:
                draft.value = Double(max(0, end - start)) / 3600
                draft.unit = "h"
                draft.category = shortName(valueText.replacingOccurrences(of: "HKCategoryValueSleepAnalysis", with: ""))
            case .bodyFat:
                // Apple writes body fat as a fraction with unit "%".
                let fraction = number ?? 0
                draft.value = fraction <= 1 ? fraction * 100 : fraction
                draft.unit = "%"
            default:
                if let factor = HealthUnits.factor(from: unit, for: known) {
                    draft.value = (number ?? 0) * factor
                    draft.unit = known.canonicalUnit
                } else {
                    // A unit Hibi cannot convert: keep the original type so the number is not mislabelled.
                    draft.type = type
                }
            }
        }
        // The same ranges as manual entry (a 1e19 step count once stopped every page that showed it).
        guard HealthRules.isPlausible(type: draft.type, value: draft.value) else { return .skipped(.implausibleValue) }
        return .kept(draft)
    }

    static func workout(_ attributes: [XMLAttribute], metadata: [(String, String)]) -> HealthRecordDraft? {
        var activity = "", source = "", startText = "", endText = "", duration = 0.0, durationUnit = "min"
        var rest: [(String, String)] = []
        for attribute in attributes {
            switch attribute.name {
            case "workoutActivityType": activity = attribute.value
            case "sourceName": source = attribute.value
            case "startDate": startText = attribute.value
            case "endDate": endText = attribute.value
            case "duration": duration = Double(attribute.value) ?? 0
            case "durationUnit": durationUnit = attribute.value
            case "sourceVersion", "device", "creationDate": break
            default: rest.append((attribute.name, attribute.value))
            }
        }
        guard let start = parseDate(startText) else { return nil }
        let end = parseDate(endText) ?? start
        let minutes = duration * (HealthUnits.factor(from: durationUnit, for: .workout) ?? 1)
        return HealthRecordDraft(type: HealthDataType.workout.rawValue, value: minutes, category: shortName(activity), unit: "min",
                                 start: start, end: end, device: source, details: json(rest + metadata))
    }

    static func activitySummary(_ attributes: [XMLAttribute], timeZone: TimeZone) -> HealthRecordDraft? {
        var day = "", energy = 0.0, energyUnit = "kcal"
        var rest: [(String, String)] = []
        for attribute in attributes {
            switch attribute.name {
            case "dateComponents": day = attribute.value
            case "activeEnergyBurned": energy = Double(attribute.value) ?? 0
            case "activeEnergyBurnedUnit": energyUnit = attribute.value
            default: rest.append((attribute.name, attribute.value))
            }
        }
        guard let midnightUTC = parseDate(day) else { return nil }
        // The summary belongs to a local calendar day; store it at that day's local midnight.
        let start = midnightUTC - Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(midnightUTC))))
        let kcal = energy * (HealthUnits.factor(from: energyUnit, for: .activitySummary) ?? 1)
        return HealthRecordDraft(type: HealthDataType.activitySummary.rawValue, value: kcal, unit: "kcal", start: start,
                                 end: start + 86399, device: "Apple Health", details: json(rest))
    }

    /// A JSON object of the pairs, keys sorted, the last value of a repeated key kept.
    static func json(_ pairs: [(String, String)]) -> String {
        CanonicalJSON.object(Dictionary(pairs.map { ($0.0, CanonicalJSON.string($0.1)) }, uniquingKeysWith: { $1 })).render()
    }
}

/// One point of a workout's route: an export's `<Location>` or a `workout-routes/*.gpx` track point.
public struct WorkoutRoutePoint: Equatable, Sendable {
    public var t: Int64
    public var lat: Double
    public var lon: Double
    public var ele: Double?
    public init(t: Int64, lat: Double, lon: Double, ele: Double?) {
        self.t = t
        self.lat = lat
        self.lon = lon
        self.ele = ele
    }

    public static func valid(lat: Double, lon: Double) -> Bool { lat.isFinite && lon.isFinite && abs(lat) <= 90 && abs(lon) <= 180 }
}

/// An element of a file that was not kept, with where it was and why.
public struct ImportSkip: Equatable, Sendable {
    public var kind: String
    public var reason: ImportSkipReason
    public var at: String
}

/// A `<Workout>` with what its children add: statistics, route points written inline (older exports)
/// and the route files it names (newer exports keep routes as GPX files beside export.xml).
public struct AppleHealthWorkout: Equatable, Sendable {
    /// The workout as a health record (type `workout`, minutes), as trends and badges read it.
    public var record: HealthRecordDraft
    public var activity: String
    public var durationMinutes: Double
    public var distanceKm: Double?
    public var energyKcal: Double?
    public var routeFiles: [String] = []
    public var points: [WorkoutRoutePoint] = []
    /// Route points that could not be kept.
    public var skips: [ImportSkip] = []

    /// The workout's id, the same on every import of the same workout, so routes find it without a lookup.
    public func id(userID: String) -> String {
        WorkoutIdentity.id(userID: userID, activity: activity, start: record.start, end: record.end, device: record.device)
    }
}

public enum WorkoutIdentity {
    public static func id(userID: String, activity: String, start: Int64, end: Int64, device: String) -> String {
        var hasher = FNV1a()
        for part in [userID, activity, String(start), String(end), device] {
            hasher.add(part)
            hasher.add("\u{1F}")
        }
        return "w" + String(hasher.value, radix: 16) + String(start, radix: 36)
    }

    /// 64-bit FNV-1a: stable across runs and machines (Swift's Hasher is seeded per process).
    struct FNV1a {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ text: String) {
            for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
    }
}

extension AppleHealthMapping {
    /// Workout statistics from the `<Workout>` attributes (older exports) or its `<WorkoutStatistics>` children.
    static func workoutStatistics(attributes: [XMLAttribute], statistics: [[XMLAttribute]]) -> (distanceKm: Double?, energyKcal: Double?) {
        func value(_ list: [XMLAttribute], _ name: String) -> String? { list.first { $0.name == name }?.value }
        var distance: Double?
        var energy: Double?
        if let text = value(attributes, "totalDistance"), let number = Double(text), number.isFinite,
           let factor = HealthUnits.factor(from: value(attributes, "totalDistanceUnit") ?? "km", for: .walkingRunningDistance) {
            distance = number * factor
        }
        if let text = value(attributes, "totalEnergyBurned"), let number = Double(text), number.isFinite,
           let factor = HealthUnits.factor(from: value(attributes, "totalEnergyBurnedUnit") ?? "kcal", for: .activeCalories) {
            energy = number * factor
        }
        for item in statistics {
            guard let type = value(item, "type"), let text = value(item, "sum"), let number = Double(text), number.isFinite else { continue }
            let unit = value(item, "unit") ?? ""
            if type.hasPrefix("HKQuantityTypeIdentifierDistance"), distance == nil,
               let factor = HealthUnits.factor(from: unit, for: .walkingRunningDistance) {
                distance = number * factor
            } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned", energy == nil,
                      let factor = HealthUnits.factor(from: unit, for: .activeCalories) {
                energy = number * factor
            }
        }
        return (distance, energy)
    }

    /// A `<Location>` of an inline WorkoutRoute, or why it cannot be kept.
    enum Parsed<T> { case kept(T), skipped(ImportSkipReason) }

    static func location(_ attributes: [XMLAttribute]) -> Parsed<WorkoutRoutePoint> {
        var date: String?, lat: Double?, lon: Double?, ele: Double?
        for attribute in attributes {
            switch attribute.name {
            case "date": date = attribute.value
            case "latitude": lat = Double(attribute.value)
            case "longitude": lon = Double(attribute.value)
            case "altitude": ele = Double(attribute.value).flatMap { $0.isFinite ? $0 : nil }
            default: break
            }
        }
        guard let date, let lat, let lon else { return .skipped(.missingValue) }
        guard let t = parseDate(date) else { return .skipped(.unparseableDate) }
        guard WorkoutRoutePoint.valid(lat: lat, lon: lon), plausible(t) else { return .skipped(.outOfRange) }
        return .kept(WorkoutRoutePoint(t: t, lat: lat, lon: lon, ele: ele))
    }

    /// A blood pressure correlation's members as "121/79"; other correlations list their members' short names.
    static func correlationSummary(type: String, members: [HealthRecordDraft]) -> String {
        if type == "HKCorrelationTypeIdentifierBloodPressure",
           let systolic = members.first(where: { $0.type == HealthDataType.bloodPressureSystolic.rawValue }),
           let diastolic = members.first(where: { $0.type == HealthDataType.bloodPressureDiastolic.rawValue }) {
            return "\(number(systolic.value))/\(number(diastolic.value))"
        }
        return members.map { shortName($0.type) }.joined(separator: ", ")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// What the export parser hands out, one at a time. Every element the report counts comes out as
/// exactly one item, kept or skipped, so the counts add up to the file's.
public enum AppleHealthItem: Equatable {
    /// A record to store; `kind` is the element it came from (Record, Correlation, ActivitySummary).
    case record(HealthRecordDraft, kind: String)
    case workout(AppleHealthWorkout)
    case skipped(ImportSkip)
    case birthDate(String)
}

/// Walks an export.xml: Records (with their MetadataEntry children), Correlations and the Records
/// inside them, Workouts with their statistics and routes, ActivitySummaries, Me. Anything else
/// directly under HealthData is reported as not kept.
public final class AppleHealthExportParser {
    private let reader: XMLStreamReader
    private let timeZone: TimeZone
    private var sawHealthData = false
    private var depth = 0
    private var record: AppleHealthMapping.RecordFields?
    private var strings = AppleHealthStrings()
    private var recordMetadata: [(String, String)] = []
    private var correlation: (attributes: [XMLAttribute], members: [HealthRecordDraft])?
    private var workout: (attributes: [XMLAttribute], statistics: [[XMLAttribute]],
                          routeFiles: [String], points: [WorkoutRoutePoint], skips: [ImportSkip])?
    private var inRoute = false
    /// The open Workout's or Correlation's own metadata (the two never nest).
    private var outerMetadata: [(String, String)] = []
    private var metadataBytes = 0
    private var ready: [AppleHealthItem] = []
    /// Bounds on one record's metadata: an export has a few entries of a few dozen bytes each, while a
    /// 300 KB ZIP holding 300 entries of 1 MB once cost 1.3 GB and wrote a 300 MB row.
    public static let maxMetadataEntries = 64
    public static let maxMetadataBytes = 16 * 1024
    /// Inline route points of one workout: a day-long hike at one point a second is 86,400.
    public static let maxRoutePoints = 200_000
    /// Each attribute value at most 16 KB, each tag 64 KB: far above any real export's.
    public static let limits = XMLLimits(maxValueBytes: 16 * 1024, maxTagBytes: 64 * 1024, maxAttributes: 64)
    static let topLevel: Set<String> = ["ExportDate", "Me", "Record", "Correlation", "Workout", "ActivitySummary"]

    public init(stream: any ByteStream, timeZone: TimeZone) {
        self.reader = XMLStreamReader(stream: stream, limits: Self.limits)
        self.timeZone = timeZone
    }

    public var line: Int { reader.line }
    public var bytesRead: Int64 { reader.bytesRead }

    private func skip(_ kind: String, _ reason: ImportSkipReason) -> AppleHealthItem {
        .skipped(ImportSkip(kind: kind, reason: reason, at: "line \(reader.line)"))
    }

    private func addMetadata(_ attributes: XMLTagAttributes, to list: inout [(String, String)]) throws {
        var key = "", value = ""
        for i in 0..<attributes.count {
            if attributes.nameIs(i, "key") { key = strings.shared(attributes.value(i)) } else if attributes.nameIs(i, "value") { value = attributes.valueString(i) }
        }
        guard !key.isEmpty else { return }
        list.append((key, value))
        metadataBytes += key.utf8.count + value.utf8.count
        guard list.count <= Self.maxMetadataEntries, metadataBytes <= Self.maxMetadataBytes else {
            throw HealthError.tooMuchMetadata(line: reader.line, maxEntries: Self.maxMetadataEntries, maxBytes: Self.maxMetadataBytes)
        }
    }

    public func next() throws -> AppleHealthItem? {
        if !ready.isEmpty { return ready.removeFirst() }
        while let token = try reader.nextToken() {
            switch token {
            case let .start(name):
                depth += 1
                if !sawHealthData {
                    guard name == "HealthData" else {
                        throw HealthError.notAnExport(Text(en: "the root element is <\(name)>, not <HealthData>.",
                                                           ja: "ルート要素が <HealthData> ではなく <\(name)> です。"))
                    }
                    sawHealthData = true
                    continue
                }
                if let item = try start(name, reader.attributes) { return item }
            case .text:
                continue // not asked for: the export keeps its data in attributes
            case let .end(name):
                depth -= 1
                if let item = end(name) { return item }
            }
        }
        if !sawHealthData {
            throw HealthError.notAnExport(Text(en: "there is no <HealthData> element.", ja: "<HealthData> 要素がありません。"))
        }
        return nil
    }

    /// `tag` holds the tokenizer's bytes, valid during this call only: a Record takes the six it
    /// keeps from them, other elements (a few per day, not per minute) take them all as strings.
    private func start(_ name: String, _ tag: XMLTagAttributes) throws -> AppleHealthItem? {
        switch name {
        case "Record" where record == nil:
            // Top level or inside a Correlation; a Workout's children are never Records.
            record = AppleHealthMapping.RecordFields(tag, strings: &strings)
            recordMetadata.removeAll(keepingCapacity: true)
            metadataBytes = 0
        case "Correlation" where depth == 2:
            correlation = (tag.materialized, [])
            outerMetadata.removeAll()
            metadataBytes = 0
        case "Workout" where depth == 2:
            workout = (tag.materialized, [], [], [], [])
            outerMetadata.removeAll()
            metadataBytes = 0
        case "MetadataEntry":
            if record != nil {
                try addMetadata(tag, to: &recordMetadata)
            } else if inRoute {
                break // the route's own sync metadata: nothing a person reads
            } else if workout != nil {
                try addMetadata(tag, to: &outerMetadata)
            } else if correlation != nil {
                try addMetadata(tag, to: &outerMetadata)
            }
        case "WorkoutStatistics" where workout != nil:
            if workout?.statistics.count ?? 0 < 64 { workout?.statistics.append(tag.materialized) }
        case "WorkoutRoute" where workout != nil:
            inRoute = true
        case "FileReference" where inRoute:
            if let path = tag.materialized.first(where: { $0.name == "path" })?.value, !path.isEmpty, workout?.routeFiles.count ?? 0 < 16 {
                workout?.routeFiles.append(path)
            }
        case "Location" where inRoute:
            switch AppleHealthMapping.location(tag.materialized) {
            case let .kept(point):
                if workout?.points.count ?? 0 < Self.maxRoutePoints {
                    workout?.points.append(point)
                } else {
                    workout?.skips.append(ImportSkip(kind: "Location", reason: .tooMany, at: "line \(reader.line)"))
                }
            case let .skipped(reason):
                workout?.skips.append(ImportSkip(kind: "Location", reason: reason, at: "line \(reader.line)"))
            }
        case "ActivitySummary" where depth == 2:
            let attributes = tag.materialized
            if let draft = AppleHealthMapping.activitySummary(attributes, timeZone: timeZone) {
                guard HealthRules.isPlausible(type: draft.type, value: draft.value) else { return skip(name, .implausibleValue) }
                return .record(draft, kind: name)
            }
            let day = attributes.first { $0.name == "dateComponents" }?.value
            return skip(name, day == nil ? .missingValue : .unparseableDate)
        case "Me" where depth == 2:
            if let birth = tag.materialized.first(where: { $0.name == "HKCharacteristicTypeIdentifierDateOfBirth" })?.value, !birth.isEmpty {
                return .birthDate(birth)
            }
        default:
            if depth == 2, !Self.topLevel.contains(name) {
                // ClinicalRecord, Audiogram, VisionPrescription, …: said, not silently passed over.
                return skip(name, .unsupported)
            }
        }
        return nil
    }

    private func end(_ name: String) -> AppleHealthItem? {
        switch name {
        case "Record" where record != nil:
            guard let fields = record else { return nil }
            record = nil
            let draft: HealthRecordDraft
            switch AppleHealthMapping.parseRecord(fields, metadata: recordMetadata) {
            case let .kept(kept): draft = kept
            case let .skipped(reason): return skip(name, reason)
            }
            if correlation != nil, correlation?.members.count ?? 0 < 64 { correlation?.members.append(draft) }
            return .record(draft, kind: name)
        case "WorkoutRoute":
            inRoute = false
        case "Correlation" where depth == 1:
            guard let open = correlation else { return nil }
            correlation = nil
            if let reason = AppleHealthMapping.recordProblem(open.attributes) { return skip(name, reason) }
            guard var draft = AppleHealthMapping.record(open.attributes, metadata: outerMetadata) else { return skip(name, .unparseableDate) }
            let type = draft.type
            // The pair (or the meal) as one row naming its members: the members are rows of their own too.
            draft.value = Double(open.members.count)
            draft.unit = "count"
            draft.category = AppleHealthMapping.correlationSummary(type: type, members: open.members)
            var details = outerMetadata
            details.append(("members", open.members.map { "\(AppleHealthMapping.shortName($0.type)) \(AppleHealthMapping.number($0.value)) \($0.unit)" }
                .joined(separator: "; ")))
            draft.details = AppleHealthMapping.json(details)
            return .record(draft, kind: name)
        case "Workout" where depth == 1:
            guard let open = workout else { return nil }
            workout = nil
            inRoute = false
            guard let draft = AppleHealthMapping.workout(open.attributes, metadata: outerMetadata) else {
                return skip(name, open.attributes.contains { $0.name == "startDate" } ? .unparseableDate : .missingValue)
            }
            guard AppleHealthMapping.plausible(draft.start) else { return skip(name, .outOfRange) }
            guard HealthRules.isPlausible(type: draft.type, value: draft.value) else { return skip(name, .implausibleValue) }
            let stats = AppleHealthMapping.workoutStatistics(attributes: open.attributes, statistics: open.statistics)
            return .workout(AppleHealthWorkout(record: draft, activity: draft.category, durationMinutes: draft.value,
                                               distanceKm: stats.distanceKm, energyKcal: stats.energyKcal, routeFiles: open.routeFiles,
                                               points: open.points, skips: open.skips))
        default:
            break
        }
        return nil
    }
}

/// Shares the strings an export repeats millions of times (types, units, source names, metadata keys):
/// a value read as bytes becomes the String made the last time the same bytes were seen. A small
/// direct-mapped table, so a file with millions of distinct values costs no more memory than one with a
/// few (a miss just makes the string). Each shared String saves an allocation and its UTF-8 check per record.
struct AppleHealthStrings {
    private static let slots = 1024
    private var table = [String?](repeating: nil, count: AppleHealthStrings.slots)

    mutating func shared(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= 256 else { return String(decoding: bytes, as: UTF8.self) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let slot = Int(truncatingIfNeeded: hash ^ (hash >> 32)) & (Self.slots - 1)
        if let known = table[slot], Self.same(known, bytes) { return known }
        let made = String(decoding: bytes, as: UTF8.self)
        table[slot] = made
        return made
    }

    private static func same(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == bytes.count && sameBytes(utf8.baseAddress, bytes.baseAddress, bytes.count)
        }
    }
}
