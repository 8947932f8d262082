import Foundation
import SQLKit

/// Persists failed sign-in counts so a restart does not reset a lock.
public struct LoginThrottleStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func state(subject: String) async throws -> LoginThrottlePolicy.State? {
        guard let row = try await database.sql.select().columns("failures", "last_failure_at", "locked_until")
            .from("login_failures").where("subject", .equal, subject).first() else { return nil }
        return LoginThrottlePolicy.State(
            failures: Int(try row.decode(column: "failures", as: Int64.self)),
            lastFailureAt: Date(timeIntervalSince1970: Double(try row.decode(column: "last_failure_at", as: Int64.self))),
            lockedUntil: try row.decode(column: "locked_until", as: Int64?.self).map { Date(timeIntervalSince1970: Double($0)) }
        )
    }

    public func save(subject: String, state: LoginThrottlePolicy.State) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "login_failures").where("subject", .equal, subject).run()
            try await sql.insert(into: "login_failures")
                .columns("subject", "failures", "last_failure_at", "locked_until")
                .values(SQLBind(subject), SQLBind(Int64(state.failures)), SQLBind(Int64(state.lastFailureAt.timeIntervalSince1970)),
                        SQLBind(state.lockedUntil.map { Int64($0.timeIntervalSince1970) }))
                .run()
        }
    }

    public func clear(subject: String) async throws {
        try await database.sql.delete(from: "login_failures").where("subject", .equal, subject).run()
    }
}
