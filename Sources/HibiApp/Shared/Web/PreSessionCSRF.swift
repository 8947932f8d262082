import Foundation

/// CSRF before a session exists (sign-in, first-run setup, language switch): a double submit bound to a
/// cookie of its own. The cookie holds a random value signed by this server; each page's form token is an
/// HMAC of that cookie value and the time the page was made, under a key derived from the data key. So a
/// token read from browser A's page is worthless in browser B (B's cookie differs, or B has none), and a
/// token stops counting `lifetime` after its page was made (a page left open, or one captured, expires).
/// Over HTTPS the cookie is `__Host-` prefixed: a sibling subdomain cannot plant its own issued cookie.
enum PreSessionCSRF {
    /// How long a pre-session form stays valid after its page was served.
    static let lifetime: TimeInterval = 2 * 3600

    enum Verdict: Equatable {
        case valid
        /// Bound to this browser's cookie, but its page is older than `lifetime`.
        case expired
        case invalid
    }

    static func cookieName(secure: Bool) -> String {
        secure ? "__Host-" + Cookies.csrf : Cookies.csrf
    }

    /// A fresh cookie value: random, then this server's signature of it.
    static func newCookie(box: SealedBoxService) -> String {
        let random = Secrets.randomToken(bytes: 24)
        return random + "." + box.tag(random, purpose: "pre-session-csrf")
    }

    /// Whether `cookie` is one this server issued (a planted, made-up value is not).
    static func isIssued(_ cookie: String, box: SealedBoxService) -> Bool {
        let parts = cookie.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].count >= 20 else { return false }
        return Secrets.constantTimeEquals(parts[1], box.tag(parts[0], purpose: "pre-session-csrf"))
    }

    /// The token a page made at `now` carries in its forms, bound to `cookie`.
    static func token(cookie: String, now: Date, box: SealedBoxService) -> String {
        let issued = String(Int64(saturating: now.timeIntervalSince1970))
        return issued + "." + box.tag(cookie + "." + issued, purpose: "pre-session-csrf-form")
    }

    static func verify(_ presented: String, cookie: String?, now: Date, box: SealedBoxService) -> Verdict {
        guard let cookie else { return .invalid }
        let parts = presented.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let issued = Int64(parts[0]),
              Secrets.constantTimeEquals(parts[1], box.tag(cookie + "." + parts[0], purpose: "pre-session-csrf-form")) else {
            return .invalid
        }
        // Compared as doubles: no integer arithmetic on a number the request supplied.
        return Double(issued) + lifetime < now.timeIntervalSince1970 ? .expired : .valid
    }
}
