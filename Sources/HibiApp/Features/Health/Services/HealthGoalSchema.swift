import SQLKit

extension HealthSchema {
    /// Goals may have no deadline ("10,000 steps a day"): health_goals.deadline becomes nullable.
    /// PostgreSQL drops the constraint in place; SQLite cannot, so the table is rebuilt with the same rows.
    static let goalsWithoutDeadline = Migration(version: 17, name: "health-goals-optional-deadline") { sql, engine in
        switch engine {
        case .postgres:
            try await sql.raw("ALTER TABLE health_goals ALTER COLUMN deadline DROP NOT NULL").run()
        case .sqlite:
            try await sql.create(table: "health_goals_new")
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("user_id", type: .text, .notNull, .references("users", "id", onDelete: .cascade))
                .column("type", type: .text, .notNull)
                .column("target_value", type: .double, .notNull)
                .column("deadline", type: .bigint)
                .column("created_at", type: .bigint, .notNull)
                .column("start_value", type: .double)
                .column("achieved_at", type: .bigint)
                .run()
            try await sql.raw("""
                INSERT INTO health_goals_new (id, user_id, type, target_value, deadline, created_at, start_value, achieved_at) \
                SELECT id, user_id, type, target_value, deadline, created_at, start_value, achieved_at FROM health_goals
                """).run()
            try await sql.drop(table: "health_goals").run()
            try await sql.raw("ALTER TABLE health_goals_new RENAME TO health_goals").run()
            try await sql.create(index: "health_goals_user").on("health_goals").column("user_id").run()
        }
    }
}
