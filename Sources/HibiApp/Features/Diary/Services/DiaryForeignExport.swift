import Crypto
import Foundation

/// Leaving the same way: the diary as a Day One export (a ZIP of `Journal.json` and `photos/<md5>.<type>`)
/// and its moods and day ratings as Daylio's CSV.
public struct DiaryForeignExport: Sendable {
    let transfer: DiaryTransfer
    let photos: PhotoStore
    let details: DiaryDetailsStore
    let ratings: any DayRatings

    /// Day One names each photo file by the MD5 of its bytes (a name, not a protection).
    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func dayOneType(_ contentType: String) -> String {
        switch contentType {
        case "image/png": "png"
        case "image/webp": "webp"
        default: "jpeg"
        }
    }

    /// Writes the archive as it reads the photos, one at a time; `Journal.json` comes last, complete.
    /// The size is checked before the first byte, as for Hibi's own export.
    public func writeDayOne(_ plan: DiaryTransfer.ExportPlan, timeZone: TimeZone, to write: (Data) async throws -> Void) async throws {
        let found = try await details.find(userID: plan.userID, entryIDs: plan.entries.map(\.id))
        var zip = StoredZipWriter()
        var written = Set<String>()
        var outgoing: [DayOneFormat.Outgoing] = []
        for entry in plan.entries {
            var listed: [(id: String, md5: String, type: String)] = []
            for photo in entry.photos {
                guard let data = try photos.load(userID: plan.userID, photoID: photo.id) else { continue }
                let md5 = Self.md5(data), type = Self.dayOneType(DiaryRules.imageContentType(data))
                let path = "photos/\(md5).\(type)"
                if written.insert(path).inserted {
                    for chunk in try zip.add(name: path, data: data, modified: entry.updatedAt) { try await write(chunk) }
                }
                listed.append((photo.id, md5, type))
            }
            outgoing.append(.init(entry: entry, details: found[entry.id], photos: listed, timeZone: timeZone.identifier))
        }
        for chunk in try zip.add(name: "Journal.json", data: try DayOneFormat.write(outgoing), modified: Date()) { try await write(chunk) }
        try await write(zip.finish())
    }

    public func daylioCSV(userID: String, timeZone: TimeZone) async throws -> String {
        let plan = try await transfer.planExport(userID: userID)
        var chosen: [DayKey: DayRating] = [:]
        if let first = plan.entries.first?.date, let last = plan.entries.last?.date,
           let from = DayKey(MoodAnalytics.dayKey(first, timeZone: timeZone)), let to = DayKey(MoodAnalytics.dayKey(last, timeZone: timeZone)) {
            chosen = try await ratings.ratings(userID: userID, from: min(from, to), to: max(from, to))
        }
        return DaylioFormat.writeCSV(plan.entries, ratings: chosen, timeZone: timeZone)
    }
}
