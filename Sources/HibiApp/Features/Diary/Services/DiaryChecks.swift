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
