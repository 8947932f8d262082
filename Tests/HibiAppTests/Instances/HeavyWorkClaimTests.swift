import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import HibiApp

/// Issue 28 item 2 ("every heavy import is one-per-person"), across instances: the claim lived in one
/// process's memory, so two instances behind one load balancer each took an import for the same person.
/// Now it is a lease row on the shared database (SQLite file, or PostgreSQL with HIBI_TEST_POSTGRES_URL).
@Suite(.serialized) struct HeavyWorkClaimTests {
    struct IDRow: Decodable { let id: String }
    struct LeaseRow: Decodable { let holder: String; let lease_until: Int64 }

    /// Holds a heavy job for `userID` on `core` until the returned closure is called.
    static func holdJob(on core: AppCore, userID: String) async throws -> (release: @Sendable () -> Void, done: Task<Void, any Error>) {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (finish, finishContinuation) = AsyncStream<Void>.makeStream()
        let job = Task {
            try await core.heavyWork.exclusive(userID: userID) {
                startedContinuation.yield()
                for await _ in finish { break }
            }
        }
        for await _ in started { break }
        return ({ finishContinuation.yield() }, job)
    }

    @Test func anImportForThePersonWhoseJobRunsOnTheOtherInstanceIsRefused409AndServedAfter() async throws {
        try await TwoInstances.run { a, b in
            try await buildApplication(core: b).test(.router) { client in
                let browser = Browser(client: client)
                try await browser.setUp()
                let api = APIClient(browser: browser, token: try await browser.createToken())
                let userID = try #require(try await b.database.sql.raw("SELECT id FROM users WHERE username = 'aiko'").first(decoding: IDRow.self)?.id)
                let file = Data(#"{"entries":[]}"#.utf8)

                let (release, job) = try await Self.holdJob(on: a, userID: userID)
                // The claim is a row in the shared database, held by instance A.
                let lease = try #require(try await b.database.sql.raw("SELECT holder, lease_until FROM job_leases WHERE name = \(bind: "heavy-work:\(userID)")")
                    .first(decoding: LeaseRow.self))
                #expect(lease.holder == a.instanceID)
                #expect(lease.lease_until >= Int64(Date().timeIntervalSince1970))
                let refused = try await api.call(.post, "/api/v1/diary/import", body: file, contentType: "application/json")
                #expect(refused.status == .conflict, "\(refused.status) \(refused.body)")
                #expect(refused.body.contains("busy"), "\(refused.body)")
                // Instance B's own claim for the same person is refused too, and another person's is not.
                await #expect(throws: RequestError.busy) { try await b.heavyWork.exclusive(userID: userID) {} }
                try await b.heavyWork.exclusive(userID: "someone-else") {}

                release()
                try await job.value
                let served = try await api.call(.post, "/api/v1/diary/import", body: file, contentType: "application/json")
                #expect(served.status != .conflict && served.status.code < 500, "\(served.status) \(served.body)")
            }
        }
    }

    @Test func aClaimLeftByACrashedInstanceExpiresAndALiveOneDoesNot() async throws {
        try await TwoInstances.run { a, _ in
            let now = Int64(Date().timeIntervalSince1970)
            // A live claim of an instance that is still working: refused.
            try await a.database.sql.raw("""
                INSERT INTO job_leases (name, holder, lease_until, heartbeat_at) VALUES ('heavy-work:u-live', 'other-instance', \(bind: now + 60), \(bind: now))
                """).run()
            await #expect(throws: RequestError.busy) { try await a.heavyWork.exclusive(userID: "u-live") {} }
            // One whose holder stopped renewing it (crashed) a while ago: taken over, and freed afterwards.
            try await a.database.sql.raw("""
                INSERT INTO job_leases (name, holder, lease_until, heartbeat_at) VALUES ('heavy-work:u-dead', 'crashed-instance', \(bind: now - 5), \(bind: now - 65))
                """).run()
            let ran = try await a.heavyWork.exclusive(userID: "u-dead") { true }
            #expect(ran)
            let after = try #require(try await a.database.sql.raw("SELECT holder, lease_until FROM job_leases WHERE name = 'heavy-work:u-dead'")
                .first(decoding: LeaseRow.self))
            #expect(after.holder == a.instanceID && after.lease_until < now + 1)
        }
    }
}
