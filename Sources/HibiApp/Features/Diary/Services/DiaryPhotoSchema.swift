import SQLKit

enum DiaryPhotoSchema {
    /// Several photos per entry, in order. A photo's id names its sealed file; the photos entries had
    /// before this step keep their file, because their photo id is the entry's id. `mood_source` marks
    /// the photo the entry's mood estimate was read from (the first one that showed a face).
    static let migration = Migration(version: 25, name: "diary-photos") { sql, _ in
        try await sql.create(table: "diary_photos")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("entry_id", type: .text, .notNull, .references("diary_entries", "id", onDelete: .cascade))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("position", type: .bigint, .notNull, .check(SQLRaw(#""position" >= 0"#)))
            .column("has_face", type: .boolean, .notNull)
            .column("mood_source", type: .boolean, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await sql.create(index: "diary_photos_entry").on("diary_photos").column("entry_id").column("position").run()
        try await sql.raw("""
            INSERT INTO diary_photos (id, entry_id, user_id, position, has_face, mood_source, created_at)
            SELECT id, id, user_id, 0, mood_scores IS NOT NULL, mood_scores IS NOT NULL, created_at
            FROM diary_entries WHERE has_photo = \(bind: true)
            """).run()
    }

    /// Thumbnails that could not be made (ffmpeg failed, timed out, or the photo is above the pixel cap), so a
    /// view does not start ffmpeg again for them: kept in the database so every instance agrees (issue 28, item 3).
    static let thumbnailFailures = Migration(version: 27, name: "diary-photo-thumbnail-failures") { sql, _ in
        try await sql.create(table: "diary_photo_thumbnail_failures")
            .column("photo_id", type: .text, .primaryKey(autoIncrement: false), .references("diary_photos", "id", onDelete: .cascade))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("reason", type: .text, .notNull)
            .column("failed_at", type: .bigint, .notNull)
            .run()
    }
}
