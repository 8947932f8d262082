import Foundation
import Hummingbird

/// What the health pages and API read from a request the same way.
enum HealthRequest {
    static func trendQuery(_ request: Request) throws -> (HealthDataType, TrendRange) {
        let q = request.uri.formQuery
        let typeName = q.get("type") ?? HealthDataType.steps.rawValue
        guard let type = HealthDataType(rawValue: typeName) else { throw HealthError.unknownType(typeName) }
        let rangeName = q.get("range") ?? TrendRange.month.rawValue
        guard let range = TrendRange(rawValue: rangeName) else {
            throw HealthError.invalidField("range", Text(en: "week, month or year", ja: "week、month、year のいずれか"))
        }
        return (type, range)
    }
}
