import VaporCSQLite

/// What SQLite answered a statement prepared and stepped straight on a session's handle (`SQLiteRawHandle`): its
/// result code and message. Health's record insert and Visits' location points step their statements this way.
struct SQLiteStepError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }

    /// The error SQLite keeps for the last call on `db` that returned `code`.
    init(_ db: OpaquePointer, code: Int32) {
        self.code = code
        message = sqlite_nio_sqlite3_errmsg(db).map { String(cString: $0) } ?? ""
    }
}
