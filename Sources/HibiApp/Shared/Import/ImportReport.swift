import Foundation

/// Why an element of an imported file was not added. Codes are stable (clients and tests read
/// them); the words are for people.
public enum ImportSkipReason: String, Codable, Sendable, CaseIterable {
    case unknownUnit
    case unparseableDate
    case outOfRange
    case missingValue
    /// An element kind Hibi does not keep (Apple Health's ClinicalRecord, Audiogram, …).
    case unsupported
    /// A file the export names (a workout route's GPX) that is not in the upload.
    case missingFile
    /// More of one kind inside one element than Hibi keeps (route points of one workout).
    case tooMany
    /// A value outside the range Hibi accepts for its kind, the same range as manual entry
    /// (`HealthRules.plausibleRange`): 1e19 steps would stop every page that sums them.
    case implausibleValue
    /// A position dated before 1970 (a GPS without a fix, a 32-bit clock's floor): kept out of the location history.
    case beforeEpoch
    /// A position dated more than a day after the import: kept out of the location history.
    case inFuture
    /// Every timed point of the file at one second (a logger that never set its clock): kept out of the location history.
    case sameSecond
    /// A place written at [0, 0], where Google puts a saved place it cannot place.
    case noPosition
    /// Text longer than Hibi keeps for its field (a name over 200 characters, …).
    case tooLong
    /// A file the import names that is there but cannot be read (damaged, not the format its name says).
    case unreadable
    /// A file with no position in it (an indoor workout): the workout is kept, without a route.
    case noPoints

    public var text: Text {
        switch self {
        case .unknownUnit: Text(en: "unknown unit", ja: "不明な単位")
        case .unparseableDate: Text(en: "date that cannot be read", ja: "読めない日時")
        case .outOfRange: Text(en: "value out of range", ja: "範囲外の値")
        case .missingValue: Text(en: "missing value", ja: "値がありません")
        case .unsupported: Text(en: "kind of element Hibi does not keep", ja: "Hibi が保存しない種類の要素")
        case .missingFile: Text(en: "file named in the export but not in the upload", ja: "エクスポートに記載されているがアップロードに含まれないファイル")
        case .tooMany: Text(en: "more than Hibi keeps for one element", ja: "1 つの要素に対して保存できる上限を超えた分")
        case .implausibleValue: Text(en: "value outside the range accepted for its kind (the same as for manual entry)",
                                     ja: "種類ごとに受け付ける範囲外の値(手入力と同じ範囲)")
        case .beforeEpoch: Text(en: "suspicious: a time before 1970", ja: "不審な日時(1970年より前)")
        case .inFuture: Text(en: "suspicious: a time in the future", ja: "不審な日時(未来)")
        case .sameSecond: Text(en: "suspicious: every point at the same second", ja: "不審な日時(すべての地点が同じ秒)")
        case .noPosition: Text(en: "no position (written at [0, 0]: Google could not place it)", ja: "位置なし([0, 0]: Google が位置を特定できなかった場所)")
        case .tooLong: Text(en: "text longer than Hibi keeps", ja: "Hibi が保存できる長さを超えた文字列")
        case .unreadable: Text(en: "file that cannot be read", ja: "読み込めないファイル")
        case .noPoints: Text(en: "file without a position (the workout is kept without a route)", ja: "位置のないファイル(ワークアウトは経路なしで保存)")
        }
    }

    /// The reason for `count` elements, with the count where it is the point ("all 184 points at the same second").
    public func text(count: Int) -> Text {
        // One skipped thing (a workout whose file never saw its clock move) reads as the reason itself, not "all 1 points".
        guard self == .sameSecond, count > 1 else { return text }
        return Text(en: "suspicious: all \(count) points at the same second", ja: "不審な日時(\(count) 件すべてが同じ秒)")
    }
}

