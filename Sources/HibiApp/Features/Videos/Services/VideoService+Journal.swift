import Foundation
import SQLKit

// MARK: more read methods for the journal

extension VideoService {
    /// When each video the person can see was last played in `[from, to)`, and its length in seconds (nil when unknown):
    /// the two numbers the journal's summaries take from `played`, without decoding whole items (years of plays).
    public func playTimes(userID: String, from: Date, to: Date) async throws -> [(at: Date, seconds: Double?)] {
        let lower = Int64(saturating: from.timeIntervalSince1970), upper = Int64(saturating: to.timeIntervalSince1970)
        // The same videos as `played`: the person's own and the library's, with the person's last play in the range.
        let rows = try await store.database.sql.raw("""
            SELECT d.last_played_at AS last_played_at, v.duration_ms AS duration_ms FROM video_user_data d JOIN videos v ON v.id = d.video_id \
            WHERE d.user_id = \(bind: userID) AND (v.owner_id = \(bind: userID) OR v.source = \(bind: VideoSource.library.rawValue)) \
            AND d.last_played_at >= \(bind: lower) AND d.last_played_at < \(bind: upper) ORDER BY d.last_played_at DESC
            """).all(decoding: VideoUserDataRow.PlayTime.self)
        return rows.map(\.play)
    }
}
