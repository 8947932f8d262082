import Foundation
import SQLKit

// MARK: more read methods for the journal

extension DiaryService {
    /// The entries written on this month and day in earlier years, as `onThisDay`, but finding the first year from the
    /// date index (MIN) rather than the per-mood tally, which reads every entry: the journal asks on every day page.
    public func onThisDayFromFirstEntry(userID: String, today: Date, timeZone: TimeZone) async throws -> [DiaryEntry] {
        // The tally's first date only counts entries up to today; an earliest entry after today gives no window either way.
        guard let first = try await firstEntryDate(userID: userID), first <= today else { return [] }
        let windows = MoodAnalytics.onThisDayWindows(today: today, since: first, timeZone: timeZone)
        return try await store.entries(inWindows: windows, userID: userID, limit: 50)
    }
}

extension DiaryService {
    /// `moodPoints` over a long range (years): read from the (user, mood, date) covering index whole rather than the date
    /// index and every entry's row, which for a large diary are scattered among sealed texts (a tenth of the time on
    /// 100,000 entries). The `+` keeps SQLite from choosing the date index; PostgreSQL plans it as it sees fit.
    public func moodPointsOverYears(userID: String, from: Date, to: Date) async throws -> [MoodPoint] {
        try await store.database.sql.raw("""
            SELECT \(unsafeRaw: DiaryEntryRow.MoodColumns.columnList) FROM diary_entries WHERE user_id = \(bind: userID) \
            AND +entry_at >= \(bind: Int64(saturating: from.timeIntervalSince1970)) AND +entry_at <= \(bind: Int64(saturating: to.timeIntervalSince1970))
            """).all(decoding: DiaryEntryRow.MoodColumns.self).map(\.point)
    }
}
