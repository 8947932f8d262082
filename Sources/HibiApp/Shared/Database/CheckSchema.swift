import Logging
import SQLKit

/// Migration 33: CHECK constraints for what the app already refuses before writing (issue 30, item 3), so a
/// bug, a hand edit or a restored file cannot store it either: coordinates on the globe, sizes, durations and
/// counters never negative, the ranges the forms enforce, the values an enum column can hold, names that are
/// never empty. Each rule names the code that keeps it.
///
/// Rows already breaking a rule can only have come from outside the app. None makes the migration fail, and
/// each is dealt with as its rule says (`repair`), counted, and only the count logged:
/// - clamped into the range when the value still means something there (a setting, a counter);
/// - set to NULL when the column may be empty and the value means nothing (a negative accuracy or size);
/// - given the value the app would have written (an empty display name becomes the username);
/// - deleted only for a raw point whose coordinates are off the globe: every reader skips such a point on
///   import (`LocationHistoryJSON.valid`, `AppleHealthMapping.valid`), it cannot be drawn, and clamping it
///   could make it collide with a real point's key.
/// Keeping a bad row and skipping its rule was not chosen: a backup's tables file and a restore lay out the
/// schema by these migrations, so a database without a rule would make backups it cannot restore.
///
/// PostgreSQL adds each constraint in place. SQLite cannot, so each table is rebuilt by its documented
/// procedure (`IntegritySchema.rebuildSQLite`) with foreign keys off (`Migration.foreignKeysOff`): dropping a
/// parent table with them on would delete its children's rows.
enum CheckSchema {
    struct Rule {
        let table: String
        let name: String
        /// The condition, in SQL both engines read alike.
        let check: String
        /// What makes a row that breaks it fit; nil deletes the row (see above).
        let repair: String?
    }

    static func clamp(_ column: String, _ low: String, _ high: String) -> String {
        #""\#(column)" = CASE WHEN "\#(column)" < \#(low) THEN \#(low) WHEN "\#(column)" > \#(high) THEN \#(high) ELSE "\#(column)" END"#
    }

    static func among(_ column: String, _ values: [String], nullable: Bool = false) -> String {
        let list = "\"\(column)\" IN (" + values.map { "'\($0)'" }.joined(separator: ", ") + ")"
        return nullable ? "\"\(column)\" IS NULL OR \(list)" : list
    }

    static let onGlobe = #""latitude" BETWEEN -90 AND 90 AND "longitude" BETWEEN -180 AND 180"#
    static let onGlobeRepair = clamp("latitude", "-90", "90") + ", " + clamp("longitude", "-180", "180")

    /// Every feature's rules, each kept beside the feature's own schema.
    static var rules: [Rule] { accountsRules + backupRules + diaryRules + healthRules + videosRules + visitsRules }

    static let logger = Logger(label: "hibi.migrations")

    static let migration = Migration(version: 33, name: "check-constraints", foreignKeysOff: true) { sql, engine in
        for rule in rules {
            let broken = #"NOT (\#(rule.check))"#
            let count = try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: rule.table) WHERE \(unsafeRaw: broken)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard count > 0 else { continue }
            if let repair = rule.repair {
                try await sql.raw("UPDATE \(ident: rule.table) SET \(unsafeRaw: repair) WHERE \(unsafeRaw: broken)").run()
            } else {
                try await sql.raw("DELETE FROM \(ident: rule.table) WHERE \(unsafeRaw: broken)").run()
            }
            logger.warning("rows made to fit a new constraint", metadata: [
                "constraint": "\(rule.name)", "rows": "\(count)", "action": "\(rule.repair == nil ? "deleted" : "repaired")",
            ])
        }
        switch engine {
        case .postgres:
            for rule in rules {
                try await sql.raw("ALTER TABLE \(ident: rule.table) ADD CONSTRAINT \(ident: rule.name) CHECK (\(unsafeRaw: rule.check))").run()
            }
        case .sqlite:
            for table in Set(rules.map(\.table)).sorted() {
                try await IntegritySchema.rebuildSQLite(sql, table: table, constraints: rules.filter { $0.table == table }
                    .map { "CONSTRAINT \"\($0.name)\" CHECK (\($0.check))" })
            }
        }
    }
}
