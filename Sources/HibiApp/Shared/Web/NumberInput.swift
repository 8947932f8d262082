import Foundation

/// A number that cannot be read as one value, with the words that say how to write it. Features map it
/// to their own error type (HealthError.unreadableNumber, …) so it reaches the person in their language.
public enum NumberInputError: Error, Equatable, Sendable {
    /// "1,5": a decimal comma or a misplaced thousands comma; `decimal` and `whole` are the two readings.
    case ambiguous(input: String, decimal: String, whole: String)
    case notANumber(input: String)

    public var text: Text {
        switch self {
        case let .ambiguous(input, decimal, whole):
            Text(en: "“\(input)” can be read two ways: write \(decimal) for a decimal, or \(whole) for a whole number (a comma groups thousands, as in 12,000).",
                 ja: "「\(input)」は2通りに読めます。小数なら \(decimal)、整数なら \(whole) と入力してください(カンマは 12,000 のように3桁ごとの区切りです)。")
        case let .notANumber(input):
            Text(en: "“\(input)” is not a number (write it as 12000, 12,000 or 72.5).",
                 ja: "「\(input)」は数値として読めません(12000、12,000、72.5 のように入力してください)。")
        }
    }
}

/// Reads a number the way English and Japanese write it: "," and spaces (plain, no-break, narrow
/// no-break, full-width) group thousands, "." is the decimal point, full-width digits are digits.
/// A grouping mark is never taken for a decimal point: "12,000" steps were once stored as 12 because
/// "," was turned into "." (issue 29). What has two readings ("1,5": a decimal comma, or a thousands
/// comma in the wrong place) is refused with both readings spelled out, rather than guessed.
public enum NumberInput {
    public enum Source: Sendable, Equatable {
        /// Typed into a form by a person writing in this language.
        case typed(Language)
        /// Written by a program (CSV): "." is always the decimal point; an exponent is allowed.
        case file
    }

    /// nil for an empty field (the caller decides whether that is allowed).
    public static func parse(_ raw: String?, _ source: Source) throws(NumberInputError) -> Double? {
        guard let raw else { return nil }
        let text = normalize(raw)
        guard !text.isEmpty else { return nil }
        let shown = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= 64 else { throw .notANumber(input: String(shown.prefix(64))) }

        var body = Substring(text)
        var negative = false
        if let first = body.first, first == "-" || first == "+" {
            negative = first == "-"
            body = body.dropFirst()
        }
        if source == .file, body.contains(where: { $0 == "e" || $0 == "E" }) {
            guard !body.contains(","), !body.contains(" "), let value = Double(body), value.isFinite else { throw .notANumber(input: shown) }
            return negative ? -value : value
        }
        guard let firstChar = body.first, firstChar.isASCII, firstChar.isNumber || firstChar == "." else { throw .notANumber(input: shown) }
        guard body.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "," || $0 == "." || $0 == " " }) else { throw .notANumber(input: shown) }

        let dots = body.filter { $0 == "." }.count
        let separators = Set(body.filter { $0 == "," || $0 == " " })
        var integerPart: Substring
        var fraction: Substring = ""
        if dots == 1 {
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            integerPart = parts[0]
            fraction = parts[1]
            // "12.000" is twelve in English and Japanese (a thousands mark only in languages Hibi does not
            // speak yet), and "35.681" a latitude: a single "." is always the decimal point here.
            guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .notANumber(input: shown) }
        } else if dots > 1 {
            // "1.234.567" can only be thousands, however it was meant to be written.
            guard case .typed = source, separators.isEmpty, let digits = groupedDigits(body, separator: ".") else { throw .notANumber(input: shown) }
            integerPart = Substring(digits)
        } else {
            integerPart = body
        }
        guard separators.count <= 1 else { throw .notANumber(input: shown) }
        if let separator = separators.first {
            guard let digits = groupedDigits(integerPart, separator: separator) else {
                // "1,5", "1,50", "12,0000": not thousands; the comma may be a decimal comma.
                let pieces = integerPart.split(separator: separator, omittingEmptySubsequences: false)
                if separator == ",", fraction.isEmpty, dots == 0, pieces.count == 2, pieces.allSatisfy({ !$0.isEmpty }) {
                    throw .ambiguous(input: shown, decimal: plain(pieces[0], pieces[1], negative), whole: grouped(pieces[0] + pieces[1], negative))
                }
                throw .notANumber(input: shown)
            }
            integerPart = Substring(digits)
        }
        guard !(integerPart.isEmpty && fraction.isEmpty) else { throw .notANumber(input: shown) }
        guard let value = Double((integerPart.isEmpty ? "0" : integerPart) + (fraction.isEmpty ? "" : "." + fraction)), value.isFinite else {
            throw .notANumber(input: shown)
        }
        return negative ? -value : value
    }

    /// Full-width digits and marks to ASCII, every kind of space to " ", the minus sign to "-".
    static func normalize(_ raw: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in raw.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars {
            switch scalar.value {
            case 0xFF10...0xFF19: out.append(Unicode.Scalar(scalar.value - 0xFF10 + 0x30) ?? scalar)
            case 0xFF0C, 0xFE50: out.append(",")
            case 0xFF0E: out.append(".")
            case 0xFF0D, 0x2212: out.append("-")
            case 0xFF0B: out.append("+")
            case 0x20, 0xA0, 0x202F, 0x2009, 0x2007, 0x3000: out.append(" ")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The digits of "12,345,678" (a lead group of 1-3 digits, then groups of exactly 3), or nil.
    static func groupedDigits(_ text: Substring, separator: Character) -> String? {
        let groups = text.split(separator: separator, omittingEmptySubsequences: false)
        guard let lead = groups.first, isGroupLead(lead) else { return nil }
        guard groups.dropFirst().allSatisfy({ $0.count == 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        return groups.joined()
    }

    /// Could begin a thousands-grouped number: 1-3 digits, no leading zero ("0.125" is only a decimal).
    static func isGroupLead(_ text: Substring) -> Bool {
        (1...3).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber } && text.first != "0"
    }

    /// The decimal reading as it can be typed back without being ambiguous again ("12.000" → "12").
    static func plain(_ whole: Substring, _ fraction: Substring, _ negative: Bool) -> String {
        var fraction = fraction
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return (negative ? "-" : "") + (whole.isEmpty ? "0" : String(whole)) + (fraction.isEmpty ? "" : "." + fraction)
    }

    static func grouped(_ digits: Substring, _ negative: Bool) -> String {
        var digits = String(digits.drop { $0 == "0" })
        if digits.isEmpty { digits = "0" }
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (negative ? "-" : "") + out
    }
}
