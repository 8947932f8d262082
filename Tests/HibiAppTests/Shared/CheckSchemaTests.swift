import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// Migration 33 (CHECK constraints) on a database made at version 32 that holds rows the new rules refuse
/// (this suite runs on PostgreSQL too): the migration goes through, each row is made to fit as its rule says,
/// nothing a rebuilt parent table points to is lost, and afterwards the same INSERTs are refused.
@Suite(.serialized) struct CheckSchemaTests {
    /// One row per table breaking its rules, `{k}` making the keys differ between the planted copy and the retry.
    static func plants(blob: String) -> [String] {
        [
            "INSERT INTO users (id, username, display_name, password_hash, is_admin, disabled, language, time_zone, created_at, password_changed_at) VALUES ('bad{k}', '', '', 'x', FALSE, FALSE, 'fr', 'UTC', 0, 0)",
            "INSERT INTO api_tokens (id, user_id, name, token_hash, prefix, created_at) VALUES ('t{k}', 'u1', '', 'hash{k}', 'p', 0)",
            "INSERT INTO login_failures (subject, failures, last_failure_at) VALUES ('s{k}', -3, 0)",
            "INSERT INTO backup_runs (id, started_at, file_name, bytes, verified) VALUES ('b{k}', 0, 'f', -1, FALSE)",
            "INSERT INTO diary_entries (id, user_id, entry_at, text_sealed, confirmed_mood, has_photo, created_at, updated_at) VALUES ('e{k}', 'u1', 0, \(blob), 'joy', FALSE, 0, 0)",
            "INSERT INTO diary_import_jobs (id, user_id, state, file_name, total, done, attempts, created_at) VALUES ('dj{k}', 'u1', 'stuck', 'f', -1, -2, -1, 0)",
            "INSERT INTO face_liveness_challenges (id, user_id, state_sealed, revision, expires_at) VALUES ('fc{k}', 'u1', \(blob), -1, 0)",
            "INSERT INTO health_profiles (user_id, height_cm, target_weight_kg, weight_unit, distance_unit, energy_unit, updated_at) VALUES ('u{k}', -5, 0, 'stone', 'km', 'kcal', 0)",
            "INSERT INTO health_import_jobs (id, user_id, kind, state, file_name, fingerprint, total_bytes, bytes_done, checkpoint, inserted, duplicates, created_at, attempts) VALUES ('hj{k}', 'u1', 'apple', 'weird', 'f', 'fp', -1, -1, 0, -1, -1, 0, -1)",
            "INSERT INTO health_reminders (id, user_id, minute_of_day, weekdays, message, created_at) VALUES ('r{k}', 'u1', 2000, '1', 'm', 0)",
            "INSERT INTO health_workouts (id, user_id, activity, start_at, end_at, duration_min, distance_km, energy_kcal, device, created_at) VALUES ('w{k}', 'u1', 'run', 0, 60, -5, -1, -2, 'd', 0)",
            "INSERT INTO health_workout_route_points (user_id, workout_id, t, lat, lon) VALUES ('u1', 'wg', 10{k}, 95, 0)",
            "INSERT INTO videos (id, owner_id, source, file_path, original_name, size_bytes, modified_ms, duration_ms, width, height, has_thumbnail, has_captions, created_at) VALUES ('v{k}', 'u1', 'stream', 'p{k}', 'n', -1, 0, -5, -1, -1, FALSE, FALSE, 0)",
            "INSERT INTO video_playlists (id, user_id, name, created_at, updated_at) VALUES ('pl{k}', 'u1', '', 0, 0)",
            "INSERT INTO video_playlist_items (playlist_id, video_id, position, added_at) VALUES ('plg', 'vg{k}', -1, 0)",
            "INSERT INTO visits (id, user_id, visited_at, latitude, longitude, accuracy, simulated, name, labels, companions, notes, photos, revision, created_at, updated_at) VALUES ('vi{k}', 'u1', 0, 91, 200, -1, FALSE, '', '[]', '[]', '', '[]', 1, 0, 0)",
            "INSERT INTO location_points (user_id, recorded_at, latitude, longitude, source) VALUES ('u1', {k}, 100, 0, 'gpx')",
            "INSERT INTO location_points (user_id, recorded_at, latitude, longitude, accuracy, source) VALUES ('u1', 10{k}, 10, 10, -4, 'gpx')",
            "INSERT INTO location_stays (id, user_id, arrival, departure, latitude, longitude, point_count, name, status, source, created_at) VALUES ('st{k}', 'u1', {k}00, 50, -100, 0, -1, 'n', 'weird', 'gpx', 0)",
            "INSERT INTO location_settings (user_id, distance_m, duration_min) VALUES ('u{k}', 1, 5000)",
        ]
    }

