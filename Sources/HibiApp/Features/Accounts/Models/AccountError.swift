import Foundation
import HTTPTypes

public enum AccountError: UserFacingError, Equatable {
    case invalidUsername
    case usernameTaken
    case passwordTooShort(minimum: Int)
    case passwordTooLong
    case passwordsDoNotMatch
    case displayNameInvalid
    case invalidCredentials
    /// Too many failures for this account or address; `retryAfter` seconds until it opens again.
    case locked(retryAfter: Int)
    /// Too many attempts on names that do not exist from this address, or too many sign-ins waiting for
    /// their password check: `retryAfter` seconds. Nothing was checked.
    case busy(retryAfter: Int)
    case accountDisabled
    case setupAlreadyDone
    case setupRequired
    case currentPasswordWrong
    case userNotFound
    case tokenNotFound
    case tokenNameInvalid
    case invalidTimeZone
    case invalidLanguage
    case cannotDisableYourself
    /// No remembered-device cookie, or one that is unknown, expired or revoked.
    case deviceNotRemembered
    case deviceNotFound
    case invalidTokenScope(String)
    /// The request needs a scope the token was not given.
    /// Making a token from a session needs the password again, or an unlocked diary.
    case reauthenticationRequired
    /// A token may only make tokens with scopes it has itself.
    case tokenScopeEscalation

    public var status: HTTPResponse.Status {
        switch self {
        case .invalidUsername, .passwordTooShort, .passwordTooLong, .passwordsDoNotMatch, .displayNameInvalid,
             .tokenNameInvalid, .invalidTimeZone, .invalidLanguage, .currentPasswordWrong, .cannotDisableYourself, .invalidTokenScope:
            .badRequest
        case .reauthenticationRequired, .tokenScopeEscalation: .forbidden
        case .usernameTaken, .setupAlreadyDone: .conflict
        case .invalidCredentials, .deviceNotRemembered: .unauthorized
        case .locked, .busy: .tooManyRequests
        case .accountDisabled: .forbidden
        case .setupRequired: .serviceUnavailable
        case .userNotFound, .tokenNotFound, .deviceNotFound: .notFound
        }
    }

