import Foundation
import SQLKit
@testable import HibiApp

/// The diary, visits and location tables with the values no request could write (issue 28 item 1, "every
/// table a page reads"): the ends of Int64 and of the dates Hibi accepts (years 1 and 9999), ±1e19 and the
/// largest finite double in every number column, reversed and zero-length spans, and 1 MB strings.
extension ExtremeValueRouterTests {
    static let firstDay: Int64 = -62_135_596_800  // 0001-01-01T00:00:00Z
    static let lastDay: Int64 = 253_402_300_799   // 9999-12-31T23:59:59Z
    /// A tag is in a unique index, where PostgreSQL refuses 1 MB (so no request could store one): as long as it takes.
    static let longTag = String(repeating: "t", count: 2000)

    /// Entries are sealed as the store seals them (a row Hibi cannot open is another test's matter); their
    /// dates, moods and photo rows are then set to what no form would allow.
    static func plantDiary(_ core: AppCore, userID: String, around date: Date) async throws -> [String] {
        let store = DiaryStore(database: core.database, box: core.box)
        let at = Int64(saturating: date.timeIntervalSince1970)
        let moods = MoodScores([.happiness: 1e19, .sadness: -Double.greatestFiniteMagnitude, .anger: .greatestFiniteMagnitude, .neutral: 0])
        var ids: [String] = []
        for (i, seconds) in [firstDay, lastDay, at, at - 3600].enumerated() {
            let when = Date(timeIntervalSince1970: Double(seconds))
            let id = "xd\(i)"
            ids.append(id)
            try await store.insert(DiaryEntry(id: id, userID: userID, date: when, text: i == 0 ? huge : "short", tags: i == 1 ? [longTag] : ["t\(i)"],
                                              moodScores: i == 3 ? nil : moods, confirmedMood: i == 2 ? .happiness : nil, hasPhoto: false,
                                              createdAt: when, updatedAt: when))
        }
        // Past the dates a form accepts: the ends of Int64, in both directions.
        try await core.database.sql.raw("UPDATE diary_entries SET entry_at = \(bind: Int64.max), created_at = \(bind: Int64.min), updated_at = \(bind: Int64.max) WHERE id = 'xd0'").run()
        try await core.database.sql.raw("UPDATE diary_entries SET entry_at = \(bind: Int64.min) WHERE id = 'xd1'").run()
        try await core.database.sql.raw("""
            UPDATE diary_entries SET mood_scores = '{"happiness":1e308,"sadness":-1e308,"fear":1e19}', confirmed_mood = 'neutral' WHERE id = 'xd3'
            """).run()
        // Photo rows whose files are missing, at the far ends of position and time.
        for (i, position) in [Int64.max, 0, 1].enumerated() {
            try await core.database.sql.raw("""
                INSERT INTO diary_photos (id, entry_id, user_id, position, has_face, mood_source, created_at)
                VALUES (\(bind: "xp\(i)"), \(bind: ids[i % 3]), \(bind: userID), \(bind: position), \(bind: i == 0), \(bind: i == 0), \(bind: i == 1 ? Int64.min : Int64.max))
                """).run()
        }
        try await core.database.sql.raw("UPDATE diary_entries SET has_photo = \(bind: true) WHERE id IN ('xd0', 'xd1', 'xd2')").run()
        return ids
    }

    /// Visits straight into the table (outside the signed log, which says so rather than failing), location
    /// points, stays and stay settings.
    static func plantPlaces(_ sql: any SQLDatabase, userID: String, around date: Date) async throws -> [String] {
        let at = Int64(saturating: date.timeIntervalSince1970)
        let numbers: [Double] = [1e19, -1e19, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0]
        let times: [Int64] = [Int64.max, Int64.min, firstDay, lastDay, at]
        var ids: [String] = []
        for (i, (number, time)) in zip(numbers, times).enumerated() {
            let id = "xv\(i)"
            ids.append(id)
            let photos = #"[{"id":"p\#(i)","contentType":"image/png","size":\#(Int64.max),"sha256":"00"}]"#
            try await sql.raw("""
                INSERT INTO visits (id, user_id, visited_at, latitude, longitude, accuracy, altitude, simulated, name, address, labels, group_name,
                                    companions, notes, photos, revision, created_at, updated_at, deleted_at)
                VALUES (\(bind: id), \(bind: userID), \(bind: time), \(bind: number), \(bind: -number), \(bind: -number), \(bind: number), \(bind: false),
                        \(bind: i == 0 ? huge : "Place \(i)"), NULL, \(bind: i == 1 ? "[\"\(huge)\"]" : "[]"), \(bind: i == 2 ? huge : nil),
                        '[]', \(bind: i == 3 ? huge : ""), \(bind: i == 4 ? "[]" : photos), \(bind: i == 0 ? Int64.max : 1), \(bind: time), \(bind: time), NULL)
                """).run()
        }
        for (i, (number, time)) in zip(numbers, times).enumerated() {
            for (j, accuracy) in [number, -number].enumerated() {
                try await sql.raw("""
                    INSERT INTO location_points (user_id, recorded_at, latitude, longitude, accuracy, source, import_id)
                    VALUES (\(bind: userID), \(bind: time &+ Int64(j)), \(bind: number), \(bind: -number), \(bind: accuracy), \(bind: i == 0 ? huge : "gpx"), NULL)
                    """).run()
            }
            // Arrival after departure, zero-length and spanning all of time; a status no code writes.
            try await sql.raw("""
                INSERT INTO location_stays (id, user_id, arrival, departure, latitude, longitude, point_count, name, status, visit_id, source, created_at, decided_at)
                VALUES (\(bind: "xs\(i)"), \(bind: userID), \(bind: time), \(bind: [Int64.min, Int64.max, firstDay, at - 7200, at][i]), \(bind: number),
                        \(bind: -number), \(bind: [Int64.max, Int64.min, 0, -1, 3][i]), \(bind: i == 1 ? huge : "Stay \(i)"),
                        \(bind: ["open", "confirmed", "dismissed", "zzz", "open"][i]), \(bind: i == 1 ? "xv1" : nil), 'gpx', \(bind: time), \(bind: i == 2 ? Int64.min : nil))
                """).run()
        }
        try await sql.raw("""
            INSERT INTO location_settings (user_id, distance_m, duration_min, live_since) VALUES (\(bind: userID), 1e19, \(bind: Int64.max), \(bind: Int64.min))
            """).run()
        return ids
    }
}
