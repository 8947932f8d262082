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
        (count == 1 ? one : other)(language, String(count))
    }
}
