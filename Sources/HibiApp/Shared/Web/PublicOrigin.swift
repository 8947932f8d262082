import Foundation

/// The address a phone reaches this server at, for pages that show a URL to type into another app:
/// HIBI_PUBLIC_URL when set, else the Host the browser used (http), else nothing (the path alone).
public enum PublicOrigin {
    public static func of(configured: URL?, host: String?) -> String {
        if let configured, let scheme = configured.scheme, configured.host != nil {
            var text = configured.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return scheme == "http" || scheme == "https" ? text : ""
        }
        // A Host header is the browser's own; only a host name, an address and a port are shown.
        guard let host, !host.isEmpty, host.count <= 255,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }) else { return "" }
        return "http://" + host
    }
}
