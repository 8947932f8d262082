import Foundation

/// How Apple Health's export elements become Hibi records.
public enum AppleHealthMapping {
    static let known: [String: HealthDataType] = [
        "HKQuantityTypeIdentifierBodyMass": .weight,
        "HKQuantityTypeIdentifierStepCount": .steps,
        "HKQuantityTypeIdentifierActiveEnergyBurned": .activeCalories,
        "HKQuantityTypeIdentifierHeartRate": .heartRate,
        "HKQuantityTypeIdentifierRestingHeartRate": .restingHeartRate,
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
        var utf8 = text.utf8.makeIterator()
        func digits(_ n: Int) -> Int? {
            var v = 0
            for _ in 0..<n {
                guard let c = utf8.next(), c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        func expect(_ byte: UInt8) -> Bool { utf8.next() == byte }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        var seconds = 0
        var offset = 0
        if let sep = utf8.next() {
            guard sep == 0x20 || sep == 0x54, let h = digits(2), expect(0x3A), let m = digits(2), expect(0x3A), let s = digits(2) else { return nil }
            seconds = h * 3600 + m * 60 + s
            var c = utf8.next()
            if c == 0x20 { c = utf8.next() }
            if let sign = c {
                if sign == 0x5A { offset = 0 } else {
                    guard sign == 0x2B || sign == 0x2D, let oh = digits(2) else { return nil }
                    var om: Int
                    var next = utf8.next()
                    if next == 0x3A { next = utf8.next() }
                    guard let n1 = next, n1 >= 0x30, n1 <= 0x39, let n2 = utf8.next(), n2 >= 0x30, n2 <= 0x39 else { return nil }
                    om = Int(n1 - 0x30) * 10 + Int(n2 - 0x30)
                    offset = (oh * 3600 + om * 60) * (sign == 0x2D ? -1 : 1)
                }
            }
        }
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        return Int64(daysFromCivil(year: year, month: month, day: day)) * 86400 + Int64(seconds - offset)
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
        var type = "", unit = "", valueText = "", source = "", startText = "", endText = ""
        for attribute in attributes {
            switch attribute.name {
            case "type": type = attribute.value
            case "unit": unit = attribute.value
            case "value": valueText = attribute.value
            case "sourceName": source = attribute.value
            case "startDate": startText = attribute.value
            case "endDate": endText = attribute.value
            default: break
            }
        }
        guard !type.isEmpty, let start = parseDate(startText) else { return nil }
        let end = parseDate(endText) ?? start
        // Not a finite number ("HKCategoryValueSleepAnalysisAsleep", or "nan"): a category sample.
        let number = Double(valueText).flatMap { $0.isFinite ? $0 : nil }
        let category = number == nil ? valueText : ""
        var draft = HealthRecordDraft(type: type, value: number ?? 0, category: category, unit: unit, start: start, end: end,
                                      device: source, details: metadata.isEmpty ? nil : json(metadata))
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
        return draft
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

/// What the export parser hands out, one at a time.
public enum AppleHealthItem: Equatable {
    case record(HealthRecordDraft)
    case birthDate(String)
}

/// Walks an export.xml: Records (with their MetadataEntry children), Workouts, ActivitySummaries, Me.
public final class AppleHealthExportParser {
    private let reader: XMLStreamReader
    private let timeZone: TimeZone
    private var sawHealthData = false
    private var pending: (kind: String, attributes: [XMLAttribute])?
    private var metadata: [(String, String)] = []
    private var metadataBytes = 0
    /// Bounds on one record's metadata: an export has a few entries of a few dozen bytes each, while a
    /// 300 KB ZIP holding 300 entries of 1 MB once cost 1.3 GB and wrote a 300 MB row.
    public static let maxMetadataEntries = 64
    public static let maxMetadataBytes = 16 * 1024
    /// Each attribute value at most 16 KB, each tag 64 KB: far above any real export's.
    public static let limits = XMLLimits(maxValueBytes: 16 * 1024, maxTagBytes: 64 * 1024, maxAttributes: 64)

    public init(stream: any ByteStream, timeZone: TimeZone) {
        self.reader = XMLStreamReader(stream: stream, limits: Self.limits)
        self.timeZone = timeZone
    }

    public var line: Int { reader.line }
    public var bytesRead: Int64 { reader.bytesRead }

    public func next() throws -> AppleHealthItem? {
        while let event = try reader.nextEvent() {
            switch event {
            case let .start(name, attributes):
                if !sawHealthData {
                    guard name == "HealthData" else {
                        throw HealthError.notAnExport(Text(en: "the root element is <\(name)>, not <HealthData>.",
                                                           ja: "ルート要素が <HealthData> ではなく <\(name)> です。"))
                    }
                    sawHealthData = true
                    continue
                }
                switch name {
                case "Record", "Workout":
                    // Nested Records (inside a Correlation) are still records; a Workout's children are its metadata.
                    pending = (name, attributes)
                    metadata.removeAll(keepingCapacity: true)
                    metadataBytes = 0
                case "MetadataEntry":
                    if pending != nil {
                        var key = "", value = ""
                        for attribute in attributes {
                            if attribute.name == "key" { key = attribute.value } else if attribute.name == "value" { value = attribute.value }
                        }
                        if !key.isEmpty {
                            metadata.append((key, value))
                            metadataBytes += key.utf8.count + value.utf8.count
                            guard metadata.count <= Self.maxMetadataEntries, metadataBytes <= Self.maxMetadataBytes else {
                                throw HealthError.tooMuchMetadata(line: reader.line, maxEntries: Self.maxMetadataEntries, maxBytes: Self.maxMetadataBytes)
                            }
                        }
                    }
                case "ActivitySummary":
                    if let draft = AppleHealthMapping.activitySummary(attributes, timeZone: timeZone) { return .record(draft) }
                case "Me":
                    if let birth = attributes.first(where: { $0.name == "HKCharacteristicTypeIdentifierDateOfBirth" })?.value, !birth.isEmpty {
                        return .birthDate(birth)
                    }
                default:
                    break
                }
            case .text:
                continue // not asked for: the export keeps its data in attributes
            case let .end(name):
                guard let open = pending, open.kind == name else { continue }
                pending = nil
                let draft = name == "Record"
                    ? AppleHealthMapping.record(open.attributes, metadata: metadata)
                    : AppleHealthMapping.workout(open.attributes, metadata: metadata)
                if let draft { return .record(draft) }
            }
        }
        if !sawHealthData {
            throw HealthError.notAnExport(Text(en: "there is no <HealthData> element.", ja: "<HealthData> 要素がありません。"))
        }
        return nil
    }
}
