import Foundation
import SwiftCSV

/// CSV of records: type,value,unit,start,end,source,device,category (ISO-8601 times, UTF-8).
public enum HealthCSV {
    public static let header = "type,value,unit,start,end,source,device,category"

    public static func line(_ record: HealthRecord) -> String {
        [record.type, HealthFormat.number(record.value, maxFractionDigits: 6), record.unit, iso(record.start), iso(record.end),
         record.source.rawValue, record.device, record.category].map(CSVField.escape).joined(separator: ",")
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    /// Every row of the text as fields (RFC 4180: quoted fields may hold commas, quotes and newlines, so
    /// whatever `line` wrote reads back), by SwiftCSV. Rows are numbered from 1 as a spreadsheet shows them.
    static func rows(_ text: String) throws(HealthError) -> [[String]] {
        final class Rows { var all: [[String]] = [] }
        let rows = Rows()
        do {
            // rowLimit 0: the initialiser reads only the first row as a header; every row is read once, below.
            let csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false, rowLimit: 0)
            try csv.enumerateAsArray(startAt: 0, rowLimit: nil) { rows.all.append($0) }
        } catch {
            throw .invalidCSV(line: rows.all.count + 1, reason: Text(en: "a quote is out of place (quote a field whole, and double quotes inside it)",
                                                                   ja: "引用符の位置が正しくありません(項目全体を引用符で囲み、中の引用符は2つ重ねてください)"))
        }
        return rows.all
    }

    /// Parses a whole CSV into validated drafts, or the first error with its line number.
    public static func parse(_ text: String, now: Date) throws(HealthError) -> [HealthRecordDraft] {
        var drafts: [HealthRecordDraft] = []
        for (index, row) in try rows(text).enumerated() {
            let lineNumber = index + 1
            let f = row.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r\u{FEFF}")) }
            if f.allSatisfy(\.isEmpty) { continue }
            if lineNumber == 1, f[0].lowercased() == "type" { continue }
            guard f.count >= 4 else {
                throw .invalidCSV(line: lineNumber, reason: Text(en: "expected at least type,value,unit,start", ja: "type,value,unit,start の4項目以上が必要です"))
            }
            guard let start = parseTime(f[3]) else {
                throw .invalidCSV(line: lineNumber, reason: Text(en: "the start time \"\(f[3])\" is not ISO-8601", ja: "開始時刻「\(f[3])」が ISO-8601 形式ではありません"))
            }
            let end = f.count > 4 && !f[4].isEmpty ? parseTime(f[4]) : start
            guard let end else {
                throw .invalidCSV(line: lineNumber, reason: Text(en: "the end time \"\(f[4])\" is not ISO-8601", ja: "終了時刻「\(f[4])」が ISO-8601 形式ではありません"))
            }
            let device = f.count > 6 ? f[6] : ""
            let category = f.count > 7 ? f[7] : ""
            if let known = HealthDataType(rawValue: f[0]), HealthDataType.manual.contains(known) {
                do {
                    let entry = try HealthRules.validate(type: f[0], value: try HealthRules.number(f[1], .file), unit: f[2], start: start, end: end, now: now)
                    drafts.append(HealthRecordDraft(type: entry.type.rawValue, value: entry.value, category: category, unit: entry.unit,
                                                    start: Int64(saturating: entry.start.timeIntervalSince1970), end: Int64(saturating: entry.end.timeIntervalSince1970),
                                                    device: device))
                } catch {
                    throw .invalidCSV(line: lineNumber, reason: error.text)
                }
            } else {
                // Types exported from an Apple Health import come back as they were.
                let value: Double?
                do { value = try NumberInput.parse(f[1], .file) } catch { throw .invalidCSV(line: lineNumber, reason: error.text) }
                guard !f[0].isEmpty, f[0].count <= 200, let value, value.isFinite else {
                    throw .invalidCSV(line: lineNumber, reason: Text(en: "the type or value is missing", ja: "種類または値がありません"))
                }
                guard HealthRules.isPlausible(type: f[0], value: value) else {
                    throw .invalidCSV(line: lineNumber, reason: ImportSkipReason.implausibleValue.text)
                }
                drafts.append(HealthRecordDraft(type: f[0], value: value, category: category, unit: f[2],
                                                start: Int64(saturating: start.timeIntervalSince1970), end: Int64(saturating: end.timeIntervalSince1970), device: device))
            }
        }
        return drafts
    }

    static func parseTime(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return AppleHealthMapping.parseDate(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
