import Foundation

/// What makes two visits the same visit when a file is imported again: the second, as stored (not the
/// millisecond a program may or may not write), the position to about a metre (1e-5 degrees,
/// 1.1 m at the equator, less towards the poles), and the name as a person reads it (spaces and
/// letter case aside). A visit whose time is not its own (a GPX waypoint without <time>, labelled
/// approximate) is the same visit at the same place under the same name whenever it was imported.
/// Checked before a visit is signed into the chain: a chain record cannot be taken back.
public enum VisitContentKey {
    public static func key(_ fields: VisitFields) -> String {
        key(seconds: fields.visitedAt.timeIntervalSince1970, latitude: fields.latitude, longitude: fields.longitude, name: fields.name,
            approximate: fields.labels.contains(VisitFormats.approximateTimeLabel))
    }

    public static func key(seconds: Double, latitude: Double, longitude: Double, name: String, approximate: Bool) -> String {
        let time = approximate ? "~" : whole(seconds.rounded(.towardZero), scale: 1)
        return time + "|" + whole(latitude, scale: 1e5) + "|" + whole(longitude, scale: 1e5) + "|" + normalizedName(name)
    }

    /// `value × scale` rounded, as text; a value no Int64 holds (never a validated visit) keeps its own spelling.
    static func whole(_ value: Double, scale: Double) -> String {
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 9e18 else { return "\(value)" }
        return String(Int64(scaled))
    }

    static func normalizedName(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
