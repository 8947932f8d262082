import SQLKit

enum FaceLivenessSchema {
    /// Face unlock as an interactive challenge: the state of each challenge (sealed: it holds landmarks
    /// and distances), a claim that lets one frame at a time be analysed, and the digests of frames
    /// already seen so a recording of an earlier attempt cannot be sent again. The old one-shot
    /// challenge table goes: its rows are useless to the new protocol. Also each user's resting-face
    /// mood baseline from enrollment (sealed) and whether moods are read against it.
    static let migration = Migration(version: 20, name: "face-liveness-challenge") { sql, _ in
        try await sql.drop(table: "face_challenges").ifExists().run()
        try await sql.create(table: "face_liveness_challenges")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("state_sealed", type: .blob, .notNull)
            .column("revision", type: .bigint, .notNull)
            .column("in_flight_since", type: .bigint)
            .column("expires_at", type: .bigint, .notNull)
            .column("finished_at", type: .bigint)
            .run()
        try await sql.create(index: "face_liveness_challenges_user").on("face_liveness_challenges").column("user_id").run()
        try await sql.create(table: "face_frame_digests")
            .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
            .column("digest", type: .text, .notNull)
            .column("seen_at", type: .bigint, .notNull)
            .primaryKey("user_id", "digest")
            .run()
        try await sql.create(table: "face_mood_baselines")
            .column("user_id", type: .text, .primaryKey(autoIncrement: false), .references("users", "id", onDelete: .cascade))
            .column("scores_sealed", type: .blob, .notNull)
            .column("enabled", type: .boolean, .notNull)
            .run()
    }
}
