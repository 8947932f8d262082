import HTTPTypes

public enum DiaryError: UserFacingError, Equatable {
    case entryNotFound
    case textTooLong(limit: Int)
    case textEmpty
    case tooManyTags(limit: Int)
    case tagInvalid
    case invalidDate
    case dateInFuture
    case photoNotAnImage
    case photoTooLarge(limitMB: Int)
    case invalidMood
    case invalidDateRange
    case diaryLocked
    case importInvalid(Text)
    case exportTooLarge
    case photoNotFound
    case tooManyPhotos(limit: Int)
    /// More pixels than a photo may have: decoding it (for a thumbnail, a mood estimate) would cost far more
    /// memory than its file suggests.
    case photoTooManyPixels(width: Int, height: Int, limitMegapixels: Int)
    case importJobNotFound

    public var status: HTTPResponse.Status {
        switch self {
        case .entryNotFound, .photoNotFound, .importJobNotFound: .notFound
        case .photoTooLarge, .photoTooManyPixels: .contentTooLarge
        case .exportTooLarge: .unprocessableContent
        case .diaryLocked: .forbidden
        default: .badRequest
        }
    }

    public var code: String {
        switch self {
        case .entryNotFound: "entry_not_found"
        case .textTooLong: "text_too_long"
        case .textEmpty: "text_empty"
        case .tooManyTags: "too_many_tags"
        case .tagInvalid: "invalid_tag"
        case .invalidDate: "invalid_date"
        case .dateInFuture: "date_in_future"
        case .photoNotAnImage: "photo_not_an_image"
        case .photoTooLarge: "photo_too_large"
        case .invalidMood: "invalid_mood"
        case .invalidDateRange: "invalid_date_range"
        case .diaryLocked: "diary_locked"
        case .importInvalid: "import_invalid"
        case .exportTooLarge: "export_too_large"
        case .photoNotFound: "photo_not_found"
        case .tooManyPhotos: "too_many_photos"
        case .photoTooManyPixels: "photo_too_many_pixels"
        case .importJobNotFound: "import_job_not_found"
        }
    }

    public func message(_ language: Language) -> String {
        let text: Text = switch self {
        case .entryNotFound: Text(en: "No such diary entry.", ja: "その日記は見つかりません。")
        case let .textTooLong(limit): Text(en: "The text is too long (at most \(limit) characters).", ja: "本文が長すぎます(\(limit)文字まで)。")
        case .textEmpty: Text(en: "Write something, or add a photo.", ja: "本文を書くか、写真を追加してください。")
        case let .tooManyTags(limit): Text(en: "At most \(limit) tags.", ja: "タグは\(limit)個までです。")
        case .tagInvalid: Text(en: "Tags are 1-32 characters without commas.", ja: "タグはカンマを含まない1〜32文字にしてください。")
        case .invalidDate: Text(en: "The date is not valid (use YYYY-MM-DD and HH:MM).", ja: "日付が正しくありません(YYYY-MM-DD と HH:MM の形式)。")
        case .dateInFuture: Text(en: "Entries cannot be dated in the future.", ja: "未来の日付の日記は作成できません。")
        case .photoNotAnImage: Text(en: "The photo is not a JPEG, PNG or WebP image.", ja: "写真が JPEG・PNG・WebP 画像ではありません。")
        case let .photoTooLarge(limit): Text(en: "The photo is too large (at most \(limit) MB).", ja: "写真が大きすぎます(\(limit) MB まで)。")
        case .invalidMood: Text(en: "Unknown mood.", ja: "不明な気分です。")
        case .invalidDateRange: Text(en: "The start of the range is after its end.", ja: "期間の開始が終了より後になっています。")
        case .diaryLocked: Text(en: "The diary is locked. Unlock it with your face or password.", ja: "日記はロックされています。顔かパスワードで解除してください。")
        case let .importInvalid(detail): Text(en: "The diary export cannot be imported: \(detail.en)", ja: "日記のエクスポートを読み込めません: \(detail.ja)")
        case .exportTooLarge: Text(en: "The diary is too large for one export archive (at most 65,000 photos and 4 GiB).",
                                   ja: "日記が大きすぎて1つのアーカイブに書き出せません(写真 65,000 枚・4 GiB まで)。")
        case .photoNotFound: Text(en: "This entry has no such photo.", ja: "この日記にその写真はありません。")
        case let .tooManyPhotos(limit): Text(en: "At most \(limit) photos per entry.", ja: "写真は1件の日記につき\(limit)枚までです。")
        case .importJobNotFound: Text(en: "No such diary import.", ja: "その日記のインポートは見つかりません。")
        case let .photoTooManyPixels(width, height, limit): PhotoPixels.tooMany(width: width, height: height, limitMegapixels: limit)
        }
        return text(language)
    }
}
