import Foundation

/// The two languages Hibi speaks. Every user-facing string is a `Text` with both, so a missing
/// translation is a compile error rather than an English word on a Japanese page.
public enum Language: String, Sendable, CaseIterable, Codable {
    case en
    case ja

    /// Picks from an Accept-Language header by quality; anything not Japanese falls back to English.
    public static func negotiate(acceptLanguage: String?) -> Language {
        guard let header = acceptLanguage, !header.isEmpty else { return .en }
        var best: (Language, Double)?
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased() else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            let language: Language? = tag.hasPrefix("ja") ? .ja : (tag.hasPrefix("en") ? .en : nil)
            if let language, quality > (best?.1 ?? 0) { best = (language, quality) }
        }
        return best?.0 ?? .en
    }

    public var nativeName: String {
        switch self {
        case .en: "English"
        case .ja: "日本語"
        }
    }
}

public struct Text: Sendable, Equatable {
    public let en: String
    public let ja: String

    public init(en: String, ja: String) {
        self.en = en
        self.ja = ja
    }

    public func callAsFunction(_ language: Language) -> String {
        switch language {
        case .en: en
        case .ja: ja
        }
    }
}

