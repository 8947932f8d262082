import Foundation

/// The one place a `next` (or Referer) becomes a redirect target: only a path on this site.
public enum LocalRedirect {
    /// Browsers parse a Location the WHATWG way: tabs and newlines anywhere are dropped and C0 controls
    /// and spaces at either end trimmed, and a backslash counts as a slash. So `/\t/evil.example` and
    /// `/\evil.example` both become `//evil.example`, another site. The value is read the same way
    /// first, then must be a path that stays here.
    public static func path(_ raw: String?, fallback: String = "/") -> String {
        guard let raw else { return fallback }
        let stripped = String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
            .trimmingCharacters(in: CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x20)))
        guard stripped.hasPrefix("/"), !stripped.hasPrefix("//"),
              !stripped.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) else { return fallback }
        return stripped
    }
}