    public var code: String {
        switch self {
        case .invalidUsername: "invalid_username"
        case .usernameTaken: "username_taken"
        case .passwordTooShort: "password_too_short"
        case .passwordTooLong: "password_too_long"
        case .passwordsDoNotMatch: "passwords_do_not_match"
        case .displayNameInvalid: "invalid_display_name"
        case .invalidCredentials: "invalid_credentials"
        case .locked: "locked"
        case .busy: "too_many_attempts"
        case .accountDisabled: "account_disabled"
        case .setupAlreadyDone: "setup_done"
        case .setupRequired: "setup_required"
        case .currentPasswordWrong: "current_password_wrong"
        case .userNotFound: "user_not_found"
        case .tokenNotFound: "token_not_found"
        case .deviceNotRemembered: "device_not_remembered"
        case .deviceNotFound: "device_not_found"
        case .tokenNameInvalid: "invalid_token_name"
        case .invalidTimeZone: "invalid_time_zone"
        case .invalidLanguage: "invalid_language"
        case .cannotDisableYourself: "cannot_disable_self"
        case .invalidTokenScope: "invalid_token_scope"
        case .reauthenticationRequired: "reauthentication_required"
        case .tokenScopeEscalation: "token_scope_escalation"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .invalidUsername:
            Text(en: "Usernames are 3-32 characters: lower-case letters, digits, dot, dash or underscore, starting with a letter or digit.",
                 ja: "ユーザー名は3〜32文字の英小文字・数字・ドット・ハイフン・アンダースコアで、英字か数字で始めてください。")
        case .usernameTaken:
            Text(en: "That username is already taken.", ja: "そのユーザー名はすでに使われています。")
        case let .passwordTooShort(minimum):
            Text(en: "Passwords need at least \(minimum) characters.", ja: "パスワードは\(minimum)文字以上にしてください。")
        case .passwordTooLong:
            Text(en: "Passwords can be at most 72 bytes long.", ja: "パスワードは72バイト以内にしてください。")
        case .passwordsDoNotMatch:
            Text(en: "The two passwords do not match.", ja: "2つのパスワードが一致しません。")
        case .displayNameInvalid:
            Text(en: "The display name must be 1-64 characters.", ja: "表示名は1〜64文字にしてください。")
        case .invalidCredentials:
            Text(en: "Wrong username or password.", ja: "ユーザー名またはパスワードが違います。")
        case let .locked(retryAfter):
            Text(en: "Too many failed sign-ins. Try again in \(Self.minutes(retryAfter)) minutes.",
                 ja: "サインインの失敗が多すぎます。\(Self.minutes(retryAfter))分後にもう一度お試しください。")
        case let .busy(retryAfter):
            Text(en: "Too many sign-in attempts from your network. Try again in \(retryAfter) seconds.",
                 ja: "お使いのネットワークからのサインインの試行が多すぎます。\(retryAfter)秒後にもう一度お試しください。")
        case .accountDisabled:
            Text(en: "This account is disabled. Ask the administrator.", ja: "このアカウントは無効です。管理者に連絡してください。")
        case .setupAlreadyDone:
            Text(en: "Hibi is already set up. Sign in instead.", ja: "日々はすでにセットアップ済みです。サインインしてください。")
        case .setupRequired:
            Text(en: "Hibi has no account yet. Open the setup page first.", ja: "アカウントがまだありません。最初にセットアップページを開いてください。")
        case .currentPasswordWrong:
            Text(en: "The current password is wrong.", ja: "現在のパスワードが違います。")
        case .userNotFound:
            Text(en: "No such user.", ja: "そのユーザーは存在しません。")
        case .tokenNotFound:
            Text(en: "No such token.", ja: "そのトークンは存在しません。")
        case .tokenNameInvalid:
            Text(en: "Token names are 1-64 characters.", ja: "トークン名は1〜64文字にしてください。")
        case .invalidTimeZone:
            Text(en: "Unknown time zone; use a name like Asia/Tokyo.", ja: "不明なタイムゾーンです。Asia/Tokyo のような名前を使ってください。")
        case .invalidLanguage:
            Text(en: "Language must be en or ja.", ja: "言語は en か ja を指定してください。")
        case .cannotDisableYourself:
            Text(en: "You cannot disable your own account.", ja: "自分のアカウントは無効にできません。")
        case .deviceNotRemembered:
            Text(en: "Face sign-in works only on a device you chose to remember when signing in with your password.",
                 ja: "顔でのサインインは、パスワードでサインインしたときに記憶した端末でのみ使えます。")
        case .deviceNotFound:
            Text(en: "No such remembered device.", ja: "その記憶済みの端末は存在しません。")
        case let .invalidTokenScope(name):
            Text(en: "Unknown token scope \"\(name)\"; choose from read, write and diary.",
                 ja: "トークンの権限「\(name)」は使えません。read、write、diary から選んでください。")
        case .reauthenticationRequired:
            Text(en: "Enter your password (or unlock your diary first) to create an API token.",
                 ja: "API トークンを作るには、パスワードを入力するか、先に日記のロックを解除してください。")
        case .tokenScopeEscalation:
            Text(en: "A token can only create tokens with scopes it has itself.", ja: "トークンは自分が持つ権限のトークンしか作れません。")
        }
        return text(language)
    }

    /// Seconds a refused sign-in should wait, for the Retry-After header.
    public var retryAfter: Int? {
        switch self {
        case let .locked(seconds), let .busy(seconds): seconds
        default: nil
        }
    }

    static func minutes(_ seconds: Int) -> Int { max(1, (seconds + 59) / 60) }
}
