import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum DiaryRules {
    public static let maxTextLength = 20_000
    public static let maxTags = 10
    public static let maxPhotoBytes = 8 * 1024 * 1024
    /// Photos one entry may hold: a day's handful, and a bound on the face analyses one save can ask for.
    public static let maxPhotosPerEntry = 8

    /// Trims, lower-cases for comparison, drops duplicates; keeps the user's spelling of the first occurrence.
    public static func normalizeTags(_ raw: [String]) throws(DiaryError) -> [String] {
        var seen = Set<String>()
        var tags: [String] = []
        for tag in raw {
            let trimmed = tag.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "#", with: "")
            if trimmed.isEmpty { continue }
            guard trimmed.count <= 32, !trimmed.contains(","),
                  !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { throw .tagInvalid }
            if seen.insert(trimmed.lowercased()).inserted { tags.append(trimmed) }
        }
        guard tags.count <= maxTags else { throw .tooManyTags(limit: maxTags) }
        return tags
    }

    public static func parseTagList(_ text: String) throws(DiaryError) -> [String] {
        try normalizeTags(text.split(whereSeparator: { $0 == "," || $0 == "、" || $0 == " " || $0 == "　" }).map(String.init))
    }

    public static func validateText(_ text: String, hasPhoto: Bool) throws(DiaryError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= maxTextLength else { throw .textTooLong(limit: maxTextLength) }
        guard !trimmed.isEmpty || hasPhoto else { throw .textEmpty }
        return trimmed
    }

    /// A few minutes of slack for clocks that run ahead of the server's.
    public static func validateDate(_ date: Date, now: Date) throws(DiaryError) -> Date {
        guard date.timeIntervalSince(now) < 10 * 60 else { throw .dateInFuture }
        guard date.timeIntervalSince1970 > 0 else { throw .invalidDate }
        return date
    }

    /// Reads the web form's separate date and time fields as a moment in the user's time zone.
    public static func parseLocalDateTime(date: String, time: String?, timeZone: TimeZone) throws(DiaryError) -> Date {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { throw .invalidDate }
        var hour = 12, minute = 0
        if let time, !time.isEmpty {
            let clock = time.split(separator: ":").compactMap { Int($0) }
            guard clock.count >= 2, (0...23).contains(clock[0]), (0...59).contains(clock[1]) else { throw .invalidDate }
            (hour, minute) = (clock[0], clock[1])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: hour, minute: minute)
        guard (1...12).contains(parts[1]), (1...31).contains(parts[2]), components.isValidDate(in: calendar),
              let result = calendar.date(from: components) else { throw .invalidDate }
        return result
    }

    /// A whole JPEG, PNG or WebP image, judged by its structure and size (`ImageHeader`), not by its first
    /// bytes or the declared type.
    /// Most pixels a diary photo may have: the cap all uploaded photos share (`PhotoPixels`).
    public static let maxPhotoPixels = PhotoPixels.max

    /// The photo's structure and size read from its header, before anything decodes it: a JPEG, PNG or WebP of
    /// at most `maxPhotoPixels`.
    public static func validatePhoto(_ data: Data) throws(DiaryError) {
        guard let info = ImageHeader.read(data), info.format != .gif else { throw .photoNotAnImage }
        guard PhotoPixels.allows(info) else {
            throw .photoTooManyPixels(width: info.width, height: info.height, limitMegapixels: PhotoPixels.limitMegapixels)
        }
    }

    public static func isSupportedImage(_ data: Data) -> Bool {
        guard let info = ImageHeader.read(data) else { return false }
        return info.format != .gif
    }

    public static func imageContentType(_ data: Data) -> String {
        if let info = ImageHeader.read(data) { return info.format.contentType }
        // Photos stored before images were checked whole: typed by their first bytes, as they were then.
        let bytes = [UInt8](data.prefix(4))
        if bytes.starts(with: [0xFF, 0xD8]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50]) { return "image/png" }
        return "image/webp"
    }

    /// Entries (newest first, as listed) under their day in the person's zone, days in the order met.
    public static func groupByDay(_ entries: [DiaryEntry], timeZone: TimeZone) -> [(key: String, entries: [DiaryEntry])] {
        var days: [(key: String, entries: [DiaryEntry])] = []
        for entry in entries {
            let key = MoodAnalytics.dayKey(entry.date, timeZone: timeZone)
            if let last = days.indices.last, days[last].key == key {
                days[last].entries.append(entry)
            } else {
                days.append((key, [entry]))
            }
        }
        return days
    }
}

/// Case- and width-insensitive substring match, so "ｈｉｂｉ" finds "Hibi" and "カフェ" finds "かふぇ" is NOT assumed.
public enum DiarySearch {
    public static func normalize(_ text: String) -> String { SearchText.normalize(text) }

    /// Every word of the query must occur (AND), in any order.
    public static func matches(normalizedText: String, query: [String]) -> Bool {
        matches(normalizedBytes: Array(normalizedText.utf8), terms: query.map { Array($0.utf8) })
    }

    /// The same on UTF-8 bytes: a byte search is exact for UTF-8 and far faster than `String.contains`,
    /// which matters when the in-memory index scans 100k entries.
    public static func matches(normalizedBytes haystack: [UInt8], terms: [[UInt8]]) -> Bool {
        terms.allSatisfy { needle in
            guard !needle.isEmpty else { return true }
            guard haystack.count >= needle.count else { return false }
            return haystack.withUnsafeBufferPointer { h in
                needle.withUnsafeBufferPointer { n in contains(h, n) }
            }
        }
    }

    /// memchr finds each candidate first byte, memcmp checks the rest: C's speed without memmem,
    /// which Glibc's Swift module does not expose.
    static func contains(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let hBase = h.baseAddress, let nBase = n.baseAddress else { return false }
        var offset = 0
        let lastStart = h.count - n.count
        while offset <= lastStart {
            guard let hit = memchr(hBase + offset, Int32(n[0]), lastStart - offset + 1) else { return false }
            let position = hBase.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(hBase + position, nBase, n.count) == 0 { return true }
            offset = position + 1
        }
        return false
    }

    public static func terms(_ query: String) -> [String] {
        query.split(whereSeparator: { $0 == " " || $0 == "　" }).map { normalize(String($0)) }.filter { !$0.isEmpty }
    }

}
