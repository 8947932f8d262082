import Foundation

/// Decides what may reach a log line. Pure, so the rules are tested without a logger.
/// Seed 002's logger removes name, email, phone, address and user_id; Hibi adds the secrets
/// and free text it handles (passwords, tokens, diary text, notes, coordinates).
public enum LogRedaction {
    public static let placeholder = "[REDACTED]"

    static let sensitiveKeys: Set<String> = [
        "name", "email", "phone", "address", "user_id", "userid", "username", "display_name",
        "password", "token", "authorization", "cookie", "set-cookie", "session", "csrf",
        "text", "note", "notes", "body", "query", "title", "latitude", "longitude", "message_text",
    ]

    public static func isSensitive(key: String) -> Bool {
        let lowered = key.lowercased()
        if sensitiveKeys.contains(lowered) { return true }
        return lowered.hasSuffix(".password") || lowered.hasSuffix("_token") || lowered.hasSuffix(".token")
            || lowered.hasSuffix("_email") || lowered.hasSuffix(".email")
    }

    /// Masks things that look personal or secret even inside an innocent key: e-mail addresses and bearer tokens.
    public static func scrub(_ value: String) -> String {
        var result = value
        if result.contains("@") {
            result = result.replacingOccurrences(
                of: #"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"#, with: "[EMAIL]", options: .regularExpression)
        }
        if result.range(of: "bearer", options: .caseInsensitive) != nil {
            result = result.replacingOccurrences(
                of: #"(?i)bearer\s+[A-Za-z0-9._~+/=-]+"#, with: "Bearer [REDACTED]", options: .regularExpression)
        }
        if result.contains("hibi_") {
            result = result.replacingOccurrences(of: #"hibi_[A-Za-z0-9_-]{16,}"#, with: "hibi_[REDACTED]", options: .regularExpression)
        }
        return result
    }

    /// A path logged without its query string, which may carry search words or tokens.
    public static func path(_ uri: String) -> String {
        String(uri.split(separator: "?", maxSplits: 1).first ?? "")
    }
}
