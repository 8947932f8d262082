import Foundation
import HTTPTypes

public enum VisitError: UserFacingError, Equatable {
    case invalidLatitude
    case invalidLongitude
    case invalidNumber(field: String)
    /// Typed so that it reads as no number, or as two ("35,6").
    case unreadableNumber(field: String, NumberInputError)
    case nameRequired
    case tooLong(field: String, limit: Int)
    case tooMany(field: String, limit: Int)
    case invalidDate(field: String)
    /// A date that parses but lies outside years 1 to 9999 (a typo such as 20245): said as such, not as a format error.
    case yearOutOfRange(field: String)
    case notFound
    case photoNotFound
    case photoTooLarge(limitBytes: Int)
    case photoType
    /// Above the pixel cap every uploaded photo shares (`PhotoPixels`), read from the header.
    case photoTooManyPixels(width: Int, height: Int, limitMegapixels: Int)
    case tooManyPhotos(limit: Int)
    /// An import file is wrong at `position` (e.g. "line 12, column 5" or "features[3].geometry").
    case importInvalid(position: String, reason: Text)
    case importTooLarge(limitBytes: Int)
    case invalidWebhookURL
    /// The webhook's host is on the server's own network (loopback, private, link-local, …).
    case webhookAddressRefused
    case invalidFilter(field: String)
    /// The chain's head record fails its hash or signature: someone changed the log outside Hibi.
    /// Nothing is signed on top of it, or that signature would vouch for their records.
    case logTampered
    case savedPlaceNotFound

    public var status: HTTPResponse.Status {
        switch self {
        case .notFound, .photoNotFound, .savedPlaceNotFound: .notFound
        case .photoTooLarge, .photoTooManyPixels, .importTooLarge: .contentTooLarge
        case .photoType: .unsupportedMediaType
        case .importInvalid: .unprocessableContent
        case .logTampered: .conflict
        default: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .invalidLatitude: "invalid_latitude"
        case .invalidLongitude: "invalid_longitude"
        case .invalidNumber: "invalid_number"
        case let .unreadableNumber(_, error): if case .ambiguous = error { "ambiguous_number" } else { "invalid_number" }
        case .nameRequired: "name_required"
        case .tooLong: "too_long"
        case .tooMany: "too_many"
        case .invalidDate, .yearOutOfRange: "invalid_date"
        case .notFound: "visit_not_found"
        case .photoNotFound: "photo_not_found"
        case .photoTooLarge: "photo_too_large"
        case .photoType: "unsupported_photo_type"
        case .photoTooManyPixels: "photo_too_many_pixels"
        case .tooManyPhotos: "too_many_photos"
        case .importInvalid: "import_invalid"
        case .importTooLarge: "import_too_large"
        case .invalidWebhookURL: "invalid_webhook_url"
        case .webhookAddressRefused: "webhook_address_refused"
        case .invalidFilter: "invalid_filter"
        case .logTampered: "visit_log_tampered"
        case .savedPlaceNotFound: "saved_place_not_found"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .invalidLatitude:
            Text(en: "Latitude must be a number from -90 to 90.", ja: "緯度は -90 から 90 の数値にしてください。")
        case .invalidLongitude:
            Text(en: "Longitude must be a number from -180 to 180.", ja: "経度は -180 から 180 の数値にしてください。")
        case let .invalidNumber(field):
            Text(en: "\(field) must be a finite number in range.", ja: "\(field) は範囲内の有限の数値にしてください。")
        case let .unreadableNumber(field, error):
            Text(en: "\(field): \(error.text.en)", ja: "\(field): \(error.text.ja)")
        case .nameRequired:
            Text(en: "The place name is required.", ja: "場所の名前は必須です。")
        case let .tooLong(field, limit):
            Text(en: "\(field) can be at most \(limit) characters.", ja: "\(field) は\(limit)文字以内にしてください。")
        case let .tooMany(field, limit):
            Text(en: "\(field) can have at most \(limit) entries.", ja: "\(field) は\(limit)件までです。")
        case let .invalidDate(field):
            Text(en: "\(field) is not a valid date and time.", ja: "\(field) は正しい日時ではありません。")
        case let .yearOutOfRange(field):
            Text(en: "\(field): the year must be between 1 and 9999.", ja: "\(field): 年は 1〜9999 の範囲で入力してください。")
        case .notFound:
            Text(en: "No such visit.", ja: "その訪問記録はありません。")
        case .photoNotFound:
            Text(en: "No such photo.", ja: "その写真はありません。")
        case let .photoTooLarge(limit):
            Text(en: "The photo is too large (limit \(limit / 1024 / 1024) MB).", ja: "写真が大きすぎます(上限 \(limit / 1024 / 1024) MB)。")
        case .photoType:
            Text(en: "Photos must be JPEG, PNG, WebP or GIF.", ja: "写真は JPEG・PNG・WebP・GIF にしてください。")
        case let .photoTooManyPixels(width, height, limit):
            PhotoPixels.tooMany(width: width, height: height, limitMegapixels: limit)
        case let .tooManyPhotos(limit):
            Text(en: "A visit can have at most \(limit) photos.", ja: "1件の訪問に付けられる写真は\(limit)枚までです。")
        case let .importInvalid(position, reason):
            Text(en: "Nothing was imported: \(position): \(reason.en)", ja: "何も取り込んでいません: \(position): \(reason.ja)")
        case let .importTooLarge(limit):
            Text(en: "The file is too large (limit \(limit / 1024 / 1024) MB).", ja: "ファイルが大きすぎます(上限 \(limit / 1024 / 1024) MB)。")
        case .invalidWebhookURL:
            Text(en: "The webhook must be an http or https URL.", ja: "Webhook は http または https の URL にしてください。")
        case .webhookAddressRefused:
            Text(en: "That address is on this server's own network (or cannot be found). Webhooks go to addresses on the internet; an administrator can allow a local network with HIBI_WEBHOOK_ALLOW_NETWORKS.",
                 ja: "そのアドレスはこのサーバー自身のネットワーク上にある(または見つからない)ため使えません。Webhook はインターネット上のアドレスにのみ送れます。管理者は HIBI_WEBHOOK_ALLOW_NETWORKS でローカルネットワークを許可できます。")
        case let .invalidFilter(field):
            Text(en: "The filter \(field) is not valid.", ja: "絞り込み条件 \(field) が正しくありません。")
        case .logTampered:
            Text(en: "The visit log was changed outside Hibi, so no change can be signed onto it. Open Verify to see which record.",
                 ja: "訪問記録のログが Hibi の外で変更されているため、変更を署名して追記できません。「検証」でどの記録かを確認してください。")
        case .savedPlaceNotFound:
            Text(en: "No such saved place.", ja: "その保存した場所はありません。")
        }
        return text(language)
    }
}
