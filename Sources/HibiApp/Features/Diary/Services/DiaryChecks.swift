import SQLKit

extension CheckSchema {
    /// `Mood` as of this migration, spelled out: a later case needs a migration of its own (CheckSchemaTests
    /// compares the list with the enum).
    static let moods = ["happiness", "sadness", "anger", "surprise", "fear", "disgust", "neutral"]

    /// Diary's rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: Mood, DiaryImportJob.State, counters that only count up.
    static let diaryRules: [Rule] = [
        Rule(table: "diary_entries", name: "diary_entries_confirmed_mood", check: among("confirmed_mood", moods, nullable: true),
             repair: #""confirmed_mood" = NULL"#),
        Rule(table: "diary_import_jobs", name: "diary_import_jobs_state", check: among("state", ["running", "done", "failed"]),
             repair: #""state" = 'failed'"#),
        Rule(table: "diary_import_jobs", name: "diary_import_jobs_counts", check: #""total" >= 0 AND "done" >= 0 AND "attempts" >= 0"#,
             repair: #""total" = CASE WHEN "total" < 0 THEN 0 ELSE "total" END, "done" = CASE WHEN "done" < 0 THEN 0 ELSE "done" END, "attempts" = CASE WHEN "attempts" < 0 THEN 0 ELSE "attempts" END"#),
        Rule(table: "face_liveness_challenges", name: "face_liveness_challenges_revision", check: #""revision" >= 0"#, repair: #""revision" = 0"#),
    ]
}

extension IntegritySchema {
    /// Diary's part of migration 19 (`IntegritySchema`): a tag belongs to an existing person (a foreign key it lacked;
    /// tags whose person is gone are deleted, nobody can see them), a lock lasts 1 to 1440 minutes (`DiaryRules`).
    static let diaryPart = Part(
        repairs: [
            #"DELETE FROM "diary_tags" WHERE "user_id" NOT IN (SELECT "id" FROM "users")"#,
            #"UPDATE "diary_settings" SET "lock_minutes" = 10 WHERE "lock_minutes" < 1 OR "lock_minutes" > 1440"#,
        ],
        rules: [
            Rule(table: "diary_tags", name: "diary_tags_user_fk",
                 definition: #"FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE"#),
            Rule(table: "diary_settings", name: "diary_settings_lock_minutes", definition: #"CHECK ("lock_minutes" BETWEEN 1 AND 1440)"#),
        ])
}
