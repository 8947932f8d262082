import Foundation

/// CSV of records: type,value,unit,start,end,source,device,category (ISO-8601 times, UTF-8).
public enum HealthCSV {
    public static let header = "type,value,unit,start,end,source,device,category"

    public static func line(_ record: HealthRecord) -> String {
        [record.type, HealthFormat.number(record.value, maxFractionDigits: 6), record.unit, iso(record.start), iso(record.end),
         record.source.rawValue, record.device, record.category].map(escape).joined(separator: ",")
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    static func escape(_ field: String) -> String {
        // A leading = + - @ would run as a formula in a spreadsheet.
        var field = field
        if let first = field.first, "=+@".contains(first) || (first == "-" && Double(field) == nil) { field = "'" + field }
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Splits one CSV line (RFC 4180 quoting, no embedded newlines).
    public static func fields(_ line: String) -> [String]? {
        var result: [String] = []
        var current = ""
        var quoted = false
        var iterator = Array(line).makeIterator()
        var pendingQuote = false
        while let c = iterator.next() {
            if quoted {
                if pendingQuote {
                    pendingQuote = false
                    if c == "\"" { current.append("\""); continue }
                    quoted = false
                } else if c == "\"" {
                    pendingQuote = true
                    continue
                } else {
                    current.append(c)
                    continue
                }
            }
            if c == "," { result.append(current); current = "" }
            else if c == "\"" && current.isEmpty { quoted = true }
            else { current.append(c) }
        }
        if quoted && !pendingQuote { return nil }
        result.append(current)
        return result
    }

    /// Parses a whole CSV into validated drafts, or the first error with its line number.
    public static func parse(_ text: String, now: Date) throws(HealthError) -> [HealthRecordDraft] {
        var drafts: [HealthRecordDraft] = []
        var lineNumber = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r\u{FEFF}"))
            if line.isEmpty { continue }
            if lineNumber == 1, line.lowercased().hasPrefix("type,") { continue }
            guard let f = fields(line), f.count >= 4 else {
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
                    let entry = try HealthRules.validate(type: f[0], value: HealthRules.parseNumber(f[1]), unit: f[2], start: start, end: end, now: now)
                    drafts.append(HealthRecordDraft(type: entry.type.rawValue, value: entry.value, category: category, unit: entry.unit,
                                                    start: Int64(entry.start.timeIntervalSince1970), end: Int64(entry.end.timeIntervalSince1970),
                                                    device: device))
                } catch {
                    throw .invalidCSV(line: lineNumber, reason: (error as? HealthError)?.text ?? Text(en: "invalid value", ja: "値が正しくありません"))
                }
            } else {
                // Types exported from an Apple Health import come back as they were.
                guard !f[0].isEmpty, f[0].count <= 200, let value = HealthRules.parseNumber(f[1]), value.isFinite else {
                    throw .invalidCSV(line: lineNumber, reason: Text(en: "the type or value is missing", ja: "種類または値がありません"))
                }
                drafts.append(HealthRecordDraft(type: f[0], value: value, category: category, unit: f[2],
                                                start: Int64(start.timeIntervalSince1970), end: Int64(end.timeIntervalSince1970), device: device))
            }
        }
        return drafts
    }

    static func parseTime(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return AppleHealthMapping.parseDate(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
