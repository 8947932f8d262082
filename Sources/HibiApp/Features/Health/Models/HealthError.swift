import HTTPTypes

public enum HealthError: UserFacingError, Equatable {
    case unknownType(String)
    case unknownUnit(unit: String, type: String)
    case outOfRange(type: String, min: Double, max: Double, unit: String)
    case notANumber
    /// Typed or written so that it reads as no number, or as two ("1,5").
    case unreadableNumber(NumberInputError)
    case endBeforeStart
    case futureDate
    case duplicate
    case recordNotFound
    case goalNotFound
    case reminderNotFound
    case jobNotFound
    case malformedFile(XMLStreamError)
    case notAnExport(Text)
    /// A Health Auto Export post that is not the app's JSON.
    case invalidPayload(Text)
    case invalidCSV(line: Int, reason: Text)
    case invalidField(String, Text)
    case uploadTooLarge(limitBytes: Int64)
    case renderFailed
    /// A record with more metadata than Hibi keeps (a real export has a handful of entries per record).
    case tooMuchMetadata(line: Int, maxEntries: Int, maxBytes: Int)

    public var status: HTTPResponse.Status {
        switch self {
        case .recordNotFound, .goalNotFound, .reminderNotFound, .jobNotFound: .notFound
        case .duplicate: .conflict
        case .uploadTooLarge: .contentTooLarge
        case .renderFailed: .serviceUnavailable
        case .malformedFile, .notAnExport, .invalidCSV, .tooMuchMetadata, .invalidPayload: .unprocessableContent
        default: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .unknownType: "unknown_type"
        case .unknownUnit: "unknown_unit"
        case .outOfRange: "out_of_range"
        case .notANumber: "not_a_number"
        case let .unreadableNumber(error): if case .ambiguous = error { "ambiguous_number" } else { "not_a_number" }
        case .endBeforeStart: "end_before_start"
        case .futureDate: "future_date"
        case .duplicate: "duplicate_record"
        case .recordNotFound, .goalNotFound, .reminderNotFound, .jobNotFound: "not_found"
        case .malformedFile: "malformed_file"
        case .notAnExport: "not_an_export"
        case .invalidPayload: "invalid_payload"
        case .invalidCSV: "invalid_csv"
        case .invalidField: "invalid_field"
        case .uploadTooLarge: "upload_too_large"
        case .renderFailed: "render_failed"
        case .tooMuchMetadata: "too_much_metadata"
        }
    }

    public var text: Text {
        switch self {
        case let .unknownType(type):
            Text(en: "\"\(type)\" is not a record type Hibi knows.", ja: "「\(type)」は Hibi が扱える記録の種類ではありません。")
        case let .unknownUnit(unit, type):
            Text(en: "The unit \"\(unit)\" does not fit \(HealthDataType.title(of: type).en).",
                 ja: "単位「\(unit)」は\(HealthDataType.title(of: type).ja)には使えません。")
        case let .outOfRange(type, min, max, unit):
            // Grouped, and the unit as read ("0 and 200,000 steps" said "200000 count").
            { (label: Text) in
                let known = HealthDataType(rawValue: type)
                func range(_ l: Language) -> String {
                    let shown = HealthUnits.label(unit, type: known)(l)
                    let (low, high) = (HealthFormat.grouped(min, maxFractionDigits: 2, language: l), HealthFormat.grouped(max, maxFractionDigits: 2, language: l))
                    return l == .ja ? "\(low)〜\(high)" + (shown.isEmpty ? "" : " \(shown)") : "\(low) and \(high)" + (shown.isEmpty ? "" : " \(shown)")
                }
                return Text(en: "\(label.en) must be between \(range(.en)).", ja: "\(label.ja)は \(range(.ja)) の範囲で入力してください。")
            }(HealthDataType.title(of: type))
        case .notANumber:
            Text(en: "The value must be a number.", ja: "値は数値で入力してください。")
        case let .unreadableNumber(error):
            error.text
        case .endBeforeStart:
            Text(en: "The end time is before the start time.", ja: "終了時刻が開始時刻より前です。")
        case .futureDate:
            Text(en: "The time is in the future.", ja: "未来の日時は記録できません。")
        case .duplicate:
            Text(en: "An identical record already exists.", ja: "同じ記録がすでにあります。")
        case .recordNotFound:
            Text(en: "Record not found.", ja: "記録が見つかりません。")
        case .goalNotFound:
            Text(en: "Goal not found.", ja: "目標が見つかりません。")
        case .reminderNotFound:
            Text(en: "Reminder not found.", ja: "リマインダーが見つかりません。")
        case .jobNotFound:
            Text(en: "Import not found.", ja: "インポートが見つかりません。")
        case let .malformedFile(error):
            Text(en: "The file is not a valid Apple Health export: \(error.text.en).",
                 ja: "Apple ヘルスケアの書き出しファイルとして読めません: \(error.text.ja)。")
        case let .notAnExport(reason):
            Text(en: "This is not an Apple Health export: \(reason.en)", ja: "Apple ヘルスケアの書き出しではありません: \(reason.ja)")
        case let .invalidPayload(reason):
            Text(en: "This is not a Health Auto Export post: \(reason.en)", ja: "Health Auto Export の送信データではありません: \(reason.ja)")
        case let .invalidCSV(line, reason):
            Text(en: "CSV line \(line): \(reason.en)", ja: "CSV \(line) 行目: \(reason.ja)")
        case let .invalidField(field, reason):
            Text(en: "\(field): \(reason.en)", ja: "\(field): \(reason.ja)")
        case let .uploadTooLarge(limit):
            Text(en: "The file is larger than the limit of \(limit / 1_048_576) MB.", ja: "ファイルが上限(\(limit / 1_048_576) MB)を超えています。")
        case .renderFailed:
            Text(en: "The image could not be drawn right now. Try again later.", ja: "画像を作成できませんでした。しばらくしてからもう一度お試しください。")
        case let .tooMuchMetadata(line, entries, bytes):
            Text(en: "The record ending on line \(line) has more metadata than Hibi keeps (\(entries) entries, \(bytes / 1024) KB). Records before it were imported.",
                 ja: "\(line) 行目で終わる記録のメタデータが Hibi の上限(\(entries) 件、\(bytes / 1024) KB)を超えています。それより前の記録は取り込まれました。")
        }
    }

    public func message(_ language: Language) -> String { text(language) }
}
