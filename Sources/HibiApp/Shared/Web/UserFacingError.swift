import HTTPTypes

/// Feature errors conform to this so one middleware can turn any of them into JSON under /api
/// or a friendly page on the web, in the user's language, without leaking internals.
public protocol UserFacingError: Error {
    var status: HTTPResponse.Status { get }
    /// Stable machine-readable code for API clients, e.g. "invalid_credentials".
    var code: String { get }
    func message(_ language: Language) -> String
    /// Seconds the client should wait before asking again, sent as `Retry-After` (a throttled sign-in); nil for
    /// most errors.
    var retryAfter: Int? { get }
}

extension UserFacingError {
    public var retryAfter: Int? { nil }
}

/// Errors of the HTTP layer itself, common to every feature.
public enum RequestError: UserFacingError, Equatable {
    case malformedJSON(String)
    case missingField(String)
    case invalidField(String, Text)
    case bodyTooLarge(limitBytes: Int)
    case notFound
    case methodNotAllowed
    case unauthenticated
    case forbidden
    case csrfFailed
    /// A pre-session form (sign-in, setup) older than `PreSessionCSRF.lifetime`: the page offers a fresh one.
    case formExpired
    case unsupportedMediaType
    /// The person already has a heavy job (an import) running; one at a time each.
    case busy
    /// An upload would take the person past their storage quota.
    case quotaExceeded(limitBytes: Int64)
    /// A query parameter outside what the route accepts.
    case invalidParameter(String, Text)

    public var status: HTTPResponse.Status {
        switch self {
        case .malformedJSON, .missingField, .invalidField: .badRequest
        case .bodyTooLarge: .contentTooLarge
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unauthenticated: .unauthorized
        case .forbidden, .csrfFailed, .formExpired: .forbidden
        case .unsupportedMediaType: .unsupportedMediaType
        case .busy: .conflict
        case .quotaExceeded: .contentTooLarge
        case .invalidParameter: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .malformedJSON: "malformed_json"
        case .missingField: "missing_field"
        case .invalidField: "invalid_field"
        case .bodyTooLarge: "body_too_large"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .unauthenticated: "unauthenticated"
        case .forbidden: "forbidden"
        case .csrfFailed: "csrf_failed"
        case .formExpired: "form_expired"
        case .unsupportedMediaType: "unsupported_media_type"
        case .busy: "busy"
        case .quotaExceeded: "quota_exceeded"
        case .invalidParameter: "invalid_parameter"
        }
    }

    public func message(_ language: Language) -> String {
        switch self {
        case let .malformedJSON(detail):
            Text(en: "The request body is not valid JSON (\(detail)).", ja: "リクエスト本文が正しい JSON ではありません(\(detail))。")(language)
        case let .missingField(field):
            Text(en: "The field \"\(field)\" is required.", ja: "項目「\(field)」は必須です。")(language)
        case let .invalidField(field, reason):
            Text(en: "\(field): \(reason.en)", ja: "\(field): \(reason.ja)")(language)
        case let .bodyTooLarge(limit):
            Text(en: "The request is too large (limit \(limit / 1024) KB).", ja: "リクエストが大きすぎます(上限 \(limit / 1024) KB)。")(language)
        case .notFound:
            Text(en: "Not found.", ja: "見つかりません。")(language)
        case .methodNotAllowed:
            Text(en: "This method is not allowed here.", ja: "このメソッドは使用できません。")(language)
        case .unauthenticated:
            Text(en: "Sign in first (or send a valid API token).", ja: "サインインしてください(または有効な API トークンを送ってください)。")(language)
        case .forbidden:
            Text(en: "You are not allowed to do this.", ja: "この操作は許可されていません。")(language)
        case .csrfFailed:
            Text(en: "The form expired or came from another site. Reload the page and try again.", ja: "フォームの有効期限が切れたか、別のサイトから送信されました。ページを再読み込みしてやり直してください。")(language)
        case .formExpired:
            Text(en: "This page expired (a form is valid for 2 hours). Nothing was sent: open a fresh form and try again.",
                 ja: "このページの有効期限が切れました(フォームの有効期間は 2 時間です)。何も送信されていません。新しいフォームを開いてやり直してください。")(language)
        case .unsupportedMediaType:
            Text(en: "Send the body as application/json.", ja: "本文は application/json で送ってください。")(language)
        case .busy:
            Text(en: "Another import of yours is still running. Try again when it has finished.",
                 ja: "別のインポートを実行中です。終わってからもう一度お試しください。")(language)
        case let .quotaExceeded(limit):
            Text(en: "This upload would exceed your storage quota (\(Self.megabytes(limit)) MB). Delete something or ask the administrator.",
                 ja: "このアップロードで保存容量の上限(\(Self.megabytes(limit)) MB)を超えます。不要なものを削除するか、管理者に相談してください。")(language)
        case let .invalidParameter(name, reason):
            Text(en: "The parameter \"\(name)\" \(reason.en).", ja: "パラメーター「\(name)」は\(reason.ja)。")(language)
        }
    }
}

extension RequestError {
    static func megabytes(_ bytes: Int64) -> Int64 { bytes / (1024 * 1024) }
}

/// Thrown where a browser should be sent elsewhere (e.g. to unlock the diary) rather than shown an error.
public struct Redirect: Error, Equatable {
    public let location: String

    public init(to location: String) {
        self.location = location
    }
}
