import Foundation
import Hummingbird

/// Health's downloads, the same from the web page and the API.
enum HealthDownloads {
    /// Every record as CSV, in the columns the CSV import reads back.
    static func csv(_ health: HealthService, user: User) async throws -> Response {
        FileResponse.attachment(Data(try await health.csvExport(userID: user.id).utf8), contentType: "text/csv; charset=utf-8",
                                filename: "hibi-health.csv")
    }

    /// One electrocardiogram file of the user, as it came in the export; not found for anyone else's.
    static func electrocardiogram(_ health: HealthService, user: User, name: String) throws -> Response {
        guard let path = health.electrocardiograms.path(name: name, userID: user.id),
              let data = FileManager.default.contents(atPath: path), data.count <= HealthECGStore.maxBytes else { throw HealthError.recordNotFound }
        return FileResponse.attachment(data, contentType: "text/csv; charset=utf-8", filename: name)
    }
}
