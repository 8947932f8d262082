import Foundation

/// Every page and file address of the diary, in one place: routes are registered with the same
/// functions links and redirects use (given `":id"`-style placeholders), so a link cannot point at a
/// path no route serves.
public enum DiaryPaths {
    public static let list = "/diary"
    public static let new = "/diary/new"
    public static let stats = "/diary/stats"
    public static let calendar = "/diary/calendar"
    public static let data = "/diary/data"
    public static let exportArchive = "/diary/export.zip"
    public static let importArchive = "/diary/import"
    public static let settings = "/diary/settings"
    public static let settingsLock = "/diary/settings/lock"
    public static let settingsMoodBaseline = "/diary/settings/mood-baseline"
    public static let deleteFace = "/diary/face/delete"
    public static let enroll = "/diary/enroll"
    public static let unlock = "/diary/unlock"
    public static let lock = "/diary/lock"

    public static func entry(_ id: String) -> String { "/diary/entries/\(id)" }
    public static func edit(_ id: String) -> String { entry(id) + "/edit" }
    public static func mood(_ id: String) -> String { entry(id) + "/mood" }
    public static func delete(_ id: String) -> String { entry(id) + "/delete" }
    /// The entry's first photo (kept for links made before entries had several).
    public static func firstPhoto(_ id: String) -> String { entry(id) + "/photo" }
    public static func photo(_ id: String, _ photoID: String) -> String { entry(id) + "/photos/\(photoID)" }
    public static func thumbnail(_ id: String, _ photoID: String) -> String { photo(id, photoID) + "/thumbnail" }

    /// The mood calendar of one month.
    public static func calendar(year: Int, month: Int) -> String { calendar + "?month=" + String(format: "%04d-%02d", year, month) }

    /// The unlock page, returning to `next` (a local path) afterwards.
    public static func unlock(next: String) -> String {
        unlock + "?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? list)
    }

    /// The entry list filtered (each part only when given). Values are encoded but for letters and
    /// digits, so a tag like "C++" or "a&b" comes back as written (a bare "+" would read as a space).
    public static func list(tag: String? = nil, from: String? = nil, to: String? = nil) -> String {
        let parts = [("tag", tag), ("from", from), ("to", to)].compactMap { name, value in
            value.map { name + "=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        }
        return parts.isEmpty ? list : list + "?" + parts.joined(separator: "&")
    }
}

/// Every address of the diary's JSON API, relative to `APIPaths.root`: the routes are registered with these
/// and the answers and pages that name one (a photo's `url`, the face unlock's calls) build it the same way.
public enum DiaryAPIPaths {
    public static let entries = "/diary/entries"
    public static func entry(_ id: String) -> String { entries + "/\(id)" }
    public static func firstPhoto(_ id: String) -> String { entry(id) + "/photo" }
    public static func photo(_ id: String, _ photoID: String) -> String { entry(id) + "/photos/\(photoID)" }
    public static let statistics = "/diary/statistics"
    public static let trend = "/diary/trend"
    public static let moodEstimate = "/diary/mood-estimate"
    public static let export = "/diary/export"
    public static let importArchive = "/diary/import"
    public static func importJob(_ id: String) -> String { importArchive + "/jobs/\(id)" }
    public static let face = "/diary/face"
    public static let faceCheck = face + "/check"
    public static let faceEnroll = face + "/enroll"
    public static let faceChallenge = face + "/challenge"
    public static let faceFrame = face + "/frame"
}
