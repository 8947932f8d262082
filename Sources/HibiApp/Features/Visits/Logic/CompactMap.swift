import Foundation

/// The visits map's points in a few fixed-width columns: 10,000 visits as objects ({"id", "lat", "lon",
/// "name", "at"}) were 1.26 MB, heavy on a phone. Each column is a string of base-64 digits (URL alphabet),
/// every value the same number of digits, counted from the column's smallest value:
/// - lat/lon in 1e-5 degrees (about 1 m), at in minutes since 1970 (a popup shows the minute);
/// - names once each in `names`, the column holding their index;
/// - ids as their shortest prefix (at least 6 characters) that tells this person's visits apart; the visit
///   page opens a visit from such a prefix, so every visit stays reachable from the map.
public struct CompactMap: Codable, Sendable, Equatable {
    public struct Column: Codable, Sendable, Equatable {
        public var base: Int64
        public var width: Int
        public var digits: String
    }

    public var count: Int
    public var lat: Column
    public var lon: Column
    public var at: Column
    public var name: Column
    public var names: [String]
    /// The ids' prefixes, `idLength` characters each, one after another.
    public var idLength: Int
    public var ids: String

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    static let minimumIDLength = 6

    public static func encode(_ points: [MapPoint]) -> CompactMap {
        // Coordinates are checked on the way in (±90, ±180); rounding to 1e-5 degrees keeps about 1 m.
        let lats = points.map { Int64(saturating: $0.lat * 100_000, rounding: .toNearestOrAwayFromZero) }
        let lons = points.map { Int64(saturating: $0.lon * 100_000, rounding: .toNearestOrAwayFromZero) }
        let minutes = points.map { Int64(saturating: $0.at.timeIntervalSince1970 / 60, rounding: .down) }
        var index: [String: Int64] = [:]
        var names: [String] = []
        let nameIndex = points.map { point -> Int64 in
            if let known = index[point.name] { return known }
            index[point.name] = Int64(names.count)
            names.append(point.name)
            return Int64(names.count - 1)
        }
        let idLength = shortestUniquePrefix(points.map(\.id))
        return CompactMap(count: points.count, lat: column(lats), lon: column(lons), at: column(minutes), name: column(nameIndex),
                          names: names, idLength: idLength, ids: points.map { String($0.id.prefix(idLength)).padding(toLength: idLength, withPad: " ", startingAt: 0) }.joined())
    }

    static func column(_ values: [Int64]) -> Column {
        let base = values.min() ?? 0
        let offsets = values.map { $0 &- base }
        var width = 1
        var limit: Int64 = 64
        let largest = offsets.max() ?? 0
        while largest >= limit, width < 10 { width += 1; limit = limit.multipliedReportingOverflow(by: 64).overflow ? .max : limit * 64 }
        var digits = ""
        digits.reserveCapacity(offsets.count * width)
        for value in offsets {
            var chars = [Character](repeating: "A", count: width)
            var rest = value
            for position in stride(from: width - 1, through: 0, by: -1) {
                chars[position] = alphabet[Int(rest % 64)]
                rest /= 64
            }
            digits.append(contentsOf: chars)
        }
        return Column(base: base, width: width, digits: digits)
    }

    /// The fewest leading characters (at least six) that still tell every id apart.
    static func shortestUniquePrefix(_ ids: [String]) -> Int {
        let longest = ids.map(\.count).max() ?? 0
        var length = min(minimumIDLength, max(longest, 1))
        while length < longest, Set(ids.map { $0.prefix(length) }).count < ids.count { length += 1 }
        return max(length, 1)
    }

    /// The values of a column again (tests and the command line; the browser does the same in visits.js).
    public static func decode(_ column: Column) -> [Int64] {
        var lookup: [Character: Int64] = [:]
        for (value, character) in alphabet.enumerated() { lookup[character] = Int64(value) }
        let characters = Array(column.digits)
        guard column.width > 0 else { return [] }
        return stride(from: 0, to: characters.count, by: column.width).map { start in
            characters[start..<min(start + column.width, characters.count)].reduce(Int64(0)) { $0 &* 64 &+ (lookup[$1] ?? 0) } &+ column.base
        }
    }
}
