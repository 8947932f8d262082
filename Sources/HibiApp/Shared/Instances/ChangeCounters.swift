import SQLKit

/// A number per key (e.g. "diary:<user id>") that every write of that data raises in the same transaction.
/// A cache in one instance compares the number it was built at with the database's on each use, so a
/// change made through another instance is seen on the next request, even one in the same second.
enum ChangeCounters {
    static func diary(_ userID: String) -> String { "diary:\(userID)" }

    static func bump(_ key: String, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            INSERT INTO change_counters (key, version) VALUES (\(bind: key), 1)
            ON CONFLICT (key) DO UPDATE SET version = change_counters.version + 1
            """).run()
    }

    static func createTable(_ sql: any SQLDatabase) async throws {
        try await sql.create(table: "change_counters")
            .column("key", type: .text, .primaryKey(autoIncrement: false))
            .column("version", type: .bigint, .notNull)
            .run()
    }
}
