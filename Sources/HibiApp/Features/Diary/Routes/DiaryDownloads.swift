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

    /// A diary photo, typed by its bytes.
    static func photo(_ data: Data) -> Response {
        FileResponse.privateImage(data, contentType: DiaryRules.imageContentType(data))
    }
}
