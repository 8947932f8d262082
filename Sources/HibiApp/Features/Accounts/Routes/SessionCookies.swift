import Foundation
import Hummingbird

/// The cookies a sign-in sets, whichever way it happened (password form, face sign-in).
enum SessionCookies {
    static func signedIn(token: String, user: User, lifetime: TimeInterval, secure: Bool) -> [Cookie] {
        [Cookie(name: Cookies.session, value: token, maxAge: Int(saturating: lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .lax)]
            + (user.language.map { [language($0, secure: secure)] } ?? [])
    }

    static func language(_ language: Language, secure: Bool) -> Cookie {
        Cookie(name: Cookies.language, value: language.rawValue, maxAge: 365 * 24 * 3600, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
