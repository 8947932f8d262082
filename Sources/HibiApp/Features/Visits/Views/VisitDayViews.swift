import Foundation

/// Visits' part of a day's page (Journal's `/day/:date`): the day's visits in order (and as places on the day's map),
/// a link to check in on an empty day, and the places of the same date in earlier years.
enum VisitDayViews {
    static let visits = Text(en: "Visits", ja: "訪問")
    static let checkIn = Text(en: "Check in", ja: "チェックイン")
    /// Where the visits' section stands among the day's (Journal places the sections by this number; its map is at 500).
    static let order = 600

    static func part(visits: [Visit], day: DayQuery) -> DayPart {
        let l = day.language
        let time = day.timeStyle
        var part = DayPart()
        part.recordLinks = [el("a", .href(VisitPaths.new), .role("button"), .class("secondary")) { checkIn(l) }]
        part.recorded = !visits.isEmpty
        part.fields = ["visits": visits.map(DayVisitResponse.init)]
        part.places = visits.map { DayPlace(latitude: $0.fields.latitude, longitude: $0.fields.longitude, name: $0.fields.name) }
        if !visits.isEmpty {
            part.sections = [DaySection(order: order, el("section", .id("day-visits")) {
                el("h2") { Self.visits(l) }
                el("ol") {
                    for visit in visits {
                        el("li") {
                            visit.fields.visitedAt.formatted(time) + " "
                            el("a", .href(VisitPaths.visit(visit.id))) { visit.fields.name }
                        }
                    }
                }
            })]
        }
        return part
    }

    /// The visits of earlier years on the day's date, each year's places on one line.
    static func memories(_ visits: [Visit], day: DayQuery) -> DayMemories {
        var byDay: [DayKey: [Visit]] = [:]
        for visit in visits {
            let key = DayKey(visit.fields.visitedAt, timeZone: day.timeZone)
            if key.month == day.key.month, key.day == day.key.day, key.year < day.key.year { byDay[key, default: []].append(visit) }
        }
        return DayMemories(byDay: byDay.mapValues { visits in
            let sorted = visits.sorted { $0.fields.visitedAt < $1.fields.visitedAt }
            return DayMemories.Year(nodes: [el("p") { sorted.map(\.fields.name).joined(separator: " · ") }],
                                    fields: ["visits": sorted.map(DayVisitResponse.init)])
        }, empty: ["visits": [DayVisitResponse]()])
    }
}

/// A visit in the day's API answer.
struct DayVisitResponse: Codable, Sendable {
    let id: String
    let name: String
    let visitedAt: Date
    let latitude: Double
    let longitude: Double

    init(_ visit: Visit) {
        id = visit.id
        name = visit.fields.name
        visitedAt = visit.fields.visitedAt
        latitude = visit.fields.latitude
        longitude = visit.fields.longitude
    }
}
