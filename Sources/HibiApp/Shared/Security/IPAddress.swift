import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as bytes (IPv4 as 4 bytes, IPv4-mapped IPv6 folded to IPv4), and the
/// ranges Hibi reasons about: trusted proxies, and the addresses webhooks must never reach.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ text: String) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("["), let end = trimmed.firstIndex(of: "]") { trimmed = String(trimmed[trimmed.index(after: trimmed.startIndex)..<end]) }
        if let zone = trimmed.firstIndex(of: "%") { trimmed = String(trimmed[..<zone]) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, trimmed, &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            bytes = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF ? Array(all[12..<16]) : all
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    public var isIPv4: Bool { bytes.count == 4 }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    /// Loopback, private (RFC 1918), link-local (cloud metadata lives there), carrier-grade NAT,
    /// unique-local, multicast, unspecified, broadcast and the documentation/benchmark ranges: nothing a
    /// webhook on the public internet needs, everything an attacker would aim a webhook at.
    /// An IPv6 address that carries an internal IPv4 address is internal too: `http://[::7f00:1]/` (IPv4-compatible,
    /// `::/96`) reached 127.0.0.1 past the guard, as would the NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) and 6to4
    /// (`2002::/16`) forms of any internal address.
    public var isInternal: Bool {
        Self.internalRanges.contains { $0.contains(self) } || embeddedIPv4.map(\.isInternal) == true
    }

    /// The IPv4 address inside an IPv4-compatible, NAT64 or 6to4 address (nil for anything else).
    var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) || Self.nat64.contains(self) || Self.localNat64.contains(self) {
            return IPAddress(bytes: Array(bytes[12..<16]))
        }
        if Self.sixToFour.contains(self) { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    static let nat64 = IPRange("64:ff9b::/96") ?? IPRange(network: IPAddress(bytes: [UInt8](repeating: 0, count: 16)), prefix: 128)
    static let localNat64 = IPRange("64:ff9b:1::/48") ?? nat64
    static let sixToFour = IPRange("2002::/16") ?? nat64

    static let internalRanges: [IPRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
    ].compactMap(IPRange.init)
}

/// An address range in CIDR notation ("10.0.0.0/8", "fd00::/8"; a bare address is a range of one).
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    public let network: IPAddress
    public let prefix: Int

    init(network: IPAddress, prefix: Int) {
        self.network = network
        self.prefix = prefix
    }

    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let bits = address.bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.network = address
        self.prefix = prefix
    }

    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address.bytes, network.bytes) where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if a & mask != b & mask { return false }
            remaining -= take
        }
        return true
    }

    public var description: String { "\(network)/\(prefix)" }
}

/// The address a request came from. Behind a reverse proxy every request arrives from the proxy; its
/// `X-Forwarded-For` or `Forwarded` header is believed only when the peer is one of the trusted
/// proxies (`HIBI_TRUSTED_PROXIES`), reading right to left past the trusted hops, so a client cannot
/// pick its own address by sending the header itself.
public enum ClientAddress {
    public static func resolve(peer: String, forwardedFor: String?, forwarded: String?, trusted: [IPRange]) -> String {
        guard !trusted.isEmpty, let peerAddress = IPAddress(peer), trusted.contains(where: { $0.contains(peerAddress) }) else { return peer }
        var hops: [String] = []
        if let forwarded, !forwarded.isEmpty {
            for element in forwarded.split(separator: ",") {
                for pair in element.split(separator: ";") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    if kv.count == 2, kv[0].lowercased() == "for" {
                        var value = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                        // "for=192.0.2.60:4711" and "for=\"[2001:db8::1]:4711\"": drop the port.
                        if value.hasPrefix("["), let end = value.firstIndex(of: "]") { value = String(value[...end]) }
                        else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") { value = String(value[..<colon]) }
                        hops.append(value)
                    }
                }
            }
        } else if let forwardedFor {
            hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { return peer }
            if !trusted.contains(where: { $0.contains(address) }) { return address.description }
        }
        return hops.first.flatMap(IPAddress.init)?.description ?? peer
    }
}
