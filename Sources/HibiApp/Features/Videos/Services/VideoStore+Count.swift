import SQLKit

extension VideoStore {
    /// How many videos a user added (the shared library is not theirs); the getting-started checklist only asks whether there is one.
    public func count(userID: String) async throws -> Int {
        let row = try await database.sql.raw("SELECT COUNT(*) AS n FROM videos WHERE owner_id = \(bind: userID)").first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }
}
