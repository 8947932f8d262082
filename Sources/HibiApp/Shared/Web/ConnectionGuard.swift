import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// What one client may hold of the server's connections (issue 28 item 8). The idle timeout alone
/// restarts at every byte, so a body sent one byte every few seconds, or a few hundred idle sockets
/// from one address, would hold the server's connections as long as the client likes.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections one client address may hold open at once (`HIBI_MAX_CONNECTIONS_PER_CLIENT`). Behind a
    /// trusted proxy, which pools connections for many clients, it counts the client's requests in flight.
    public var perClient: Int = 64
    /// Time a request body may take before its rate counts (`HIBI_BODY_GRACE_SECONDS`).
    public var bodyGrace: Duration = .seconds(10)
    /// After the grace period each this many bytes buy one more second (`HIBI_MIN_BODY_BYTES_PER_SECOND`),
    /// as Apache's mod_reqtimeout MinRate does; a body slower than that is answered 408 and closed.
    public var minimumBodyBytesPerSecond: Int = 500

    public init() {}

    /// How often a body's progress is looked at: often enough to close a slow body soon after its time.
    var checkInterval: Duration { min(.seconds(1), bodyGrace / 4) }
}

/// Open connections (or proxied requests) per client address, shared by every connection of one server.
final class ConnectionCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Counts one more for `address`, or answers false (and counts nothing) when it already holds the limit.
    func acquire(_ address: String) -> Bool {
        counts.withLock { counts in
            let held = counts[address, default: 0]
            guard held < limit else { return false }
            counts[address] = held + 1
            return true
        }
    }

    func release(_ address: String) {
        counts.withLock { counts in
            guard let held = counts[address] else { return }
            counts[address] = held > 1 ? held - 1 : nil
        }
    }

    func held(_ address: String) -> Int { counts.withLock { $0[address, default: 0] } }
}

/// One per connection, between the HTTP decoder and Hummingbird's connection handler: refuses a
/// connection beyond the per-address limit and ends a request whose body arrives too slowly.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let counter: ConnectionCounter
    private let trustedProxies: [IPRange]

    /// The address this connection counts against for its whole life (a direct client).
    private var connectionKey: String?
    /// Behind a trusted proxy: the client address of the request in flight, counted until its answer ends.
    private var requestKey: String?
    private var proxied = false
    private var refused = false

    // The body being read: bytes so far, and time spent waiting on the client for more. Time the
    // application was not asking for data (a slow disk behind an upload) is not the client's fault.
    private var readingBody = false
    private var bodyBytes = 0
    private var waited: Duration = .zero
    private var waitingSince: ContinuousClock.Instant?
    private var responseStarted = false
    private var check: Scheduled<Void>?

    init(limits: ConnectionLimits, counter: ConnectionCounter, trustedProxies: [IPRange]) {
        self.limits = limits
        self.counter = counter
        self.trustedProxies = trustedProxies
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // An accepted connection is active before its pipeline is built.
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if connectionKey == nil, !proxied, !refused { admit(context: context) }
        context.fireChannelActive()
    }

    private func admit(context: ChannelHandlerContext) {
        let peer = context.channel.remoteAddress?.ipAddress ?? "local"
        if let address = IPAddress(peer), trustedProxies.contains(where: { $0.contains(address) }) {
            proxied = true
            return
        }
        if counter.acquire(peer) {
            connectionKey = peer
        } else {
            // Closed before a byte is read: the cheapest refusal there is.
            refused = true
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        if let connectionKey { counter.release(connectionKey) }
        if let requestKey { counter.release(requestKey) }
        connectionKey = nil
        requestKey = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        if let since = waitingSince {
            waited += ContinuousClock.now - since
            waitingSince = nil
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if proxied, !admitProxied(head, context: context) { return }
            readingBody = true
            bodyBytes = 0
            waited = .zero
            responseStarted = false
            scheduleCheck(context: context)
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
        case .end:
            readingBody = false
            check?.cancel()
            check = nil
        }
        context.fireChannelRead(data)
    }

    /// Behind a trusted proxy the client is known only from the request head; one beyond the limit is
    /// answered 429 and its connection closed (the proxy opens another for the next client).
    private func admitProxied(_ head: HTTPRequest, context: ChannelHandlerContext) -> Bool {
        let peer = context.channel.remoteAddress?.ipAddress ?? "local"
        let client = ClientAddress.resolve(peer: peer, forwardedFor: head.headerFields[.xForwardedFor],
                                           forwarded: head.headerFields[.forwarded], trusted: trustedProxies)
        if let requestKey { counter.release(requestKey) }
        requestKey = nil
        if counter.acquire(client) {
            requestKey = client
            return true
        }
        refused = true
        answerAndClose(status: .tooManyRequests, message: "Too many connections from one address", context: context)
        return false
    }

    func read(context: ChannelHandlerContext) {
        // A read passes here only when the application wants more (NIOAsyncChannel holds it back otherwise).
        if readingBody, waitingSince == nil { waitingSince = .now }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: responseStarted = true
        case .body: break
        case .end:
            if let requestKey, !readingBody {
                counter.release(requestKey)
                self.requestKey = nil
            }
        }
        context.write(data, promise: promise)
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        check?.cancel()
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: TimeAmount(limits.checkInterval)) {
            self.check = nil
            self.checkBody(context: context)
        }
    }

    private func checkBody(context: ChannelHandlerContext) {
        guard readingBody, !refused else { return }
        let now = ContinuousClock.now
        let waitedNow = waited + (waitingSince.map { now - $0 } ?? .zero)
        // mod_reqtimeout's rule: the grace period, then one second more per minimum-rate's worth of bytes.
        let rate = max(1, limits.minimumBodyBytesPerSecond)
        let earned = Duration.seconds(bodyBytes / rate) + Duration.milliseconds((bodyBytes % rate) * 1000 / rate)
        if waitedNow > limits.bodyGrace + earned {
            refused = true
            readingBody = false
            if responseStarted {
                context.close(promise: nil)
            } else {
                answerAndClose(status: .requestTimeout, message: "Request body too slow", context: context)
            }
            return
        }
        scheduleCheck(context: context)
    }

    private func answerAndClose(status: HTTPResponse.Status, message: String, context: ChannelHandlerContext) {
        let body = ByteBuffer(string: message + "\n")
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: "text/plain; charset=utf-8", .contentLength: "\(body.readableBytes)", .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(promise: nil)
    }
}

extension ConnectionLimits {
    static func load(environment: [String: String]) throws(ConfigError) -> ConnectionLimits {
        var limits = ConnectionLimits()
        func number(_ name: String, _ range: ClosedRange<Int>, _ what: String) throws(ConfigError) -> Int? {
            guard let raw = environment[name], !raw.isEmpty else { return nil }
            guard let value = Int(raw), range.contains(value) else {
                throw ConfigError(setting: name, reason: "\"\(raw)\" is not \(what) (\(range.lowerBound)-\(range.upperBound))")
            }
            return value
        }
        if let value = try number("HIBI_MAX_CONNECTIONS_PER_CLIENT", 1...100_000, "a number of connections") { limits.perClient = value }
        if let value = try number("HIBI_BODY_GRACE_SECONDS", 1...3600, "a number of seconds") { limits.bodyGrace = .seconds(value) }
        if let value = try number("HIBI_MIN_BODY_BYTES_PER_SECOND", 1...100_000_000, "a number of bytes per second") {
            limits.minimumBodyBytesPerSecond = value
        }
        return limits
    }
}
