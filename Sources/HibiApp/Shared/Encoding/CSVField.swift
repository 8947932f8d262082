import Foundation

/// One field of a CSV line written for a spreadsheet (RFC 4180 quoting, formula-safe): Health's records export
/// and the diary's Daylio export write their fields with it.
public enum CSVField {
    public static func escape(_ field: String) -> String {
        // A leading = + - @ would run as a formula in a spreadsheet.
        var field = field
        if let first = field.first, "=+@".contains(first) || (first == "-" && Double(field) == nil) { field = "'" + field }
        // isNewline, not == "\n": "\r\n" is one Character in Swift and equals neither "\r" nor "\n".
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
