import Foundation
import HTTPTypes

public enum LocationError: UserFacingError, Equatable {
    case stayNotFound
    /// The stay was already confirmed or dismissed.
    case stayDecided
    case invalidSetting(field: String)
    /// The file is neither GPX nor one of Google's location history shapes, or is cut short.
    case importInvalid(position: String, reason: Text)
    case importTooLarge(limitBytes: Int)
    case bodyTooLarge(limitBytes: Int)
    /// A live-location message that is not the JSON the app sends.
    case payloadInvalid(reason: Text)
    /// Basic auth whose token is not this person's, or a token without the write scope.
    case deviceUnauthorized
    case invalidStatus

    public var status: HTTPResponse.Status {
        switch self {
        case .stayNotFound: .notFound
        case .stayDecided: .conflict
        case .importInvalid: .unprocessableContent
        case .importTooLarge, .bodyTooLarge: .contentTooLarge
        case .deviceUnauthorized: .unauthorized
        default: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .stayNotFound: "stay_not_found"
        case .stayDecided: "stay_already_decided"
        case .invalidSetting: "invalid_setting"
        case .importInvalid: "import_invalid"
        case .importTooLarge: "import_too_large"
        case .bodyTooLarge: "body_too_large"
        case .payloadInvalid: "payload_invalid"
        case .deviceUnauthorized: "unauthenticated"
        case .invalidStatus: "invalid_filter"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .stayNotFound:
            Text(en: "No such stay.", ja: "その滞在はありません。")
        case .stayDecided:
            Text(en: "This stay was already confirmed or dismissed.", ja: "この滞在はすでに確定または却下されています。")
        case let .invalidSetting(field):
            field == "distance"
                ? Text(en: "The distance must be a number of metres from \(Int(StaySettings.distanceRange.lowerBound)) to \(Int(StaySettings.distanceRange.upperBound)).",
                       ja: "距離は \(Int(StaySettings.distanceRange.lowerBound))〜\(Int(StaySettings.distanceRange.upperBound)) メートルの数値にしてください。")
                : Text(en: "The duration must be a whole number of minutes from \(StaySettings.durationRange.lowerBound) to \(StaySettings.durationRange.upperBound).",
                       ja: "時間は \(StaySettings.durationRange.lowerBound)〜\(StaySettings.durationRange.upperBound) 分の整数にしてください。")
        case let .importInvalid(position, reason):
            Text(en: "The location history could not be read: \(position): \(reason.en)", ja: "位置履歴を読み込めません: \(position): \(reason.ja)")
        case let .importTooLarge(limit):
            Text(en: "The file is too large (limit \(limit / 1024 / 1024) MB). Use `hibi visits import-locations` for larger files.",
                 ja: "ファイルが大きすぎます(上限 \(limit / 1024 / 1024) MB)。大きなファイルは `hibi visits import-locations` で取り込んでください。")
        case let .bodyTooLarge(limit):
            Text(en: "The message is too large (limit \(limit / 1024) KB).", ja: "メッセージが大きすぎます(上限 \(limit / 1024) KB)。")
        case let .payloadInvalid(reason):
            Text(en: "The location message is not valid: \(reason.en)", ja: "位置情報のメッセージが正しくありません: \(reason.ja)")
        case .deviceUnauthorized:
            Text(en: "Sign in with your username and a personal API token that can write.",
                 ja: "ユーザー名と書き込みできる個人用 API トークンで認証してください。")
        case .invalidStatus:
            Text(en: "The filter status must be open, confirmed, dismissed or merged.",
                 ja: "status の絞り込みは open・confirmed・dismissed・merged のいずれかにしてください。")
        }
        return text(language)
    }
}
