import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import HibiApp

/// Sign-in throttles that hold under parallel guessing and cannot be turned against the account's owner.
@Suite struct ThrottleTests {
    static func fileConfig() async throws -> AppConfig {
        // A database file as in production: in-memory SQLite's shared cache refuses parallel writers at once.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hibi-locks-\(UUID().uuidString)").path
        var config = try await TestApp.config(dataDirectory: directory,
                                              database: TestApp.postgresURL == nil ? .sqliteFile(path: directory + "/hibi.sqlite") : nil)
        config.trustedProxies = [IPRange("127.0.0.1"), IPRange("::1")].compactMap { $0 }
        return config
    }

    static func signIn(_ client: any TestClientProtocol, csrf: String, cookie: String, password: String, from address: String? = nil) async throws -> HTTPResponse.Status {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: cookie]
        if let address { headers[.xForwardedFor] = address }
        let body = "_csrf=\(csrf)&username=aiko&password=\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        return try await client.executeRequest(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: body)).status
    }

    @Test func fortyParallelWrongPasswordsEvaluateAtMostTheAllowanceAndNoneFails() async throws {
        try await TestApp.run(config: try await Self.fileConfig()) { browser in
            try await browser.setUp()
            try await browser.signOut()
            try await browser.get("/login")
            let csrf = try #require(browser.csrf)
            let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<40 { group.addTask { try await Self.signIn(browser.client, csrf: csrf, cookie: cookie, password: "wrong guess") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .unauthorized || $0 == .tooManyRequests }, "\(statuses)")
            // Four wrong answers at most; the fifth evaluated guess locks, everything after is refused unevaluated.
            #expect(statuses.count { $0 == .unauthorized } <= LoginThrottlePolicy.standard.lockAfter - 1)
            #expect(statuses.count { $0 == .tooManyRequests } >= 40 - LoginThrottlePolicy.standard.lockAfter)
            #expect(try await Self.signIn(browser.client, csrf: csrf, cookie: cookie, password: Browser.password) == .tooManyRequests)
        }
    }

    @Test func guessesFromOneAddressNeverLockTheOwnerOutElsewhere() async throws {
        try await AnonymousWorkTests.withSignedOutBrowser { _, client, csrf, cookie in
            for _ in 1...6 { _ = try await Self.signIn(client, csrf: csrf, cookie: cookie, password: "wrong guess", from: "198.51.100.7") }
            #expect(try await Self.signIn(client, csrf: csrf, cookie: cookie, password: Browser.password, from: "198.51.100.7") == .tooManyRequests)
            // The owner, at home: another address behind the same proxy.
            #expect(try await Self.signIn(client, csrf: csrf, cookie: cookie, password: Browser.password, from: "203.0.113.20") == .found)
            // A client that sends the header itself without a trusted proxy in between is not believed:
            // here the header is believed only because the test's peer (loopback) is configured as the proxy.
        }
    }
}

struct AddressTests {
    @Test func rangesAndInternalAddresses() throws {
        #expect(try #require(IPRange("10.0.0.0/8")).contains(try #require(IPAddress("10.255.1.2"))))
        #expect(!(try #require(IPRange("10.0.0.0/8")).contains(try #require(IPAddress("11.0.0.1")))))
        #expect(try #require(IPRange("fd00::/8")).contains(try #require(IPAddress("fd12::1"))))
        #expect(IPRange("10.0.0.0/33") == nil && IPRange("nonsense") == nil)
        for inside in ["127.0.0.1", "::1", "169.254.169.254", "10.1.2.3", "172.16.5.5", "192.168.1.1", "fc00::1", "fe80::1%eth0",
                         "::ffff:127.0.0.1", "0.0.0.0", "100.64.0.1", "224.0.0.1", "[::1]"] {
            #expect(IPAddress(inside)?.isInternal == true, "\(inside)")
        }
        // Issue 28, item 10: an internal IPv4 address inside IPv6 (IPv4-compatible ::/96, NAT64, 6to4) is internal.
        for embedded in ["::7f00:1", "::127.0.0.1", "::a9fe:a9fe", "::a00:1", "64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "64:ff9b:1::a9fe:a9fe",
                         "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:101::5"] {
            #expect(IPAddress(embedded)?.isInternal == true, "\(embedded)")
        }
        #expect(IPAddress("::7f00:1")?.embeddedIPv4?.description == "127.0.0.1")
        #expect(IPAddress("2002:a9fe:a9fe::1")?.embeddedIPv4?.description == "169.254.169.254")
        // 6to4 of a public address stays public.
        #expect(IPAddress("2002:5db8:d822::1")?.isInternal == false)
        for external in ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"] {
            #expect(IPAddress(external)?.isInternal == false, "\(external)")
        }
    }

    @Test func forwardedHeadersAreBelievedOnlyFromTrustedProxies() throws {
        let trusted = [try #require(IPRange("10.0.0.0/8"))]
        #expect(ClientAddress.resolve(peer: "198.51.100.1", forwardedFor: "203.0.113.9", forwarded: nil, trusted: trusted) == "198.51.100.1")
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: "203.0.113.9", forwarded: nil, trusted: trusted) == "203.0.113.9")
        // A client's own spoofed entry sits to the left of what the proxy appended: the right-most untrusted hop counts.
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: "1.2.3.4, 203.0.113.9", forwarded: nil, trusted: trusted) == "203.0.113.9")
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: "203.0.113.9, 10.0.0.3", forwarded: nil, trusted: trusted) == "203.0.113.9")
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: nil, forwarded: #"for="[2001:db8::1]:4711";proto=https"#, trusted: trusted)
                == IPAddress("2001:db8::1")?.description)
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: "not-an-address", forwarded: nil, trusted: trusted) == "10.0.0.2")
        #expect(ClientAddress.resolve(peer: "10.0.0.2", forwardedFor: "203.0.113.9", forwarded: nil, trusted: []) == "10.0.0.2")
    }
}
