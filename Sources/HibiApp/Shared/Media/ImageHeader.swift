import Foundation

/// What a photo's bytes say it is, read from its structure rather than its first bytes or the declared
/// content type: a file that only starts like an image, or claims a size no camera makes, is refused
/// before it is stored. Pure and bounded: it reads headers and segment lengths, never pixels.
public struct ImageInfo: Sendable, Equatable {
    public enum Format: String, Sendable {
        case jpeg, png, webp, gif

        public var contentType: String { "image/\(rawValue)" }
    }

    public let format: Format
    public let width: Int
    public let height: Int

    /// Larger than any phone or camera photo (a 200-megapixel sensor is 16,320 × 12,240).
    public static let maxSide = 20_000
    public static let maxPixels = 250_000_000
}

public enum ImageHeader {
    /// The image's format and size, or nil when the bytes are not a whole image of a known format.
    public static func read(_ data: Data) -> ImageInfo? {
        let bytes = [UInt8](data)
        let found: ImageInfo? = if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { jpeg(bytes) }
            else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { png(bytes) }
            else if bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] { webp(bytes) }
            else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { gif(bytes) }
            else { nil }
        guard let found, (1...ImageInfo.maxSide).contains(found.width), (1...ImageInfo.maxSide).contains(found.height),
              found.width * found.height <= ImageInfo.maxPixels else { return nil }
        return found
    }

    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
    static func le32(_ b: [UInt8], _ i: Int) -> Int { le16(b, i) | le16(b, i + 2) << 16 }

    /// Walks the marker segments to the frame header; the segments must chain within the file and an
    /// end-of-image marker must follow the scan (bytes after it, as some cameras append, are allowed).
    static func jpeg(_ b: [UInt8]) -> ImageInfo? {
        var i = 2
        var size: (Int, Int)?
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = be16(b, i + 2)
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 7 else { return nil }
                size = (be16(b, i + 7), be16(b, i + 5))
            }
            if marker == 0xDA {
                // Start of scan: entropy-coded data follows; the image must end with EOI somewhere after it.
                guard let size, b[(i + 2 + length)...].indices.contains(where: { $0 + 1 < b.count && b[$0] == 0xFF && b[$0 + 1] == 0xD9 })
                else { return nil }
                return ImageInfo(format: .jpeg, width: size.0, height: size.1)
            }
            i += 2 + length
        }
        return nil
    }

    /// The IHDR chunk first with a correct CRC, every chunk within the file, and IEND at the end.
    static func png(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 8 + 25 + 12, be32(b, 8) == 13, b[12..<16] == [0x49, 0x48, 0x44, 0x52],
              UInt32(truncatingIfNeeded: be32(b, 29)) == CRC32.checksum(b[12..<29]) else { return nil }
        var i = 8
        while i + 12 <= b.count {
            let length = be32(b, i)
            guard length <= b.count - i - 12 else { return nil }
            if b[(i + 4)..<(i + 8)] == [0x49, 0x45, 0x4E, 0x44] {
                return ImageInfo(format: .png, width: be32(b, 16), height: be32(b, 20))
            }
            i += 12 + length
        }
        return nil
    }

    /// RIFF size consistent with the file, then the lossy, lossless or extended header's canvas size.
    static func webp(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 30, le32(b, 4) + 8 <= b.count, le32(b, 4) >= 22 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return ImageInfo(format: .webp, width: le16(b, 26) & 0x3FFF, height: le16(b, 28) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = le32(b, 21)
            return ImageInfo(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return ImageInfo(format: .webp, width: le24(b, 24) + 1, height: le24(b, 27) + 1)
        default:
            return nil
        }
    }

    /// The logical screen size, and the trailer byte at the end.
    static func gif(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 14, b.last == 0x3B else { return nil }
        return ImageInfo(format: .gif, width: le16(b, 6), height: le16(b, 8))
    }
}
