import SQLKit

extension CheckSchema {
    /// Backup's rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: a run's size is the archive's length.
    static let backupRules: [Rule] = [
        Rule(table: "backup_runs", name: "backup_runs_bytes", check: #""bytes" IS NULL OR "bytes" >= 0"#, repair: #""bytes" = NULL"#),
    ]
}
