import Foundation
import Hummingbird

/// Health's downloads, the same from the web page and the API.
enum HealthDownloads {
    /// Every record as CSV, in the columns the CSV import reads back.
    static func csv(_ health: HealthService, user: User) async throws -> Response {
        FileResponse.attachment(Data(try await health.csvExport(userID: user.id).utf8), contentType: "text/csv; charset=utf-8",
                                filename: "hibi-health.csv")
    }
}