    /// Rows the rules accept, including children of every table the SQLite side rebuilds (a rebuild with
    /// foreign keys on would have deleted them).
    static func goodRows(blob: String) -> [String] {
        ["u1", "u2"].map {
            "INSERT INTO users (id, username, display_name, password_hash, is_admin, disabled, time_zone, created_at, password_changed_at) VALUES ('\($0)', 'name-\($0)', 'Name', 'x', FALSE, FALSE, 'UTC', 0, 0)"
        } + [
            "INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ('sh', 'u1', 'c', 0, 0, 0)",
            "INSERT INTO diary_entries (id, user_id, entry_at, text_sealed, confirmed_mood, has_photo, created_at, updated_at) VALUES ('eg', 'u1', 0, \(blob), 'happiness', FALSE, 0, 0)",
            "INSERT INTO diary_tags (entry_id, user_id, tag, tag_key) VALUES ('eg', 'u1', 'Walk', 'walk')",
            "INSERT INTO diary_photos (id, entry_id, user_id, position, has_face, mood_source, created_at) VALUES ('dp', 'eg', 'u1', 0, FALSE, FALSE, 0)",
            "INSERT INTO health_workouts (id, user_id, activity, start_at, end_at, duration_min, device, created_at) VALUES ('wg', 'u1', 'run', 0, 60, 60, 'd', 0)",
            "INSERT INTO health_workout_route_points (user_id, workout_id, t, lat, lon) VALUES ('u1', 'wg', 1, 35.6, 139.7)",
            "INSERT INTO videos (id, owner_id, source, file_path, original_name, size_bytes, modified_ms, has_thumbnail, has_captions, created_at) VALUES ('vg1', 'u1', 'upload', 'g1', 'n', 10, 0, TRUE, FALSE, 0)",
            "INSERT INTO videos (id, owner_id, source, file_path, original_name, size_bytes, modified_ms, has_thumbnail, has_captions, created_at) VALUES ('vg2', NULL, 'library', 'g2', 'n', 10, 0, TRUE, FALSE, 0)",
            "INSERT INTO video_user_data (user_id, video_id, favorite, rating, tags, position_ms, play_count, played, hidden_from_continue) VALUES ('u1', 'vg1', TRUE, 4, '', 5, 1, FALSE, FALSE)",
            "INSERT INTO video_playlists (id, user_id, name, created_at, updated_at) VALUES ('plg', 'u1', 'Mine', 0, 0)",
            "INSERT INTO visits (id, user_id, visited_at, latitude, longitude, simulated, name, labels, companions, notes, photos, revision, created_at, updated_at) VALUES ('vig', 'u1', 0, 35, 139, FALSE, 'Park', '[]', '[]', '', '[]', 1, 0, 0)",
            "INSERT INTO visit_photos (id, visit_id, user_id, content_type, data, created_at) VALUES ('vp', 'vig', 'u1', 'image/jpeg', \(blob), 0)",
        ]
    }

    static func count(_ sql: any SQLDatabase, _ query: String) async throws -> Int {
        try await sql.raw(SQLQueryString(query)).first()?.decode(column: "n", as: Int.self) ?? -1
    }

    static func text(_ sql: any SQLDatabase, _ query: String) async throws -> String? {
        try await sql.raw(SQLQueryString(query)).first()?.decode(column: "v", as: String?.self)
    }

    static func number(_ sql: any SQLDatabase, _ query: String) async throws -> Double? {
        try await sql.raw(SQLQueryString(query)).first()?.decode(column: "v", as: Double?.self)
    }

