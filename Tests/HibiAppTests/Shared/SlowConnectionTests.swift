import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing
@testable import HibiApp

/// Issue 28, item 8: a body sent one byte at a time outlived the idle timeout (it restarts at every byte),
/// and one address could hold hundreds of connections. Performed with raw sockets against the live server.
@Suite(.serialized) struct SlowConnectionTests {
    /// A raw TCP connection to the test server: what it wrote, and everything the server sent until it closed.
    final class RawConnection: Sendable {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        init(port: Int) async throws {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "localhost", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
        }

        func send(_ text: String) async throws {
            try await channel.channel.writeAndFlush(ByteBuffer(string: text))
        }

        /// Everything the server sends until it closes the connection, or nil if it is still open after `seconds`.
        func readUntilClosed(within seconds: Double) async throws -> String? {
            let channel = self.channel
            return try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    var received = ""
                    do {
                        for try await chunk in channel.inbound { received += String(buffer: chunk) }
                    } catch {
                        // A reset after the answer is still a close.
                    }
                    return received
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        /// The first bytes the server sends, "" if it closes without a word, or nil if nothing comes within `seconds`.
        func firstBytes(within seconds: Double) async throws -> String? {
            let channel = self.channel
            return try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        for try await chunk in channel.inbound { return String(buffer: chunk) }
                    } catch {
                        // A reset is a close.
                    }
                    return ""
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        func close() async {
            channel.outbound.finish()
            try? await channel.channel.close()
        }

        // NIOAsyncChannel's writer must be finished before it goes (a debug build stops otherwise).
        deinit {
            channel.outbound.finish()
            channel.channel.close(promise: nil)
        }
    }

    static func config(perClient: Int = 64, trustProxy: Bool = false, grace: Duration = .seconds(1)) async throws -> AppConfig {
        var config = try await ThrottleTests.fileConfig()
        if !trustProxy { config.trustedProxies = [] }
        config.connectionLimits.perClient = perClient
        config.connectionLimits.bodyGrace = grace
        config.connectionLimits.minimumBodyBytesPerSecond = 100
        return config
    }

    static func live(_ config: AppConfig, _ body: @escaping @Sendable (any TestClientProtocol, Int) async throws -> Void) async throws {
        let core = try await AppCore.open(config, logger: TestApp.quietLogger)
        let app = await buildApplication(core: core)
        try await app.test(.live) { client in
            try await body(client, try #require(client.port))
        }
        await core.database.shutdown()
    }

    @Test func aLoginBodyTrickledByteByByteIsAnswered408AndClosed() async throws {
        try await Self.live(try await Self.config()) { client, port in
            let slow = try await RawConnection(port: port)
            try await slow.send("POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                                + "Content-Length: 200\r\n\r\nu")
            // One byte every 300 ms: well inside the 30 s idle timeout, far below 100 bytes a second.
            let drip = Task {
                for _ in 0..<100 {
                    try await Task.sleep(for: .milliseconds(300))
                    try await slow.send("a")
                }
            }
            // The grace is 1 s and 2 bytes earn 20 ms more: closed long before the 30 s the drip would take.
            let answer = try await slow.readUntilClosed(within: 10)
            drip.cancel()
            let text = try #require(answer, "the trickled body still held its connection after 10 s")
            #expect(text.hasPrefix("HTTP/1.1 408"), "\(text.prefix(200))")
            await slow.close()
            // The server is alive and serves the next person.
            let next = try await client.executeRequest(uri: "/healthz", method: .get, headers: [:], body: nil)
            #expect(next.status == .ok)
        }
    }

    @Test func aBodyThatArrivesInTimeIsServedEvenWhenSentInPieces() async throws {
        try await Self.live(try await Self.config()) { _, port in
            let connection = try await RawConnection(port: port)
            // 400 bytes over ~1.2 s: slower than at once, faster than the minimum rate after the grace.
            let body = "_csrf=x&username=aiko&password=" + String(repeating: "p", count: 369)
            try await connection.send("POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                                      + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n")
            for piece in stride(from: 0, to: body.utf8.count, by: 100) {
                try await Task.sleep(for: .milliseconds(300))
                try await connection.send(String(Array(body.utf8)[piece..<min(piece + 100, body.utf8.count)].map { Character(UnicodeScalar($0)) }))
            }
            let text = try #require(try await connection.readUntilClosed(within: 10))
            // The sign-in itself is refused (no CSRF cookie), but by the application, not as too slow.
            #expect(!text.hasPrefix("HTTP/1.1 408"), "\(text.prefix(200))")
            #expect(text.hasPrefix("HTTP/1.1 4"), "\(text.prefix(200))")
        }
    }

    @Test func connectionsBeyondTheCapFromOneAddressAreClosedAndTheNextRequestIsServed() async throws {
        try await Self.live(try await Self.config(perClient: 3)) { client, port in
            // Six connections from one address, each asking something and staying open afterwards (keep-alive).
            // The test client may hold a connection of its own from this address, so the cap leaves 2 or 3
            // answered; what matters is that no more than 3 are and the rest are closed without a word.
            var answered: [RawConnection] = [], refused = 0
            for _ in 0..<6 {
                guard let connection = try? await RawConnection(port: port) else { refused += 1; continue }
                // Ask on each in turn, so the earlier ones are counted before the next one arrives.
                let sent = (try? await connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")) != nil
                let first = sent ? try await connection.firstBytes(within: 5) : ""
                if let first, first.hasPrefix("HTTP/1.1 200") {
                    answered.append(connection)
                } else {
                    #expect(first?.isEmpty == true, "a connection over the cap was answered or left open: \(first?.prefix(200) ?? "open")")
                    refused += 1
                    await connection.close()
                }
            }
            #expect((1...3).contains(answered.count), "\(answered.count) connections from one address were served with a cap of 3")
            #expect(refused >= 3)
            // Leaving gives the place back: a normal request is served.
            for connection in answered { await connection.close() }
            try await Task.sleep(for: .milliseconds(200))
            let next = try await client.executeRequest(uri: "/healthz", method: .get, headers: [:], body: nil)
            #expect(next.status == .ok)
        }
    }

    @Test func behindATrustedProxyTheCapCountsEachClientsRequestsInFlight() async throws {
        try await Self.live(try await Self.config(perClient: 2, trustProxy: true, grace: .seconds(30))) { client, port in
            // Two unfinished bodies from 198.51.100.9 through the proxy (loopback), each on its own connection.
            var held: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try await RawConnection(port: port)
                try await connection.send("POST /login HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 198.51.100.9\r\n"
                                          + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\r\n")
                held.append(connection)
            }
            try await Task.sleep(for: .milliseconds(200))
            let third = try await RawConnection(port: port)
            try await third.send("GET /login HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 198.51.100.9\r\n\r\n")
            let refused = try #require(try await third.readUntilClosed(within: 5))
            #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused.prefix(200))")
            // Another client through the same proxy is served meanwhile.
            let other = try await client.executeRequest(uri: "/healthz", method: .get, headers: [.xForwardedFor: "198.51.100.10"], body: nil)
            #expect(other.status == .ok)
            for connection in held { await connection.close() }
            try await Task.sleep(for: .milliseconds(200))
            let again = try await client.executeRequest(uri: "/healthz", method: .get, headers: [.xForwardedFor: "198.51.100.9"], body: nil)
            #expect(again.status == .ok)
        }
    }
}
