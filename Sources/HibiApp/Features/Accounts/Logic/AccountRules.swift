import Foundation

public enum AccountRules {
    public static let minimumPasswordLength = 10
    /// The longest username an account can have (`normalizeUsername`); sign-in refuses longer ones first.
    public static let maximumUsernameLength = 32

    /// The name a sign-in form carries, normalized, or nil when no account can have it (longer than any
    /// username). Checked before anything else: 60 kB names used to be stored as throttle subjects.
    public static func signInName(_ raw: String) -> String? {
        // Bytes first: a 60 kB value is refused without trimming or lowercasing it.
        guard raw.utf8.count <= 4 * maximumUsernameLength + 64 else { return nil }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return name.count <= maximumUsernameLength ? name : nil
    }

    /// Usernames compare case-insensitively, so "Aiko" and "aiko" cannot both exist.
    public static func normalizeUsername(_ raw: String) throws(AccountError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (3...maximumUsernameLength).contains(name.count), name.allSatisfy({ allowed.contains($0) }),
              let first = name.first, first.isLetter || first.isNumber else {
            throw .invalidUsername
        }
        return name
    }

    /// bcrypt reads only the first 72 bytes; longer passwords are refused rather than silently truncated.
    public static func validatePassword(_ password: String, confirmation: String? = nil) throws(AccountError) {
        guard password.count >= minimumPasswordLength else { throw .passwordTooShort(minimum: minimumPasswordLength) }
        guard password.utf8.count <= 72 else { throw .passwordTooLong }
        if let confirmation, confirmation != password { throw .passwordsDoNotMatch }
    }

    public static func normalizeDisplayName(_ raw: String?, fallback: String) throws(AccountError) -> String {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { return fallback }
        guard name.count <= 64, !name.contains(where: { $0.isNewline }) else { throw .displayNameInvalid }
        return name
    }

    public static func validateTimeZone(_ identifier: String) throws(AccountError) -> String {
        guard TimeZone(identifier: identifier) != nil else { throw .invalidTimeZone }
        return identifier
    }

    public static func validateTokenName(_ raw: String) throws(AccountError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // PostgreSQL refuses NUL in text; control characters are never a real name.
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .tokenNameInvalid
        }
        return name
    }

    /// A name the user can tell devices apart by in settings ("Firefox · Linux"), from the User-Agent;
    /// nothing finer (versions, models) is kept.
    public static func deviceLabel(userAgent: String?) -> String {
        let agent = userAgent ?? ""
        let browser = agent.contains("Edg/") ? "Edge" : agent.contains("Firefox/") ? "Firefox" : agent.contains("Chrome/") ? "Chrome"
            : agent.contains("Safari/") ? "Safari" : "Browser"
        let system: String? = agent.contains("iPhone") || agent.contains("iPad") ? "iOS" : agent.contains("Android") ? "Android"
            : agent.contains("Mac OS X") ? "macOS" : agent.contains("Windows") ? "Windows" : agent.contains("Linux") ? "Linux" : nil
        return system.map { "\(browser) · \($0)" } ?? browser
    }
}
