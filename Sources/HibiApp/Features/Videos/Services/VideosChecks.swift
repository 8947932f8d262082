import SQLKit

extension CheckSchema {
    /// Videos' rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: VideoSource, sizes and lengths from the file and ffprobe, VideoRules.validatePlaylistName.
    static let videosRules: [Rule] = [
        Rule(table: "videos", name: "videos_source", check: among("source", ["upload", "library"]),
             repair: #""source" = CASE WHEN "owner_id" IS NULL THEN 'library' ELSE 'upload' END"#),
        Rule(table: "videos", name: "videos_sizes",
             check: #""size_bytes" >= 0 AND ("duration_ms" IS NULL OR "duration_ms" >= 0) AND ("width" IS NULL OR "width" >= 0) AND ("height" IS NULL OR "height" >= 0)"#,
             repair: #""size_bytes" = CASE WHEN "size_bytes" < 0 THEN 0 ELSE "size_bytes" END, "duration_ms" = CASE WHEN "duration_ms" < 0 THEN NULL ELSE "duration_ms" END, "width" = CASE WHEN "width" < 0 THEN NULL ELSE "width" END, "height" = CASE WHEN "height" < 0 THEN NULL ELSE "height" END"#),
        Rule(table: "video_playlists", name: "video_playlists_name_not_empty", check: #""name" <> ''"#, repair: #""name" = 'Playlist'"#),
        Rule(table: "video_playlist_items", name: "video_playlist_items_position", check: #""position" >= 0"#, repair: #""position" = 0"#),
    ]
}

extension IntegritySchema {
    /// Videos' part of migration 19 (`IntegritySchema`): a rating is 1 to 5 stars, a playback position and a play
    /// count are never negative.
    static let videosPart = Part(
        repairs: [
            #"UPDATE "video_user_data" SET "rating" = NULL WHERE "rating" < 1 OR "rating" > 5"#,
            #"UPDATE "video_user_data" SET "position_ms" = 0 WHERE "position_ms" < 0"#,
            #"UPDATE "video_user_data" SET "play_count" = 0 WHERE "play_count" < 0"#,
        ],
        rules: [
            Rule(table: "video_user_data", name: "video_user_data_rating", definition: #"CHECK ("rating" IS NULL OR "rating" BETWEEN 1 AND 5)"#),
            Rule(table: "video_user_data", name: "video_user_data_counts", definition: #"CHECK ("position_ms" >= 0 AND "play_count" >= 0)"#),
        ])
}