/// What one import did, per kind of element: added, skipped as duplicates, skipped with a reason,
/// and how many were added with an approximate time. Built by the parsers (pure), stored or
/// answered as it is, so nothing is dropped without a word.
public struct ImportReport: Codable, Sendable, Equatable {
    public struct Skip: Codable, Sendable, Equatable {
        public var reason: ImportSkipReason
        public var count: Int
        /// Where the first such element was (a line for XML, an item or path for JSON), if known.
        public var firstAt: String?
    }

    public struct Kind: Codable, Sendable, Equatable {
        public var kind: String
        public var added: Int = 0
        public var duplicates: Int = 0
        /// Added with a time that is not their own (a GPX waypoint without <time>).
        public var approximateTime: Int = 0
        /// Read with a time that named no zone, taken as UTC as GPX 1.1 says (nil: none).
        public var readAsUTC: Int?
        public var skipped: [Skip] = []

        public var skippedCount: Int { skipped.reduce(0) { $0 &+ $1.count } }
    }

    public var kinds: [Kind] = []

    public init() {}

    public var added: Int { kinds.reduce(0) { $0 &+ $1.added } }
    public var duplicates: Int { kinds.reduce(0) { $0 &+ $1.duplicates } }
    public var skipped: Int { kinds.reduce(0) { $0 &+ $1.skippedCount } }

    private mutating func update(_ kind: String, _ change: (inout Kind) -> Void) {
        if let index = kinds.firstIndex(where: { $0.kind == kind }) {
            change(&kinds[index])
        } else {
            var entry = Kind(kind: kind)
            change(&entry)
            kinds.append(entry)
        }
    }

    public mutating func add(_ kind: String, approximateTime: Bool = false) {
        update(kind) { entry in
            entry.added &+= 1
            if approximateTime { entry.approximateTime &+= 1 }
        }
    }

    public mutating func duplicate(_ kind: String) {
        update(kind) { $0.duplicates &+= 1 }
    }

    /// Counts a batch at once: `added` new, `duplicates` already there (zero counts still name the kind).
    public mutating func count(_ kind: String, added: Int, duplicates: Int) {
        update(kind) { entry in
            entry.added &+= added
            entry.duplicates &+= duplicates
        }
    }

    /// Adds another report's counts to this one, kind by kind (first positions kept).
    public mutating func merge(_ other: ImportReport) {
        for entry in other.kinds {
            update(entry.kind) { mine in
                mine.added &+= entry.added
                mine.duplicates &+= entry.duplicates
                mine.approximateTime &+= entry.approximateTime
                if let utc = entry.readAsUTC { mine.readAsUTC = (mine.readAsUTC ?? 0) &+ utc }
                for skip in entry.skipped {
                    if let index = mine.skipped.firstIndex(where: { $0.reason == skip.reason }) {
                        mine.skipped[index].count &+= skip.count
                    } else {
                        mine.skipped.append(skip)
                    }
                }
            }
        }
    }

    /// Counts an element whose time named no zone and was read as UTC.
    public mutating func readAsUTC(_ kind: String) {
        update(kind) { $0.readAsUTC = ($0.readAsUTC ?? 0) &+ 1 }
    }

    public mutating func skip(_ kind: String, _ reason: ImportSkipReason, at position: String? = nil) {
        update(kind) { entry in
            if let index = entry.skipped.firstIndex(where: { $0.reason == reason }) {
                entry.skipped[index].count &+= 1
            } else {
                entry.skipped.append(Skip(reason: reason, count: 1, firstAt: position))
            }
        }
    }

