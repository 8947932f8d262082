import SQLKit

extension VisitService {
    /// Visits a user has (deleted ones not counted); the getting-started checklist only asks whether there is one.
    public func count(userID: String) async throws -> Int {
        let row = try await database.sql.raw("SELECT COUNT(*) AS n FROM visits WHERE user_id = \(bind: userID) AND deleted_at IS NULL").first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }
}
