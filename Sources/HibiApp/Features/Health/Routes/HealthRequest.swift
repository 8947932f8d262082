import Foundation
import Hummingbird

/// What the health pages and API read from a request the same way.
enum HealthRequest {
    /// `type`, and either `range` (week, month, year, all) or `from` and `to` (YYYY-MM-DD, both ends included).
    static func trendSelection(_ request: Request) throws -> (HealthDataType, TrendSelection) {
        let q = request.uri.formQuery
        let typeName = q.get("type") ?? HealthDataType.steps.rawValue
        guard let type = HealthDataType(rawValue: typeName) else { throw HealthError.unknownType(typeName) }
        let fromText = q.get("from").flatMap { $0.isEmpty ? nil : $0 }, toText = q.get("to").flatMap { $0.isEmpty ? nil : $0 }
        if fromText != nil || toText != nil {
            guard q.get("range").map(\.isEmpty) ?? true else {
                throw HealthError.invalidField("range", Text(en: "give either range or from and to, not both",
                                                             ja: "range か from と to のどちらか一方だけを指定してください"))
            }
            var days: [DayKey] = []
            for (name, text) in [("from", fromText), ("to", toText)] {
                guard let text else {
                    throw HealthError.invalidField(name, Text(en: "give both from and to", ja: "from と to の両方を指定してください"))
                }
                guard let day = DayKey(text) else { throw HealthError.invalidField(name, DayKey.invalidReason) }
                days.append(day)
            }
            guard days[0] <= days[1] else {
                throw HealthError.invalidField("from", Text(en: "must not be after to (\(days[1]))", ja: "to(\(days[1]))より後の日付は指定できません"))
            }
            return (type, .days(days[0], days[1]))
        }
        let rangeName = q.get("range") ?? TrendRange.month.rawValue
        if rangeName == "all" { return (type, .all) }
        guard let range = TrendRange(rawValue: rangeName) else {
            throw HealthError.invalidField("range", Text(en: "week, month, year or all", ja: "week、month、year、all のいずれか"))
        }
        return (type, .range(range))
    }
}
