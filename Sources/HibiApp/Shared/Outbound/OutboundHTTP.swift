import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The one way Hibi sends a request out (webhooks of visits and reminders). A URL a user typed must
/// not turn the server into a probe of its own network: the host is resolved first, and if any of
/// its addresses is loopback, private, link-local (cloud metadata), unique-local or multicast the
/// request is not sent, unless the administrator allowed that range (`HIBI_WEBHOOK_ALLOW_NETWORKS`).
/// The connection then goes to the address that was checked (the answer cannot change in between),
/// redirects are not followed, and the caller learns only delivered / failed / refused, never the
/// remote error text (which would make "send now" a port scanner).
public struct OutboundHTTP: Sendable {
    public enum Outcome: String, Sendable, Equatable {
        case delivered
        case failed
        /// The address is on the server's own network (or the URL is not http/https).
        case refused
    }

    public typealias Resolver = @Sendable (_ host: String, _ port: Int) async -> [IPAddress]
    let allowedNetworks: [IPRange]
    let timeout: TimeAmount
    let resolve: Resolver

    public init(allowedNetworks: [IPRange] = [], timeout: TimeAmount = .seconds(10), resolve: @escaping Resolver = OutboundHTTP.systemResolve) {
        self.allowedNetworks = allowedNetworks
        self.timeout = timeout
        self.resolve = resolve
    }

    /// Where a URL would connect, or nil when it must not be used: the same check `post` makes,
    /// for the settings page to say at once why an address is refused.
    public func permittedAddress(for raw: String) async -> IPAddress? {
        guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let addresses: [IPAddress]
        if let literal = IPAddress(host) { addresses = [literal] } else { addresses = await resolve(host, port) }
        guard let first = addresses.first, addresses.allSatisfy(isPermitted) else { return nil }
        return first
    }

    func isPermitted(_ address: IPAddress) -> Bool {
        !address.isInternal || allowedNetworks.contains { $0.contains(address) }
    }

    public func postJSON(_ body: Data, to raw: String) async -> Outcome {
        guard let address = await permittedAddress(for: raw), let url = URL(string: raw), let host = url.host else { return .refused }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: timeout, read: timeout))
        if IPAddress(host) == nil { configuration.dnsOverride = [host: address.description] }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var request = HTTPClientRequest(url: raw)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Hibi")
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: Outcome
        do {
            let response = try await client.execute(request, timeout: timeout)
            outcome = (200..<300).contains(response.status.code) ? .delivered : .failed
        } catch {
            outcome = .failed
        }
        try? await client.shutdown()
        return outcome
    }

    /// getaddrinfo on NIO's blocking pool: a slow resolver must not hold a thread of the cooperative pool.
    public static let systemResolve: Resolver = { host, port in
        (try? await NIOThreadPool.singleton.runIfActive { lookUp(host, port: port) }) ?? []
    }

    static func lookUp(_ host: String, port: Int) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let sockaddr = entry.pointee.ai_addr {
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if entry.pointee.ai_family == AF_INET {
                    sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var address = v4.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    }
                } else if entry.pointee.ai_family == AF_INET6 {
                    sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var address = v6.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    }
                }
                if let parsed = IPAddress(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) { addresses.append(parsed) }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
