import Foundation

/// The "Detected stays" page: stays to confirm or dismiss, the stay settings, a location import
/// and how to connect a phone.
enum LocationViews {
    static func stays(context: HibiRequestContext, user: User, open: [DetectedStay], decided: [DetectedStay], settings: StaySettings,
                      hasHistory: Bool = false, origin: String = "", notice: (String, Layout.NoticeKind)?) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return Layout.page(title: LocationStrings.staysTitle(l), context: context, current: VisitPaths.list) {
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
            el("hgroup") {
                el("h1") { LocationStrings.staysTitle(l) }
                el("p") { LocationStrings.staysIntro(l) }
            }
            VisitViews.subnav(l, current: VisitPaths.stays)
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            el("section", .class("card"), .id("open-stays")) {
                if open.isEmpty {
                    // With a history already here, asking to import one would be wrong: none of it is a stay to decide.
                    el("p", .class("muted"), .id("no-stays")) {
                        hasHistory ? LocationStrings.noStaysInHistory(l) : LocationStrings.noStays(l)
                    }
                } else {
                    el("ul", .class("stay-list")) {
                        for stay in open {
                            el("li", .class("stay"), .id("stay-\(stay.id)"), .data("stay-id", stay.id)) {
                                el("form", .method("post"), .action(VisitPaths.confirmStay(stay.id)), .class("inline-form")) {
                                    Layout.csrfField(context)
                                    el("fieldset") {
                                        Node.void("input", [.type("text"), .name("name"), .value(stay.name), .aria("label", LocationStrings.name(l)),
                                                            .init("maxlength", String(VisitRules.maxNameLength))])
                                        el("button", .type("submit"), .class("confirm-stay")) { LocationStrings.confirm(l) }
                                    }
                                }
                                el("p", .class("muted stay-facts")) {
                                    "\(LocationStrings.from(l)) \(VisitViews.formatTime(stay.arrival, timeZone: zone, language: l)) · "
                                        + "\(LocationStrings.until(l)) \(VisitViews.formatTime(stay.departure, timeZone: zone, language: l)) · "
                                        + String(format: "%.5f, %.5f", stay.latitude, stay.longitude)
                                        + (stay.pointCount > 0 ? " · \(LocationStrings.points(l)) \(stay.pointCount)" : "")
                                }
                                el("form", .method("post"), .action(VisitPaths.dismissStay(stay.id))) {
                                    Layout.csrfField(context)
                                    el("button", .type("submit"), .class("secondary outline small dismiss-stay")) { LocationStrings.dismiss(l) }
                                }
                            }
                        }
                    }
                }
            }
            el("div", .class("grid")) {
                el("section", .class("card"), .id("stay-settings")) {
                    el("h2") { LocationStrings.settingsTitle(l) }
                    el("p", .class("muted")) { LocationStrings.settingsIntro(l) }
                    el("form", .method("post"), .action(VisitPaths.staySettings)) {
                        Layout.csrfField(context)
                        el("label") {
                            LocationStrings.distance(l)
                            Node.void("input", [.type("number"), .name("distance"), .id("stay-distance"), .value(String(Int(saturating: settings.distanceMeters))),
                                                .init("min", "10"), .init("max", "5000"), .required])
                        }
                        el("label") {
                            LocationStrings.duration(l)
                            Node.void("input", [.type("number"), .name("duration"), .id("stay-duration"), .value(String(settings.durationMinutes)),
                                                .init("min", "1"), .init("max", "1440"), .required])
                        }
                        el("button", .type("submit")) { LocationStrings.save(l) }
                    }
                }
                el("section", .class("card"), .id("import")) {
                    el("h2") { LocationStrings.importTitle(l) }
                    el("p", .class("muted")) { LocationStrings.importNote(l) }
                    el("form", .id("import-form"), .data("import-url", APIPaths.url(VisitAPIPaths.locationImport)), .data("done", LocationStrings.imported(l))) {
                        el("label", .for("import-file")) {
                            LocationStrings.file(l)
                            Node.void("input", [.type("file"), .id("import-file"), .init("accept", ".gpx,.json,.csv,application/gpx+xml,application/json,text/csv"), .required])
                        }
                        el("button", .type("submit"), .id("import-button")) { LocationStrings.importButton(l) }
                    }
                    el("div", .id("import-result"), .role("status"))
                }
            }
            el("section", .class("card"), .id("live")) {
                el("h2") { LocationStrings.liveTitle(l) }
                el("p", .class("muted")) { LocationStrings.liveIntro(l) }
                // Absolute: a phone app needs the whole address, not a path on a page it never saw.
                el("p") { el("code", .id("owntracks-url")) { origin + APIPaths.url(VisitAPIPaths.ownTracks) } }
                el("p") { el("code", .id("overland-url")) { origin + APIPaths.url(VisitAPIPaths.overland) } }
            }
            if !decided.isEmpty {
                el("section", .class("card"), .id("decided-stays")) {
                    el("h2") { LocationStrings.recent(l) }
                    el("ul") {
                        for stay in decided {
                            el("li") {
                                if let visit = stay.visitId, stay.status != .dismissed {
                                    el("a", .href(VisitPaths.visit(visit))) { stay.name }
                                } else {
                                    stay.name
                                }
                                " — \(VisitViews.formatTime(stay.arrival, timeZone: zone, language: l)) · \((LocationStrings.status[stay.status] ?? LocationStrings.staysTitle)(l))"
                            }
                        }
                    }
                }
            }
            el("script", .src("/static/visits.js"), .init("defer", nil))
        }
    }
}
