import Foundation
import SQLKit
import Synchronization

/// The map tile server an administrator chose, kept in the `settings` table. Until one is chosen there
/// is none: maps draw the bundled world outline and the person's own points, and the browser asks no
/// other host for anything (a tile server learns which places a person looks at, and from where).
/// `HIBI_MAP_TILE_URL` gives the value used while the database holds no choice.
public final class MapTileServer: Sendable {
    static let settingKey = "map_tile_url"
    /// How long an answer is reused before the database is asked again: the security headers of every
    /// request read it, and another instance sharing the database sees a change within this time.
    static let cacheSeconds: TimeInterval = 30

    let database: Database
    let fallback: String
    private let cache = Mutex<(url: String, readAt: Date)?>(nil)

    init(database: Database, fallback: String) {
        self.database = database
        self.fallback = fallback
    }

    /// The template maps use now; "" means no tiles.
    public func current(now: Date) async -> String {
        if let cached = cache.withLock({ $0 }), now.timeIntervalSince(cached.readAt) < Self.cacheSeconds, now >= cached.readAt {
            return cached.url
        }
        let stored: String?
        do {
            stored = try await SettingRow.value(Self.settingKey, on: database.sql)
        } catch {
            // A failed read keeps what was known (or no tiles): it must never turn tiles on.
            return cache.withLock { $0?.url } ?? ""
        }
        let url = stored ?? fallback
        cache.withLock { $0 = (url, now) }
        return url
    }

    /// Stores the administrator's choice ("" turns tiles off); throws `MapTileError.invalid` for anything
    /// that is not a tile template.
    public func choose(_ raw: String, now: Date) async throws -> String {
        guard let url = Self.template(raw) else { throw MapTileError.invalid }
        try await SettingRow.write(Self.settingKey, url, on: database.sql)
        cache.withLock { $0 = (url, now) }
        return url
    }

    /// A tile template: "" (none), an http(s) URL or a path on this host, naming {z}, {x} and {y}, with
    /// no characters that could break out of an attribute or a CSP source.
    static func template(_ raw: String) -> String? {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if value.isEmpty || value.lowercased() == "none" { return "" }
        guard value.count <= 500 else { return nil }
        let lower = value.lowercased()
        let isAbsolute = lower.hasPrefix("https://") || lower.hasPrefix("http://")
        guard isAbsolute || (value.hasPrefix("/") && !value.hasPrefix("//")) else { return nil }
        guard ["{z}", "{x}", "{y}"].allSatisfy(value.contains) else { return nil }
        guard !value.contains(where: { $0.isWhitespace || "\"'<>;,\\`".contains($0) }) else { return nil }
        if isAbsolute {
            let host = value.components(separatedBy: "://")[1].split(separator: "/").first.map(String.init) ?? ""
            guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:{}".contains($0) }) else { return nil }
        }
        return value
    }

    /// The CSP image source the template needs ("" for none or a path on this host, already 'self').
    static func imageSource(_ template: String) -> String {
        let parts = template.components(separatedBy: "://")
        guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()),
              let host = parts[1].split(separator: "/").first.map(String.init), !host.isEmpty,
              host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:{}".contains($0) }) else { return "" }
        // "{s}" subdomains allow the host family ("https://*.tile.example.org").
        return "\(parts[0].lowercased())://\(host.replacingOccurrences(of: "{s}", with: "*"))"
    }

    /// The host a template sends requests to, for the admin page's sentence ("" for this server).
    public static func host(_ template: String) -> String {
        let source = imageSource(template)
        return source.components(separatedBy: "://").last ?? ""
    }
}

public enum MapTileError: Error, Equatable {
    case invalid
}
