import Foundation

/// A number as `JSONSerialization` hands it out: `true` and `false` are not numbers, even where Foundation
/// bridges them to NSNumber. For the JSON imports that read untyped objects (Health Auto Export, GeoJSON, location
/// histories, OwnTracks).
public enum JSONNumber {
    public static func read(_ value: Any?) -> Double? {
        guard let value else { return nil }
        if value is Bool, !(value is NSNumber && String(describing: type(of: value)).contains("Number")) { return nil }
        if let number = value as? NSNumber {
            let objCType = String(cString: number.objCType)
            return objCType == "c" || objCType == "B" ? nil : number.doubleValue
        }
        if let double = value as? Double { return double }
        if let int = value as? Int { return Double(int) }
        return nil
    }
}
