import Foundation
import Hummingbird

/// The diary's downloads, the same from the web page and the API.
enum DiaryDownloads {
    /// The whole diary as a ZIP (`diary.json` and the photos), streamed as it is written.
    static func archive(_ transfer: DiaryTransfer, userID: String, now: Date) async throws -> Response {
        let plan = try await transfer.planExport(userID: userID)
        return FileResponse.streamedAttachment(contentType: "application/zip",
                                               filename: "hibi-diary-\(MoodAnalytics.dayKey(now, timeZone: .gmt)).zip") { emit in
            try await transfer.writeArchive(plan, now: now, to: emit)
        }
    }

    /// `?format=dayone` (a Day One ZIP), `?format=daylio` (Daylio's CSV of moods and day ratings), or Hibi's own archive.
    static func export(format: String?, _ transfer: DiaryTransfer, _ foreign: DiaryForeignExport, user: User, now: Date) async throws -> Response {
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let day = MoodAnalytics.dayKey(now, timeZone: zone)
        switch format {
        case "dayone":
            let plan = try await transfer.planExport(userID: user.id)
            return FileResponse.streamedAttachment(contentType: "application/zip", filename: "hibi-dayone-\(day).zip") { emit in
                try await foreign.writeDayOne(plan, timeZone: zone, to: emit)
            }
        case "daylio":
            let csv = try await foreign.daylioCSV(userID: user.id, timeZone: zone)
            return FileResponse.attachment(Data(csv.utf8), contentType: "text/csv; charset=utf-8", filename: "hibi-daylio-\(day).csv")
        case nil, "", "hibi":
            return try await archive(transfer, userID: user.id, now: now)
        default:
            throw RequestError.invalidField("format", Text(en: "must be hibi, dayone or daylio", ja: "hibi・dayone・daylio のいずれかにしてください"))
        }
    }

    /// A diary photo, typed by its bytes.
    static func photo(_ data: Data) -> Response {
        FileResponse.privateImage(data, contentType: DiaryRules.imageContentType(data))
    }
}