    /// The kinds of element the importers count, named as a person would ("Record" is Apple's element name,
    /// "wpt" GPX's): the report's `kind` stays the stable code, the words go through here. A kind not listed
    /// (an Apple element Hibi does not keep) is shown as the file names it.
    static let kindNames: [String: Text] = [
        "Record": Text(en: "Health records", ja: "健康の記録"),
        "Workout": Text(en: "Workouts", ja: "ワークアウト"),
        "ActivitySummary": Text(en: "Activity rings", ja: "アクティビティリング"),
        "Correlation": Text(en: "Paired readings (blood pressure, …)", ja: "組になった記録(血圧など)"),
        "Location": Text(en: "Workout route points", ja: "ワークアウトの経路の地点"),
        "location history": Text(en: "Location history", ja: "位置履歴"),
        "electrocardiogram": Text(en: "Electrocardiograms", ja: "心電図"),
        "FileReference": Text(en: "Files the export names", ja: "エクスポートが参照するファイル"),
        "workout-routes file": Text(en: "Workout route files", ja: "ワークアウトの経路ファイル"),
        "ClinicalRecord": Text(en: "Clinical records", ja: "診療記録"),
        "Audiogram": Text(en: "Audiograms", ja: "聴力検査"),
        "VisionPrescription": Text(en: "Vision prescriptions", ja: "視力の処方"),
        "wpt": Text(en: "Waypoints", ja: "ウェイポイント"),
        "rtept": Text(en: "Route points", ja: "ルートポイント"),
        "trkpt": Text(en: "Track points", ja: "トラックポイント"),
        "point": Text(en: "Location points", ja: "位置の記録"),
        "location": Text(en: "Locations", ja: "位置情報"),
        "visit": Text(en: "Visits", ja: "訪問"),
        "placeVisit": Text(en: "Place visits", ja: "場所への訪問"),
        "activitySegment": Text(en: "Journeys", ja: "移動"),
        "timelineObject": Text(en: "Timeline items", ja: "タイムラインの項目"),
        "segment": Text(en: "Timeline segments", ja: "タイムラインの区間"),
        "simplifiedRawPath": Text(en: "Path points", ja: "経路の地点"),
        "feature": Text(en: "Map features", ja: "地図の地物"),
        "saved place": Text(en: "Saved places", ja: "保存した場所"),
        "apple-health": Text(en: "Apple Health export", ja: "Apple ヘルスケアの書き出し"),
        "Strava activity file": Text(en: "Strava activity files (routes)", ja: "Strava のアクティビティのファイル(経路)"),
    ]

    public static func kindName(_ kind: String) -> Text {
        kindNames[kind] ?? Text(en: kind, ja: kind)
    }

    /// One line per kind, for the CLI and the web result ("wpt: 3 added, 2 of them with an approximate time, 1 already there").
    public func lines(_ language: Language) -> [String] {
        kinds.map { entry in
            var parts: [String] = []
            if language == .ja {
                parts.append("\(entry.added) 件追加")
                if entry.approximateTime > 0 { parts.append("うち \(entry.approximateTime) 件は時刻が推定") }
                if let utc = entry.readAsUTC, utc > 0 { parts.append("\(utc) 件はタイムゾーンのない時刻を UTC として読み取り") }
                if entry.duplicates > 0 { parts.append("\(entry.duplicates) 件は取り込み済み") }
                for skip in entry.skipped {
                    parts.append("\(skip.reason.text(count: skip.count).ja) \(skip.count) 件をスキップ" + (skip.firstAt.map { "(最初は \($0))" } ?? ""))
                }
                return "\(Self.kindName(entry.kind).ja): " + parts.joined(separator: "、")
            }
            parts.append("\(entry.added) added")
            if entry.approximateTime > 0 { parts.append("\(entry.approximateTime) of them with an approximate time") }
            if let utc = entry.readAsUTC, utc > 0 { parts.append("\(utc) with a time without a zone, read as UTC") }
            if entry.duplicates > 0 { parts.append("\(entry.duplicates) already there") }
            for skip in entry.skipped {
                parts.append("\(skip.count) skipped: \(skip.reason.text(count: skip.count).en)" + (skip.firstAt.map { " (first at \($0))" } ?? ""))
            }
            return "\(Self.kindName(entry.kind).en): " + parts.joined(separator: ", ")
        }
    }
}
