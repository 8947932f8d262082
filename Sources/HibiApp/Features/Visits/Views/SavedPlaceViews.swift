import Foundation

/// The "Saved places" page: places saved in Google Maps, each with a form to log a visit there.
enum SavedPlaceViews {
    static let perPage = 50

    static func list(context: HibiRequestContext, user: User, places: [SavedPlace], total: Int, page: PageRequest, now: Date,
                     notice: (String, Layout.NoticeKind)?) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let nowInput = VisitViews.localInput(now, timeZone: zone)
        return Layout.page(title: VisitStrings.savedPlaces(l), context: context, current: VisitPaths.list) {
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
            el("hgroup") {
                el("h1") { VisitStrings.savedPlaces(l) }
                el("p") { VisitStrings.savedPlacesIntro(l) }
            }
            VisitViews.subnav(l, current: VisitPaths.savedPlaces)
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            // A page past the end still has places before it: the pager, not "no saved places yet".
            if total == 0 {
                el("section", .class("empty-state card"), .id("saved-places-empty")) {
                    el("p", .class("empty-icon"), .aria("hidden", "true")) { "⭐" }
                    el("p") { VisitStrings.savedPlacesEmpty(l) }
                    el("p") { el("a", .href(VisitPaths.transfer), .role("button")) { VisitStrings.transfer(l) } }
                }
            } else {
                el("p", .class("muted"), .id("saved-places-count")) { VisitStrings.savedPlacesCount(l, total) }
                el("ul", .class("visit-list"), .id("saved-places")) {
                    for place in places {
                        item(context: context, place: place, zone: zone, nowInput: nowInput)
                    }
                }
                let pages = (total + page.perPage - 1) / page.perPage
                if pages > 1 || page.page > 1 {
                    el("nav", .class("pager"), .aria("label", VisitStrings.savedPlaces(l))) {
                        if page.page > 1 { el("a", .href(VisitPaths.savedPlacesPage(min(page.page - 1, pages))), .id("newer")) { VisitStrings.previousPage(l) } }
                        el("span", .class("muted")) { "\(page.page) / \(pages)" }
                        if page.page < pages { el("a", .href(VisitPaths.savedPlacesPage(page.page + 1)), .id("older")) { VisitStrings.nextPage(l) } }
                    }
                }
            }
            el("script", .src("/static/visits.js"), .init("defer", nil))
        }
    }

    static func item(context: HibiRequestContext, place: SavedPlace, zone: TimeZone, nowInput: String) -> Node {
        let l = context.language
        let f = place.fields
        return el("li", .class("visit-item card saved-place"), .id("saved-\(place.id)"), .data("saved-place-id", place.id)) {
            el("span", .class("visit-name")) { f.name }
            if let savedAt = f.savedAt {
                el("span", .class("muted visit-time")) { "\(VisitStrings.savedOn(l)) \(VisitViews.formatTime(savedAt, timeZone: zone, language: l))" }
            }
            if !f.address.isEmpty { el("span", .class("visit-address")) { f.address } }
            if !f.note.isEmpty { el("span", .class("muted")) { f.note } }
            el("span", .class("muted")) {
                el("a", .href(VisitPaths.near(latitude: f.latitude, longitude: f.longitude))) { String(format: "%.5f, %.5f", f.latitude, f.longitude) }
                if let url = f.googleMapsURL, url.hasPrefix("http://") || url.hasPrefix("https://") {
                    " · "
                    el("a", .href(url), .init("rel", "noopener noreferrer external"), .init("target", "_blank")) { VisitStrings.openInGoogleMaps(l) }
                }
            }
            el("form", .method("post"), .action(VisitPaths.savedPlaceVisit(place.id)), .class("inline-form log-visit")) {
                Layout.csrfField(context)
                el("fieldset") {
                    Node.void("input", [.type("datetime-local"), .name("visitedAt"), .value(nowInput), .required,
                                        .aria("label", VisitStrings.visitedAt(l))])
                    el("button", .type("submit"), .class("log-visit-button")) { VisitStrings.logVisitHere(l) }
                }
            }
            el("form", .method("post"), .action(VisitPaths.deleteSavedPlace(place.id))) {
                Layout.csrfField(context)
                el("button", .type("submit"), .class("secondary outline small delete-saved-place")) { VisitStrings.delete(l) }
            }
        }
    }
}
