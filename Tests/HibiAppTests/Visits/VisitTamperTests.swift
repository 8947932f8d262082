import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import HibiApp

/// Someone with access to the database changes, deletes or swaps rows; verify must name the record.
@Suite(.serialized) struct VisitTamperTests {
    static func withThreeVisits(_ body: @escaping @Sendable (APIClient, any SQLDatabase, [VisitResponse]) async throws -> Void) async throws {
        try await VisitTestApp.run { browser, core in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            var visits: [VisitResponse] = []
            for name in ["Alpha", "Bravo", "Charlie"] { visits.append(try await VisitTestApp.create(api, VisitTestApp.visit(name))) }
            #expect(try await VisitTestApp.verify(api).intact)
            try await body(api, core.database.sql, visits)
        }
    }

    @Test func aVisitChangedInTheDatabaseIsNamed() async throws {
        try await Self.withThreeVisits { api, sql, visits in
            try await sql.raw("UPDATE visits SET latitude = 1.5 WHERE id = \(bind: visits[1].id)").run()
            let report = try await VisitTestApp.verify(api)
            #expect(!report.intact)
            #expect(report.problem?.seq == 2)
            #expect(report.problem?.visitId == visits[1].id)
            #expect(report.problem?.reason == .visitChanged)
            #expect(report.message.contains("Record #2 (visit \(visits[1].id))"))
        }
    }

    @Test func aRecordChangedInTheDatabaseIsNamed() async throws {
        try await Self.withThreeVisits { api, sql, visits in
            let row = try #require(try await sql.raw("SELECT body FROM visit_chain WHERE seq = 2").first())
            let body = try row.decode(column: "body", as: String.self).replacingOccurrences(of: "Bravo", with: "Bravo!")
            try await sql.raw("UPDATE visit_chain SET body = \(bind: body) WHERE seq = 2").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem == ChainProblem(seq: 2, visitId: visits[1].id, reason: .changed))
        }
    }

    @Test func aRecordWithItsHashRecomputedFailsItsSignature() async throws {
        try await Self.withThreeVisits { api, sql, visits in
            let row = try #require(try await sql.raw("SELECT body FROM visit_chain WHERE seq = 1").first())
            let body = try row.decode(column: "body", as: String.self).replacingOccurrences(of: "Alpha", with: "Omega")
            try await sql.raw("UPDATE visit_chain SET body = \(bind: body), hash = \(bind: VisitChain.sha256Hex(body)) WHERE seq = 1").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem?.seq == 1)
            #expect(report.problem?.reason == .badSignature)
        }
    }

    @Test func aDeletedRecordIsNamed() async throws {
        try await Self.withThreeVisits { api, sql, _ in
            try await sql.raw("DELETE FROM visit_chain WHERE seq = 2").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem == ChainProblem(seq: 2, visitId: nil, reason: .removed))
            #expect(report.message.contains("Record #2 was removed"))
        }
    }

    @Test func theLastRecordDeletedIsStillNoticed() async throws {
        try await Self.withThreeVisits { api, sql, _ in
            try await sql.raw("DELETE FROM visit_chain WHERE seq = 3").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem?.seq == 3)
            #expect(report.problem?.reason == .removed)
        }
    }

    @Test func twoSwappedRecordsAreNamed() async throws {
        try await Self.withThreeVisits { api, sql, visits in
            try await sql.raw("UPDATE visit_chain SET seq = -1 WHERE seq = 1").run()
            try await sql.raw("UPDATE visit_chain SET seq = 1 WHERE seq = 3").run()
            try await sql.raw("UPDATE visit_chain SET seq = 3 WHERE seq = -1").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem == ChainProblem(seq: 1, visitId: visits[2].id, reason: .reordered))
            #expect(report.message.contains("out of order"))
        }
    }

    @Test func aRewrittenHistoryIsNotSignedOntoByTheNextChange() async throws {
        // Someone rewrites record 3 and its hash and moves the stored head to match. Were the next change
        // signed on top, verify (which checks the head's signature) would vouch for their version.
        try await Self.withThreeVisits { api, sql, visits in
            let row = try #require(try await sql.raw("SELECT body FROM visit_chain WHERE seq = 3").first())
            let body = try row.decode(column: "body", as: String.self).replacingOccurrences(of: "Charlie", with: "Delta")
            let hash = VisitChain.sha256Hex(body)
            try await sql.raw("UPDATE visit_chain SET body = \(bind: body), hash = \(bind: hash) WHERE seq = 3").run()
            try await sql.raw("UPDATE visit_chain_heads SET hash = \(bind: hash)").run()
            let refused = try await api.call(.post, "/api/v1/visits", json: VisitTestApp.visit("Echo"))
            #expect(refused.status == .conflict)
            #expect(refused.body.contains("visit_log_tampered"))
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM visit_chain").first()?.decode(column: "n", as: Int.self) == 3)
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem == ChainProblem(seq: 3, visitId: visits[2].id, reason: .badSignature))
        }
    }

    @Test func aVisitRowDeletedBehindHibisBackIsNamed() async throws {
        try await Self.withThreeVisits { api, sql, visits in
            try await sql.raw("DELETE FROM visits WHERE id = \(bind: visits[0].id)").run()
            let report = try await VisitTestApp.verify(api)
            #expect(report.problem == ChainProblem(seq: 1, visitId: visits[0].id, reason: .removed))
        }
    }
}

