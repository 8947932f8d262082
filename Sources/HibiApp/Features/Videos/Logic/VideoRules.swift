import Foundation

/// Validation of what users type, and the path rules that keep every file inside its folder.
public enum VideoRules {
    public static let maxTags = 20

    /// PostgreSQL refuses NUL in text, and control characters have no place in names anyway.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Ids are UUIDs; anything else cannot exist, and must not reach SQL as text PostgreSQL rejects.
    public static func isPlausibleID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) || $0 == 45 }
    }

    /// Search text with control characters removed (a NUL would make PostgreSQL fail the query).
    public static func cleanSearch(_ text: String?) -> String? {
        guard let text else { return nil }
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            .trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : String(cleaned.prefix(200))
    }

    public static func validateTitle(_ title: String?) throws(VideoError) -> String? {
        guard let title else { return nil }
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        guard trimmed.count <= 200, !hasControlCharacters(trimmed) else { throw .invalidTitle }
        return trimmed
    }

    /// Trimmed, lower-cased, duplicates dropped, order kept.
    public static func normalizeTags(_ tags: [String]) throws(VideoError) -> [String] {
        var result: [String] = []
        for raw in tags {
            let tag = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if tag.isEmpty { continue }
            guard tag.count <= 40, !tag.contains(","), !hasControlCharacters(tag) else { throw .invalidTag }
            if !result.contains(tag) { result.append(tag) }
        }
        guard result.count <= maxTags else { throw .invalidTag }
        return result
    }

    /// Tags typed in one field, separated by commas.
    public static func parseTagField(_ text: String) throws(VideoError) -> [String] {
        try normalizeTags(text.split(separator: ",").map(String.init))
    }

    /// Stored as ",a,b," so one LIKE '%,tag,%' finds a whole tag on both engines.
    public static func encodeTags(_ tags: [String]) -> String { tags.isEmpty ? "" : "," + tags.joined(separator: ",") + "," }
    public static func decodeTags(_ stored: String) -> [String] { stored.split(separator: ",").map(String.init) }

    public static func validateRating(_ rating: Int?) throws(VideoError) -> Int? {
        guard let rating else { return nil }
        guard (1...5).contains(rating) else { throw .invalidRating }
        return rating
    }

    public static func validatePlaylistName(_ name: String) throws(VideoError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100, !hasControlCharacters(trimmed) else { throw .invalidPlaylistName }
        return trimmed
    }

    /// The new order must be a permutation of the playlist's current videos.
    public static func validateOrder(current: [String], proposed: [String]) throws(VideoError) -> [String] {
        guard proposed.count == current.count, Set(proposed) == Set(current), Set(proposed).count == proposed.count else {
            throw .invalidOrder
        }
        return proposed
    }

    /// Moves one entry up or down by one place (the buttons of the playlist page).
    public static func move(_ id: String, by offset: Int, in order: [String]) -> [String] {
        guard let index = order.firstIndex(of: id) else { return order }
        let target = index + offset
        guard order.indices.contains(target) else { return order }
        var result = order
        result.swapAt(index, target)
        return result
    }

    /// "holiday_2019-08.mp4" → "holiday 2019-08".
    public static func defaultTitle(fileName: String) -> String {
        let base = (fileName as NSString).lastPathComponent
        let stem = (base as NSString).deletingPathExtension
        let spaced = stem.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
        return spaced.isEmpty ? base : spaced
    }

    /// What the user called the file, without any folder part a client may send ("../../x.mp4" → "x.mp4").
    public static func uploadName(_ raw: String?) -> String {
        let last = (raw ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(String(last.filter { !hasControlCharacters(String($0)) }).prefix(200)).trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "video" : cleaned
    }

    /// The extension an upload is stored under: what ffprobe found, so a renamed file still gets the right type.
    public static func storedExtension(container: String?, fileName: String) -> String {
        let formats = (container ?? "").lowercased().split(separator: ",").map(String.init)
        let ext = (fileName as NSString).pathExtension.lowercased()
        if formats.contains("mp4") { return ["mov", "m4v"].contains(ext) ? ext : "mp4" }
        if formats.contains("webm") { return ext == "mkv" ? "mkv" : "webm" }
        guard !ext.isEmpty, ext.count <= 5, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "bin" }
        return ext
    }

    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv", "avi", "ogv", "mpg", "mpeg", "ts", "wmv", "flv", "3gp"]

    public static func mimeType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "ogv": "video/ogg"
        case "avi": "video/x-msvideo"
        default: "application/octet-stream"
        }
    }

    /// A relative path from the library index may not climb out or be absolute (checked before touching the disk).
    public static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\0") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != ".." && $0 != "." }
    }

    /// After symlinks are resolved, a file must still lie inside its root folder.
    public static func isInside(root: String, path: String) -> Bool {
        let base = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(base) && path.count > base.count
    }
}
