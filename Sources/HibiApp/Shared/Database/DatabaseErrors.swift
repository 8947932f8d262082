import Foundation

enum DatabaseErrors {
    /// Both drivers report constraint violations only as text; matched here once for every store.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        let text = String(reflecting: error).lowercased()
        return text.contains("unique constraint") || text.contains("duplicate key") || text.contains("23505")
    }
}
