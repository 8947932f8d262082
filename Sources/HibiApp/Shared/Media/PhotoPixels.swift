import Foundation

/// The pixel cap every uploaded photo shares (diary and visit photos, issue 28 item 3), read from the header
/// before anything decodes the image. Above any phone camera (a 48 MP sensor is 8,000 × 6,000) and far under
/// `ImageInfo.maxPixels`. Decoding costs about 4 bytes a pixel whatever the file's size (a 712 KB PNG of
/// 20,000 × 12,500 took 770 MB in ffmpeg), so this bounds every later decode.
public enum PhotoPixels {
    public static let max = 50_000_000
    public static var limitMegapixels: Int { max / 1_000_000 }

    /// Whether the image is within the cap (checked arithmetic: the sides come from a file).
    public static func allows(_ info: ImageInfo) -> Bool {
        let (pixels, over) = info.width.multipliedReportingOverflow(by: info.height)
        return !over && pixels <= max
    }

    /// Megapixels for a message, one decimal.
    public static func megapixels(_ width: Int, _ height: Int) -> String {
        let (pixels, over) = width.multipliedReportingOverflow(by: height)
        return over ? "?" : String(format: "%.1f", Double(pixels) / 1_000_000)
    }

    /// The refusal, the same words wherever a photo is uploaded.
    public static func tooMany(width: Int, height: Int, limitMegapixels: Int) -> Text {
        Text(en: "The photo is \(width) × \(height) pixels (\(megapixels(width, height)) megapixels); at most \(limitMegapixels) megapixels. Make it smaller and try again.",
             ja: "写真は \(width) × \(height) ピクセル(\(megapixels(width, height)) メガピクセル)です。\(limitMegapixels) メガピクセルまでにしてからもう一度お試しください。")
    }
}
