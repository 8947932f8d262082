import Foundation
import Testing
@testable import HibiApp

/// What people type, per language, and what it must read as (issue 29: "12,000" steps was saved as 12).
@Suite struct NumberInputTests {
    enum Expected: Equatable { case value(Double), empty, ambiguous(decimal: String, whole: String), notANumber }

    static func read(_ text: String, _ source: NumberInput.Source) -> Expected {
        do {
            guard let value = try NumberInput.parse(text, source) else { return .empty }
            return .value(value)
        } catch let .ambiguous(_, decimal, whole) {
            return .ambiguous(decimal: decimal, whole: whole)
        } catch {
            return .notANumber
        }
    }

    /// The same table holds for English and Japanese: both group thousands with "," and write "." for the decimal point.
    static let typed: [(String, Expected)] = [
        ("12000", .value(12000)), ("12,000", .value(12000)), ("1,234,567", .value(1_234_567)), ("12,000.5", .value(12000.5)),
        ("12 000", .value(12000)), ("12\u{00A0}000", .value(12000)), ("12\u{202F}000", .value(12000)), ("12\u{3000}000", .value(12000)),
        ("１２，０００", .value(12000)), ("７２．５", .value(72.5)), ("－３", .value(-3)), ("\u{2212}3", .value(-3)),
        ("72.5", .value(72.5)), ("0.125", .value(0.125)), (".5", .value(0.5)), ("5.", .value(5)), ("-4", .value(-4)), ("+4", .value(4)),
        ("35.681", .value(35.681)), ("12.000", .value(12)), ("1.234.567", .value(1_234_567)), ("  8200  ", .value(8200)),
        ("", .empty), ("   ", .empty),
        ("1,5", .ambiguous(decimal: "1.5", whole: "15")), ("72,5", .ambiguous(decimal: "72.5", whole: "725")),
        ("1,50", .ambiguous(decimal: "1.5", whole: "150")), ("12,0000", .ambiguous(decimal: "12", whole: "120,000")),
        ("１，５", .ambiguous(decimal: "1.5", whole: "15")), ("-1,5", .ambiguous(decimal: "-1.5", whole: "-15")),
        ("1,23,456", .notANumber), ("12 00", .notANumber), ("1,000 000", .notANumber), ("12.000,5", .notANumber), ("1.2.3", .notANumber),
        ("abc", .notANumber), ("12k", .notANumber), ("1e3", .notANumber), ("nan", .notANumber), ("inf", .notANumber), ("-", .notANumber),
        ("0x10", .notANumber), ("1,", .notANumber), (",5", .notANumber), ("--3", .notANumber),
    ]

    @Test(arguments: Language.allCases) func typedInEachLanguage(_ language: Language) {
        for (input, expected) in Self.typed {
            #expect(Self.read(input, .typed(language)) == expected, "\(language): \(input)")
        }
    }

    /// A program's CSV: "." is the decimal point, an exponent is allowed, a decimal comma is still refused.
    @Test func writtenByAProgram() {
        let table: [(String, Expected)] = [
            ("12000", .value(12000)), ("12,000", .value(12000)), ("0.125", .value(0.125)), ("1.5E-4", .value(0.00015)),
            ("1e3", .value(1000)), ("1,5", .ambiguous(decimal: "1.5", whole: "15")), ("1.234.567", .notANumber), ("infinity", .notANumber),
        ]
        for (input, expected) in table { #expect(Self.read(input, .file) == expected, "\(input)") }
    }

    @Test func theMessageShowsHowToWriteIt() throws {
        let error = NumberInputError.ambiguous(input: "1,5", decimal: "1.5", whole: "15")
        #expect(error.text.en.contains("write 1.5 for a decimal, or 15 for a whole number"))
        #expect(error.text.ja.contains("小数なら 1.5、整数なら 15"))
    }
}