/// A tiny HTTP listener stands in for the user's webhook receiver.
@Suite(.serialized) struct VisitWebhookTests {
    actor Inbox {
        var bodies: [Data] = []
        func add(_ data: Data) { bodies.append(data) }
    }

    @Test func theChainHeadIsPostedToTheUsersWebhook() async throws {
        let inbox = Inbox()
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            var request = request
            await inbox.add(Data(buffer: try await request.collectBody(upTo: 64 * 1024)))
            return .ok
        }
        let listener = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await listener.test(.live) { hook in
            let port = try #require(hook.port)
            // The receiver runs on loopback, which webhooks may reach only because the administrator allowed it.
            try await VisitTestApp.run(allowWebhooksTo: [IPRange("127.0.0.1")].compactMap { $0 }) { browser, _ in
                try await browser.setUp()
                let api = APIClient(browser: browser, token: try await browser.createToken())
                let set = try await api.call(.put, "/api/v1/visits/webhook", json: #"{"url":"http://127.0.0.1:\#(port)/hook"}"#)
                #expect(set.status == .ok)
                #expect(try await api.call(.put, "/api/v1/visits/webhook", json: #"{"url":"ftp://example.org"}"#).status == .badRequest)
                _ = try await VisitTestApp.create(api)
                let head = try #require(try await VisitTestApp.verify(api).head)
                // Sent in the background after saving; wait for it rather than for a fixed time.
                var received: [ChainHeadWebhook.Payload] = []
                for _ in 0..<200 {
                    received = try await inbox.bodies.map { try JSONCoding.decoder.decode(ChainHeadWebhook.Payload.self, from: $0) }
                    if received.contains(where: { $0.hash == head }) { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(received.contains { $0.hash == head && $0.seq == 1 })
                let sent = try APIClient.decode(WebhookSettings.self, try await api.call(.post, "/api/v1/visits/webhook/send"))
                #expect(sent.lastStatus == "delivered")
            }
        }
    }

    @Test func recordsCutOffTheEndShowAgainstTheHeadTheWebhookReceived() async throws {
        let router = Router()
        router.post("/hook") { _, _ -> HTTPResponse.Status in .ok }
        let listener = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await listener.test(.live) { hook in
            let port = try #require(hook.port)
            try await VisitTestApp.run(allowWebhooksTo: [IPRange("127.0.0.1")].compactMap { $0 }) { browser, core in
                try await browser.setUp()
                let api = APIClient(browser: browser, token: try await browser.createToken())
                #expect(try await api.call(.put, "/api/v1/visits/webhook", json: #"{"url":"http://127.0.0.1:\#(port)/hook"}"#).status == .ok)
                for name in ["Alpha", "Bravo", "Charlie"] { _ = try await VisitTestApp.create(api, VisitTestApp.visit(name)) }
                let sent = try APIClient.decode(WebhookSettings.self, try await api.call(.post, "/api/v1/visits/webhook/send"))
                #expect(sent.lastStatus == "delivered")
                #expect(try await VisitTestApp.verify(api).intact)
                // Someone with the database file, no key: drop the newest record and move the head back to #2.
                let sql = core.database.sql
                let third = try #require(try await sql.raw("SELECT visit_id FROM visit_chain WHERE seq = 3").first())
                try await sql.raw("DELETE FROM visits WHERE id = \(bind: try third.decode(column: "visit_id", as: String.self))").run()
                try await sql.raw("DELETE FROM visit_chain WHERE seq = 3").run()
                let second = try #require(try await sql.raw("SELECT hash FROM visit_chain WHERE seq = 2").first())
                try await sql.raw("UPDATE visit_chain_heads SET seq = 2, hash = \(bind: try second.decode(column: "hash", as: String.self))").run()
                let report = try await VisitTestApp.verify(api)
                #expect(!report.intact)
                #expect(report.problem?.reason == .truncated)
                #expect(report.problem?.seq == 3)
                #expect(report.message.contains("no longer in the log"))
            }
        }
    }

    @Test func aDeadWebhookIsReportedNotThrown() async {
        let outbound = OutboundHTTP(allowedNetworks: [IPRange("127.0.0.1")].compactMap { $0 }, timeout: .seconds(2))
        let status = await ChainHeadWebhook(outbound: outbound).send(url: "http://127.0.0.1:1/nothing-here",
                                                                     payload: .init(user: "u", seq: 1, hash: "h", publicKey: "k", sentAt: Date()))
        #expect(status == .failed)
    }
}
