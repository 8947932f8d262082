import Foundation

/// A count in words with the right grammatical number: "1 day" / "2 days", "1 日" / "2 日".
/// English needs a singular; Japanese does not change, so both forms are usually the same there.
public struct CountText: Sendable {
    public let one: Text
    public let other: Text

    public init(one: Text, other: Text) {
        self.one = one
        self.other = other
    }

    public func callAsFunction(_ language: Language, _ count: Int) -> String {
        (count == 1 ? one : other)(language, Self.grouped(count, language))
    }

    /// A whole number with thousands grouped as the language writes it ("8,432"), the same on every page.
    public static func grouped(_ value: Int, _ language: Language) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: language == .ja ? "ja_JP" : "en_US")))
    }
}