    @Test func badRowsAtVersion32AreMadeToFitAndTheSameInsertsAreRefusedAfterwards() async throws {
        let config = try await TestApp.config()
        let database = try await Database.open(config.database, logger: TestApp.quietLogger)
        var failure: (any Error)?
        do {
            let sql = database.sql
            let blob = database.engine == .postgres ? #"'\x00'::bytea"# : "X'00'"
            _ = try await Migrator(database: database, migrations: Schema.all.filter { $0.version <= 32 }, logger: TestApp.quietLogger).migrate()
            for statement in Self.goodRows(blob: blob) + Self.plants(blob: blob).map({ $0.replacingOccurrences(of: "{k}", with: "1") }) {
                try await sql.raw(SQLQueryString(statement)).run()
            }
            #expect(try await Migrator(database: database, migrations: Schema.all.filter { $0.version <= 33 }, logger: TestApp.quietLogger).migrate() == [33])

            // Repaired: given what the app would have written, clamped, or emptied.
            #expect(try await Self.text(sql, "SELECT username || '/' || display_name AS v FROM users WHERE id = 'bad1'") == "bad1/bad1")
            #expect(try await Self.text(sql, "SELECT language AS v FROM users WHERE id = 'bad1'") == nil)
            #expect(try await Self.text(sql, "SELECT name AS v FROM api_tokens WHERE id = 't1'") == "API token")
            #expect(try await Self.count(sql, "SELECT failures AS n FROM login_failures WHERE subject = 's1'") == 0)
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM backup_runs WHERE id = 'b1' AND bytes IS NULL") == 1)
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM diary_entries WHERE id = 'e1' AND confirmed_mood IS NULL") == 1)
            #expect(try await Self.text(sql, "SELECT state AS v FROM diary_import_jobs WHERE id = 'dj1'") == "failed")
            #expect(try await Self.count(sql, "SELECT total + done + attempts AS n FROM diary_import_jobs WHERE id = 'dj1'") == 0)
            #expect(try await Self.count(sql, "SELECT revision AS n FROM face_liveness_challenges WHERE id = 'fc1'") == 0)
            #expect(try await Self.text(sql, "SELECT weight_unit AS v FROM health_profiles WHERE user_id = 'u1'") == "kg")
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM health_profiles WHERE user_id = 'u1' AND height_cm IS NULL AND target_weight_kg IS NULL") == 1)
            #expect(try await Self.text(sql, "SELECT state AS v FROM health_import_jobs WHERE id = 'hj1'") == "failed")
            #expect(try await Self.count(sql, "SELECT total_bytes + bytes_done + inserted + duplicates + attempts AS n FROM health_import_jobs WHERE id = 'hj1'") == 0)
            #expect(try await Self.count(sql, "SELECT minute_of_day AS n FROM health_reminders WHERE id = 'r1'") == 1439)
            #expect(try await Self.number(sql, "SELECT duration_min AS v FROM health_workouts WHERE id = 'w1'") == 0)
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM health_workouts WHERE id = 'w1' AND distance_km IS NULL AND energy_kcal IS NULL") == 1)
            #expect(try await Self.text(sql, "SELECT source AS v FROM videos WHERE id = 'v1'") == "upload")
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM videos WHERE id = 'v1' AND size_bytes = 0 AND duration_ms IS NULL AND width IS NULL AND height IS NULL") == 1)
            #expect(try await Self.text(sql, "SELECT name AS v FROM video_playlists WHERE id = 'pl1'") == "Playlist")
            #expect(try await Self.count(sql, "SELECT position AS n FROM video_playlist_items WHERE video_id = 'vg1'") == 0)
            #expect(try await Self.number(sql, "SELECT latitude + longitude AS v FROM visits WHERE id = 'vi1'") == 270)
            #expect(try await Self.text(sql, "SELECT name AS v FROM visits WHERE id = 'vi1'") == "?")
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM visits WHERE id = 'vi1' AND accuracy IS NULL") == 1)
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM location_points WHERE recorded_at = 101 AND accuracy IS NULL") == 1)
            #expect(try await Self.text(sql, "SELECT status AS v FROM location_stays WHERE id = 'st1'") == "open")
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM location_stays WHERE id = 'st1' AND latitude = -90 AND departure = arrival AND point_count = 0") == 1)
            #expect(try await Self.count(sql, "SELECT duration_min AS n FROM location_settings WHERE user_id = 'u1'") == 1440)
            #expect(try await Self.number(sql, "SELECT distance_m AS v FROM location_settings WHERE user_id = 'u1'") == 10)
            // Deleted: points off the globe only.
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM location_points") == 1)
            #expect(try await Self.count(sql, "SELECT COUNT(*) AS n FROM health_workout_route_points") == 1)

            // Nothing pointing at a rebuilt table went: sessions, tags, photos, video data, visit photos, route points.
            #expect(try await Self.count(sql, """
                SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM diary_tags) + (SELECT COUNT(*) FROM diary_photos) \
                + (SELECT COUNT(*) FROM video_user_data) + (SELECT COUNT(*) FROM visit_photos) AS n
                """) == 5)

            // The same rows are refused now, on both engines.
            for statement in Self.plants(blob: blob).map({ $0.replacingOccurrences(of: "{k}", with: "2") }) {
                await #expect(throws: (any Error).self, "\(statement.prefix(60))") { try await sql.raw(SQLQueryString(statement)).run() }
            }
            // Foreign keys are on again: a person's rows still go with them, a row pointing nowhere is refused.
            await #expect(throws: (any Error).self) {
                try await sql.raw("INSERT INTO diary_tags (entry_id, user_id, tag, tag_key) VALUES ('eg', 'nobody', 'x', 'x')").run()
            }
            try await sql.raw("DELETE FROM users WHERE id = 'u1'").run()
            #expect(try await Self.count(sql, "SELECT (SELECT COUNT(*) FROM diary_tags) + (SELECT COUNT(*) FROM visit_photos) + (SELECT COUNT(*) FROM videos WHERE owner_id IS NOT NULL) AS n") == 0)
        } catch {
            failure = error
        }
        await database.shutdown()
        if let failure { throw failure }
    }

    /// The lists spelled out in migration 33 are the enums the app writes; a new case needs a new migration.
    @Test func theSpelledOutValuesAreTheEnums() {
        #expect(CheckSchema.moods == Mood.allCases.map(\.rawValue))
        #expect(CheckSchema.stayStatuses == StayStatus.allCases.map(\.rawValue))
        #expect(CheckSchema.rules.count == Set(CheckSchema.rules.map(\.name)).count, "constraint names are unique")
    }
}
