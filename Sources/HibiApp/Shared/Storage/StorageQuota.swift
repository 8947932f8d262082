import Foundation

/// Per-person storage quota for uploads (`HIBI_USER_QUOTA_GB`). Usage is asked of each feature that
/// keeps uploaded bytes (videos, diary photos, visit photos) at the moment of an upload, so it is never
/// out of date, whichever instance stored the files. An upload whose declared length does not fit is
/// refused before a byte of it is read; one without a length is cut off where the quota ends.
public struct StorageQuota: Sendable {
    public typealias Usage = @Sendable (_ userID: String) async throws -> Int64
    let limit: Int64?
    let usages: [Usage]

    public init(limit: Int64?, usages: [Usage]) {
        self.limit = limit
        self.usages = usages
    }

    public func used(userID: String) async throws -> Int64 {
        var total: Int64 = 0
        for usage in usages {
            let (sum, overflow) = total.addingReportingOverflow(max(0, try await usage(userID)))
            total = overflow ? .max : sum
        }
        return total
    }

    /// How many more bytes this person may upload now (nil: no quota). Throws 413 when a declared
    /// length already does not fit.
    public func remaining(userID: String, declaredLength: Int64?) async throws -> Int64? {
        guard let limit else { return nil }
        let left = max(0, limit - min(limit, try await used(userID: userID)))
        if let declaredLength, declaredLength > left { throw RequestError.quotaExceeded(limitBytes: limit) }
        if left == 0 { throw RequestError.quotaExceeded(limitBytes: limit) }
        return left
    }
}
