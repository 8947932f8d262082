import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import HibiApp

/// Webhooks cannot reach the server's own network, follow no redirects and report no remote errors.
@Suite(.serialized) struct OutboundTests {
    static let forbidden = ["http://127.0.0.1:8080/x", "http://[::1]/x", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/",
                            "http://192.168.1.20:9000/", "http://172.16.0.1/", "http://[fd00::1]/", "http://localhost:8080/", "http://0.0.0.0/",
                            "http://[::ffff:127.0.0.1]/", "http://100.64.1.1/",
                            // Issue 28, item 10: IPv4-compatible, NAT64 and 6to4 forms of loopback and metadata addresses.
                            "http://[::7f00:1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::]/", "http://[2002:a9fe:a9fe::1]/"]

    @Test func everyInternalRangeIsRefusedWhenSavedAndWhenSent() async throws {
        try await VisitTestApp.run { browser, _ in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            for url in Self.forbidden {
                let visits = try await api.call(.put, "/api/v1/visits/webhook", json: #"{"url":"\#(url)"}"#)
                #expect(visits.status == .badRequest, "\(url)")
                #expect(visits.body.contains("webhook_address_refused"), "\(url)")
                let reminder = try await api.call(.post, "/api/v1/health/reminders",
                                                  json: #"{"time":"08:00","weekdays":[1,2,3],"message":"walk","webhookURL":"\#(url)"}"#)
                #expect(reminder.status == .badRequest, "\(url)")
            }
        }
        // A name that resolves to loopback is refused at send time too, whatever was checked before.
        let outbound = OutboundHTTP(resolve: { _, _ in [IPAddress("127.0.0.1")].compactMap { $0 } })
        #expect(await outbound.postJSON(Data("{}".utf8), to: "http://rebinding.example/") == .refused)
        #expect(await OutboundHTTP().postJSON(Data("{}".utf8), to: "file:///etc/passwd") == .refused)
    }

    actor Counter {
        var hits = 0
        func hit() { hits += 1 }
    }

    @Test func redirectsAreNotFollowedAndTheRemoteErrorIsNotShown() async throws {
        let reached = Counter()
        let target = Router()
        target.post("/inside") { _, _ -> HTTPResponse.Status in
            await reached.hit()
            return .ok
        }
        let inside = Application(router: target, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await inside.test(.live) { insideClient in
            let insidePort = try #require(insideClient.port)
            let redirector = Router()
            redirector.post("/hook") { _, _ in
                Response(status: .temporaryRedirect, headers: [.location: "http://127.0.0.1:\(insidePort)/inside"])
            }
            let outside = Application(router: redirector, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await outside.test(.live) { outsideClient in
                let port = try #require(outsideClient.port)
                // Loopback allowed for the first hop only so the test can run a receiver at all.
                let outbound = OutboundHTTP(allowedNetworks: [IPRange("127.0.0.1/32")].compactMap { $0 }, timeout: .seconds(5))
                #expect(await outbound.postJSON(Data("{}".utf8), to: "http://127.0.0.1:\(port)/hook") == .failed)
                #expect(await outbound.postJSON(Data("{}".utf8), to: "http://127.0.0.1:\(insidePort)/inside") == .delivered)
            }
        }
        // Reached once: by the direct post, never through the redirect.
        #expect(await reached.hits == 1)
    }

    @Test func sendNowSaysDeliveredOrFailedInWordsNotTheReceiversText() {
        #expect(VisitStrings.webhookOutcome("delivered").en == "delivered")
        #expect(VisitStrings.webhookOutcome("failed").en.hasPrefix("failed"))
        #expect(VisitStrings.webhookOutcome("refused").en.contains("own network"))
        // A status stored by an older Hibi ("failed: Connection refused (127.0.0.1:22)") is not echoed back.
        #expect(!VisitStrings.webhookOutcome("failed: Connection refused").en.contains("Connection refused"))
    }
}
