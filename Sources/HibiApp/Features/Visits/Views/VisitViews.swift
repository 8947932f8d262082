import Foundation

/// Form fields as typed, so a rejected form comes back exactly as the user left it.
struct VisitFormValues: Sendable {
    var name = ""
    var when = ""
    var latitude = ""
    var longitude = ""
    var accuracy = ""
    var altitude = ""
    var simulated = false
    var country = ""
    var postalCode = ""
    var region = ""
    var locality = ""
    var street = ""
    var labels = ""
    var group = ""
    var companions = ""
    var notes = ""

    init() {}

    init(form: FormData) {
        name = form["name"] ?? ""
        when = form["visited_at"] ?? ""
        latitude = form["latitude"] ?? ""
        longitude = form["longitude"] ?? ""
        accuracy = form["accuracy"] ?? ""
        altitude = form["altitude"] ?? ""
        simulated = form.bool("simulated")
        country = form["country"] ?? ""
        postalCode = form["postal_code"] ?? ""
        region = form["region"] ?? ""
        locality = form["locality"] ?? ""
        street = form["street"] ?? ""
        labels = form["labels"] ?? ""
        group = form["group"] ?? ""
        companions = form["companions"] ?? ""
        notes = form["notes"] ?? ""
    }

    init(visit: Visit, timeZone: TimeZone, language: Language) {
        let f = visit.fields
        name = f.name
        when = VisitViews.localInput(f.visitedAt, timeZone: timeZone)
        latitude = "\(f.latitude)"
        longitude = "\(f.longitude)"
        accuracy = f.accuracy.map { "\($0)" } ?? ""
        altitude = f.altitude.map { "\($0)" } ?? ""
        simulated = f.simulated
        country = f.address?.country ?? ""
        postalCode = f.address?.postalCode ?? ""
        region = f.address?.region ?? ""
        locality = f.address?.locality ?? ""
        street = f.address?.street ?? ""
        labels = f.labels.joined(separator: ", ")
        group = f.group ?? ""
        companions = f.companions.joined(separator: ", ")
        notes = f.notes
    }

    /// Turns the typed text into fields; numbers that do not parse are reported by name.
    func fields(timeZone: TimeZone, now: Date, language: Language) throws(VisitError) -> VisitFields {
        func number(_ text: String, _ field: String) throws(VisitError) -> Double? {
            do { return try NumberInput.parse(text, .typed(language)) } catch {
                guard case .ambiguous = error else {
                    throw field == "latitude" ? .invalidLatitude : field == "longitude" ? .invalidLongitude : .invalidNumber(field: field)
                }
                throw .unreadableNumber(field: field, error)
            }
        }
        guard let lat = try number(latitude, "latitude") else { throw .invalidLatitude }
        guard let lon = try number(longitude, "longitude") else { throw .invalidLongitude }
        let visitedAt: Date
        if when.trimmingCharacters(in: .whitespaces).isEmpty {
            visitedAt = now
        } else {
            guard let parsed = VisitViews.parseLocalInput(when, timeZone: timeZone) else {
                throw VisitViews.yearIsOutOfRange(when) ? .yearOutOfRange(field: "visited_at") : .invalidDate(field: "visited_at")
            }
            visitedAt = parsed
        }
        return VisitFields(visitedAt: visitedAt, latitude: lat, longitude: lon, accuracy: try number(accuracy, "accuracy"),
                           altitude: try number(altitude, "altitude"), simulated: simulated, name: name,
                           address: VisitAddress(country: country, postalCode: postalCode, region: region, locality: locality, street: street),
                           labels: VisitRules.splitList(labels), group: group, companions: VisitRules.splitList(companions), notes: notes)
    }
}

enum VisitViews {
    static func locale(_ language: Language) -> Locale { Locale(identifier: language == .ja ? "ja_JP" : "en_US") }

    static func formatTime(_ date: Date, timeZone: TimeZone, language: Language) -> String {
        date.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened, locale: locale(language), timeZone: timeZone))
    }

    static func localInput(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }

    /// "2024-05-01T09:30" (what datetime-local sends) read in the user's time zone.
    /// A well-formed date whose year is outside 1...9998 ("20245-01-01T10:00"): a different mistake from a malformed one.
    static func yearIsOutOfRange(_ text: String) -> Bool {
        let pieces = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" || $0 == " " })
        guard (5...6).contains(pieces.count), pieces.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return false }
        guard let year = Int(pieces[0]) else { return true } // more digits than Int holds
        return !(1...9998).contains(year)
    }

    static func parseLocalInput(_ text: String, timeZone: TimeZone) -> Date? {
        let pieces = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" || $0 == " " })
        let parts = pieces.compactMap { Int($0) }
        // Each field within its range: Calendar is not asked about hour 9223372036854775807.
        guard parts.count == pieces.count, (5...6).contains(parts.count), (1...9998).contains(parts[0]), (1...12).contains(parts[1]),
              (1...31).contains(parts[2]), (0...23).contains(parts[3]), (0...59).contains(parts[4]),
              parts.count == 5 || (0...59).contains(parts[5]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
                                        second: parts.count > 5 ? parts[5] : 0)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == parts[2] else { return nil }
        return date
    }

    static func assets() -> Node {
        fragment {
            link(.init("rel", "stylesheet"), .href("/vendor/leaflet/leaflet.css"))
            link(.init("rel", "stylesheet"), .href("/vendor/leaflet/MarkerCluster.css"))
            link(.init("rel", "stylesheet"), .href("/vendor/leaflet/MarkerCluster.Default.css"))
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
        }
    }

    static func scripts() -> Node {
        fragment {
            el("script", .src("/vendor/leaflet/leaflet.js"))
            el("script", .src("/vendor/leaflet/leaflet.markercluster.js"))
            el("script", .src("/static/visits.js"), .init("defer", nil))
        }
    }

    static func subnav(_ l: Language, current: String) -> Node {
        el("nav", .class("visits-subnav section-nav"), .aria("label", VisitStrings.title(l))) {
            el("ul") {
                for (path, title) in [(VisitPaths.list, VisitStrings.list), (VisitPaths.places, VisitStrings.places), (VisitPaths.savedPlaces, VisitStrings.savedPlaces), (VisitPaths.verify, VisitStrings.verifyTitle),
                                      (VisitPaths.transfer, VisitStrings.transfer), (VisitPaths.stays, LocationStrings.staysTitle)] {
                    el("li") { el("a", [.href(path)] + (current == path ? [.aria("current", "page")] : [])) { title(l) } }
                }
            }
            el("a", .href(VisitPaths.new), .role("button"), .id("add-visit")) { "＋ " + VisitStrings.add(l) }
        }
    }

    static func mapElement(id: String, tileURL: String, l: Language, classes: String = "", attributes: [Attribute] = []) -> Node {
        el("div", [.id(id), .class("visit-map \(classes)"), .data("tile-url", tileURL), .data("outline-url", "/static/world-110m.geojson"),
                   .data("offline-text", VisitStrings.mapOffline(l)),
                   .data("private-text", VisitStrings.mapPrivate(l)), .data("open-text", VisitStrings.openVisit(l)), .role("region"),
                   .aria("label", VisitStrings.map(l))] + attributes)
    }

    /// Where the map reads the workout routes of the shown range (Health's API; the range in UTC instants).
    static func workoutRoutesURL(from: Date?, to: Date?) -> String {
        var parts: [String] = []
        if let from { parts.append("from=" + from.formatted(.iso8601)) }
        if let to { parts.append("to=" + to.formatted(.iso8601)) }
        return "/api/v1/health/workouts/routes" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
    }

    static func index(context: HibiRequestContext, user: User, visits: [Visit], query: [String: String], notice: String?,
                      tileURL: String, routesURL: String = workoutRoutesURL(from: nil, to: nil)) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let filtered = query.values.contains { !$0.isEmpty }
        return Layout.page(title: VisitStrings.title(l), context: context, current: VisitPaths.list) {
            assets()
            el("hgroup") {
                el("h1") { VisitStrings.title(l) }
                el("p") { VisitStrings.intro(l) }
            }
            subnav(l, current: VisitPaths.list)
            if let notice { Layout.notice(notice, kind: .success) }
            mapElement(id: "visits-map", tileURL: tileURL, l: l, attributes: [.data("points-url", APIPaths.url(VisitAPIPaths.map) + "?format=compact"), .data("routes-url", routesURL),
                                                                   .data("saved-url", APIPaths.url(VisitAPIPaths.savedPlaces) + "?perPage=1000"), .data("saved-page", VisitPaths.savedPlaces),
                                                                   .data("saved-text", VisitStrings.savedPlaces(l))])
            el("details", [.class("card filter")] + (filtered ? [.init("open", nil)] : [])) {
                el("summary") { VisitStrings.filter(l) }
                el("form", .method("get"), .action(VisitPaths.list), .id("filter-form"), .class("filter-grid")) {
                    Layout.field(label: VisitStrings.from(l), id: "f-from", .name("from"), .type("date"), .value(query["from"] ?? ""))
                    Layout.field(label: VisitStrings.to(l), id: "f-to", .name("to"), .type("date"), .value(query["to"] ?? ""))
                    Layout.field(label: VisitStrings.labels(l), id: "f-label", .name("label"), .value(query["label"] ?? ""))
                    Layout.field(label: VisitStrings.group(l), id: "f-group", .name("group"), .value(query["group"] ?? ""))
                    Layout.field(label: VisitStrings.near(l), id: "f-near", .name("near"), .value(query["near"] ?? ""), .placeholder("35.68,139.76"))
                    Layout.field(label: VisitStrings.radius(l), id: "f-radius", .name("radius"), .value(query["radius"] ?? ""), .init("inputmode", "decimal"))
                    el("div", .class("filter-actions")) {
                        el("button", .type("submit")) { VisitStrings.filter(l) }
                        el("a", .href(VisitPaths.list), .role("button"), .class("secondary outline")) { VisitStrings.clear(l) }
                    }
                }
            }
            if visits.isEmpty {
                el("section", .class("empty-state card")) {
                    el("p", .class("empty-icon"), .aria("hidden", "true")) { "📍" }
                    el("p") { filtered ? VisitStrings.noMatch(l) : VisitStrings.empty(l) }
                }
            } else {
                el("p", .class("muted")) { VisitStrings.visitsCount(l, visits.count) }
                el("ul", .class("visit-list"), .id("visit-list")) {
                    for visit in visits {
                        el("li", .class("visit-item card")) {
                            el("a", .href(VisitPaths.visit(visit.id)), .class("visit-name")) { visit.fields.name }
                            el("span", .class("muted visit-time")) { formatTime(visit.fields.visitedAt, timeZone: zone, language: l) }
                            let address = Geo.formatAddress(visit.fields.address, language: l)
                            if !address.isEmpty { el("span", .class("visit-address")) { address } }
                            tags(visit.fields, l)
                        }
                    }
                }
            }
            scripts()
        }
    }

    static func tags(_ f: VisitFields, _ l: Language) -> Node {
        el("span", .class("visit-tags")) {
            if let group = f.group { el("span", .class("badge group")) { "▣ " + group } }
            for label in f.labels {
                // The label an import gives a time it guessed is stored as a code; a person reads it in words.
                if label == VisitFormats.approximateTimeLabel {
                    el("span", .class("badge label approximate"), .data("label", label)) { "🕓 " + VisitStrings.approximateTime(l) }
                } else {
                    el("span", .class("badge label")) { "# " + label }
                }
            }
        }
    }

    static func form(context: HibiRequestContext, visit: Visit?, values: VisitFormValues, error: String?, tileURL: String,
                     status: Bool = false) -> Node {
        let l = context.language
        let title = visit == nil ? VisitStrings.add(l) : VisitStrings.editTitle(l)
        return Layout.page(title: title, context: context, current: VisitPaths.list) {
            assets()
            el("h1") { title }
            if let error { Layout.notice(error, kind: .error) }
            el("form", .method("post"), .action(visit.map { VisitPaths.visit($0.id) } ?? VisitPaths.list), .id("visit-form"), .class("visit-form")) {
                Layout.csrfField(context)
                Layout.field(label: VisitStrings.name(l), id: "name", .name("name"), .value(values.name), .required, .maxlength(VisitRules.maxNameLength))
                Layout.field(label: VisitStrings.when(l), id: "visited_at", .name("visited_at"), .type("datetime-local"), .value(values.when),
                             .data("default-now", visit == nil ? "true" : "false"))
                el("fieldset", .class("position")) {
                    el("legend") { VisitStrings.map(l) }
                    el("button", .type("button"), .class("secondary"), .id("use-location"), .data("locating", VisitStrings.locating(l)),
                       .data("failed", VisitStrings.locationFailed(l))) { "◎ " + VisitStrings.useLocation(l) }
                    el("small", .class("muted"), .id("location-status"), .role("status")) { VisitStrings.pickHint(l) }
                    mapElement(id: "picker-map", tileURL: tileURL, l: l, classes: "picker")
                    el("div", .class("grid")) {
                        Layout.field(label: VisitStrings.latitude(l), id: "latitude", .name("latitude"), .value(values.latitude), .required,
                                     .init("inputmode", "decimal"))
                        Layout.field(label: VisitStrings.longitude(l), id: "longitude", .name("longitude"), .value(values.longitude), .required,
                                     .init("inputmode", "decimal"))
                    }
                    el("div", .class("grid")) {
                        Layout.field(label: VisitStrings.accuracy(l), id: "accuracy", .name("accuracy"), .value(values.accuracy), .init("inputmode", "decimal"))
                        Layout.field(label: VisitStrings.altitude(l), id: "altitude", .name("altitude"), .value(values.altitude), .init("inputmode", "decimal"))
                    }
                    el("label", .for("simulated")) {
                        Node.void("input", [.type("checkbox"), .id("simulated"), .name("simulated"), .value("true")] + (values.simulated ? [.checked] : []))
                        VisitStrings.simulated(l)
                    }
                }
                el("fieldset") {
                    el("legend") { VisitStrings.address(l) }
                    el("div", .class("grid")) {
                        Layout.field(label: VisitStrings.country(l), id: "country", .name("country"), .value(values.country))
                        Layout.field(label: VisitStrings.postalCode(l), id: "postal_code", .name("postal_code"), .value(values.postalCode))
                    }
                    el("div", .class("grid")) {
                        Layout.field(label: VisitStrings.region(l), id: "region", .name("region"), .value(values.region))
                        Layout.field(label: VisitStrings.locality(l), id: "locality", .name("locality"), .value(values.locality))
                    }
                    Layout.field(label: VisitStrings.street(l), id: "street", .name("street"), .value(values.street))
                }
                el("div", .class("grid")) {
                    Layout.field(label: VisitStrings.labels(l), id: "labels", .name("labels"), .value(values.labels), .placeholder(VisitStrings.labelsHint(l)))
                    Layout.field(label: VisitStrings.group(l), id: "group", .name("group"), .value(values.group))
                }
                Layout.field(label: VisitStrings.companions(l), id: "companions", .name("companions"), .value(values.companions), .placeholder(VisitStrings.labelsHint(l)))
                el("label", .for("notes")) {
                    VisitStrings.notes(l)
                    el("textarea", .id("notes"), .name("notes"), .init("rows", "4"), .maxlength(VisitRules.maxNotesLength)) { values.notes }
                }
                el("div", .class("form-actions")) {
                    el("button", .type("submit"), .id("save-visit")) { VisitStrings.save(l) }
                    el("a", .href(visit.map { VisitPaths.visit($0.id) } ?? VisitPaths.list), .role("button"), .class("secondary outline")) { VisitStrings.cancel(l) }
                }
            }
            scripts()
        }
    }

    static func detail(context: HibiRequestContext, user: User, visit: Visit, history: [(ChainBody, VisitFields?)], notice: String?,
                       tileURL: String) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let f = visit.fields
        return Layout.page(title: f.name, context: context, current: VisitPaths.list) {
            assets()
            if let notice { Layout.notice(notice, kind: .success) }
            el("hgroup") {
                el("h1", .id("visit-title")) { f.name }
                el("p", .id("visit-time")) { formatTime(f.visitedAt, timeZone: zone, language: l) }
            }
            el("div", .class("visit-detail")) {
                el("section", .class("card")) {
                    mapElement(id: "detail-map", tileURL: tileURL, l: l, classes: "small-map",
                               attributes: [.data("lat", "\(f.latitude)"), .data("lon", "\(f.longitude)"),
                                            .data("name", f.name)])
                    el("dl", .class("visit-facts")) {
                        el("dt") { VisitStrings.latitude(l) + " / " + VisitStrings.longitude(l) }
                        el("dd", .id("visit-coordinates")) { "\(f.latitude), \(f.longitude)" }
                        if let accuracy = f.accuracy { el("dt") { VisitStrings.accuracy(l) }; el("dd") { "±\(accuracy)" } }
                        if let altitude = f.altitude { el("dt") { VisitStrings.altitude(l) }; el("dd") { "\(altitude)" } }
                        if f.simulated { el("dt") { "⚠" }; el("dd") { VisitStrings.simulated(l) } }
                        let address = Geo.formatAddress(f.address, language: l)
                        if !address.isEmpty { el("dt") { VisitStrings.address(l) }; el("dd", .id("visit-address")) { address } }
                        if f.group != nil || !f.labels.isEmpty { el("dt") { VisitStrings.labels(l) }; el("dd") { tags(f, l) } }
                        if !f.companions.isEmpty { el("dt") { VisitStrings.companions(l) }; el("dd") { f.companions.joined(separator: l == .ja ? "、" : ", ") } }
                        if !f.notes.isEmpty { el("dt") { VisitStrings.notes(l) }; el("dd", .class("notes")) { f.notes } }
                    }
                    el("div", .class("form-actions")) {
                        el("a", .href(VisitPaths.edit(visit.id)), .role("button"), .id("edit-visit")) { VisitStrings.edit(l) }
                        el("form", .method("post"), .action(VisitPaths.delete(visit.id)), .class("inline"), .data("confirm", VisitStrings.deleteConfirm(l))) {
                            Layout.csrfField(context)
                            el("button", .type("submit"), .class("secondary outline"), .id("delete-visit")) { VisitStrings.delete(l) }
                        }
                    }
                }
                el("section", .class("card"), .id("photos")) {
                    el("h2") { VisitStrings.photos(l) }
                    if visit.photos.isEmpty {
                        el("p", .class("muted")) { VisitStrings.noPhotos(l) }
                    } else {
                        el("div", .class("photo-grid")) {
                            for photo in visit.photos {
                                el("a", .href(APIPaths.url(VisitAPIPaths.photo(visit.id, photo.id)))) {
                                    Node.void("img", [.src(APIPaths.url(VisitAPIPaths.photo(visit.id, photo.id))), .init("alt", f.name),
                                                      .init("loading", "lazy")])
                                }
                            }
                        }
                    }
                    el("label", .for("photo-input")) {
                        VisitStrings.addPhoto(l)
                        Node.void("input", [.type("file"), .id("photo-input"), .init("accept", VisitRules.photoTypes.joined(separator: ",")),
                                            .data("upload-url", APIPaths.url(VisitAPIPaths.photos(visit.id))), .data("uploading", VisitStrings.uploading(l))])
                    }
                    el("small", .class("muted"), .id("photo-status"), .role("status")) { VisitStrings.photoHint(l) }
                }
                el("section", .class("card"), .id("history")) {
                    el("h2") { VisitStrings.history(l) }
                    el("p", .class("muted")) { VisitStrings.historyIntro(l) }
                    el("ol", .class("history")) {
                        for (body, fields) in history {
                            el("li") {
                                el("strong") { "#\(body.seq) " + VisitStrings.action(body.action)(l) }
                                " · " + formatTime(Date(timeIntervalSince1970: Double(body.at)), timeZone: zone, language: l)
                                if let fields { el("div", .class("muted")) { "\(fields.name) — \(fields.latitude), \(fields.longitude)" } }
                            }
                        }
                    }
                    el("a", .href(VisitPaths.verify)) { VisitStrings.verifyLink(l) }
                }
            }
            scripts()
        }
    }

    static func verify(context: HibiRequestContext, report: ChainReport, publicKey: String) -> Node {
        let l = context.language
        return Layout.page(title: VisitStrings.verifyTitle(l), context: context, current: VisitPaths.list) {
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
            el("hgroup") {
                el("h1") { VisitStrings.verifyTitle(l) }
                el("p") { VisitStrings.verifyIntro(l) }
            }
            subnav(l, current: VisitPaths.verify)
            el("section", .class("card verify \(report.intact ? "intact" : "broken")"), .id("verify-result")) {
                el("h2", .id("verify-status")) { (report.intact ? "✓ " : "✗ ") + (report.intact ? VisitStrings.intact(l) : VisitStrings.broken(l)) }
                el("p", .id("verify-message"), .role(report.intact ? "status" : "alert")) { VisitStrings.verifyMessage(report, language: l) }
                el("dl", .class("visit-facts")) {
                    el("dt") { VisitStrings.records(l) }
                    el("dd", .id("verify-records")) { String(report.records) }
                    el("dt") { VisitStrings.head(l) }
                    el("dd") { el("code", .class("hash")) { report.head ?? "—" } }
                    el("dt") { VisitStrings.publicKey(l) }
                    el("dd") { el("code", .class("hash"), .id("public-key")) { publicKey } }
                }
            }
        }
    }

    static func places(context: HibiRequestContext, stats: PlaceStats) -> Node {
        let l = context.language
        let peak = max(1, stats.perMonth.map(\.count).max() ?? 1)
        return Layout.page(title: VisitStrings.places(l), context: context, current: VisitPaths.list) {
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
            el("h1") { VisitStrings.places(l) }
            subnav(l, current: VisitPaths.places)
            if stats.total == 0 {
                el("section", .class("empty-state card")) { el("p") { VisitStrings.empty(l) } }
            } else {
                el("div", .class("grid places-grid")) {
                    el("section", .class("card"), .id("top-places")) {
                        el("h2") { VisitStrings.mostVisited(l) }
                        el("ol", .class("top-places")) {
                            for place in stats.topPlaces {
                                el("li") {
                                    el("a", .href(VisitPaths.near(latitude: place.latitude, longitude: place.longitude))) { place.name }
                                    el("span", .class("badge")) { String(place.count) }
                                }
                            }
                        }
                    }
                    el("section", .class("card"), .id("per-month")) {
                        el("h2") { VisitStrings.perMonth(l) }
                        el("table", .class("months")) {
                            el("thead") { el("tr") { el("th") { VisitStrings.month(l) }; el("th") { VisitStrings.count(l) } } }
                            el("tbody") {
                                for month in stats.perMonth {
                                    el("tr") {
                                        el("td") { month.month }
                                        // The bar sits in a track of its own: widths in percent of a flex table cell
                                        // resolved against the content and every bar came out the same length.
                                        el("td", .class("bar-cell")) {
                                            el("div", .class("bar-row")) {
                                                el("span", .class("bar-track"), .aria("hidden", "true")) {
                                                    el("span", .class("bar"), .init("style", "width: \(max(2, month.count * 100 / peak))%")) { "" }
                                                }
                                                String(month.count)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func transfer(context: HibiRequestContext, user: User, webhook: WebhookSettings, notice: (String, Layout.NoticeKind)?) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return Layout.page(title: VisitStrings.transfer(l), context: context, current: VisitPaths.list) {
            link(.init("rel", "stylesheet"), .href("/static/visits.css"))
            el("h1") { VisitStrings.transfer(l) }
            subnav(l, current: VisitPaths.transfer)
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            el("div", .class("grid")) {
                el("section", .class("card"), .id("export")) {
                    el("h2") { VisitStrings.exportTitle(l) }
                    el("p", .class("muted")) { VisitStrings.exportNote(l) }
                    el("p") { el("a", .href(APIPaths.url(VisitAPIPaths.export) + "?format=geojson"), .role("button"), .id("export-geojson")) { VisitStrings.exportGeoJSON(l) } }
                    el("p") { el("a", .href(APIPaths.url(VisitAPIPaths.export) + "?format=gpx"), .role("button"), .class("secondary"), .id("export-gpx")) { VisitStrings.exportGPX(l) } }
                }
                el("section", .class("card"), .id("import")) {
                    el("h2") { VisitStrings.importTitle(l) }
                    el("p", .class("muted")) { VisitStrings.importNote(l) }
                    el("form", .id("import-form"), .data("import-url", APIPaths.url(VisitAPIPaths.importFile)), .data("done", VisitStrings.imported(l)),
                       .data("done-places", VisitStrings.importedSavedPlaces(l))) {
                        el("label", .for("import-file")) {
                            VisitStrings.file(l)
                            Node.void("input", [.type("file"), .id("import-file"), .init("accept", ".geojson,.json,.gpx,.csv,application/geo+json,application/gpx+xml,text/csv"), .required])
                        }
                        el("button", .type("submit"), .id("import-button")) { VisitStrings.importButton(l) }
                    }
                    el("div", .id("import-result"), .role("status"))
                }
            }
            el("section", .class("card"), .id("webhook")) {
                el("h2") { VisitStrings.webhook(l) }
                el("p", .class("muted")) { VisitStrings.webhookIntro(l) }
                el("form", .method("post"), .action(VisitPaths.webhook), .class("inline-form")) {
                    Layout.csrfField(context)
                    el("fieldset") {
                        Node.void("input", [.type("url"), .name("url"), .id("webhook-url"), .value(webhook.url ?? ""),
                                            .placeholder("https://example.org/hibi-head"), .aria("label", VisitStrings.webhookURL(l))])
                        el("button", .type("submit")) { VisitStrings.save(l) }
                    }
                }
                if webhook.url != nil {
                    el("form", .method("post"), .action(VisitPaths.webhookSend)) {
                        Layout.csrfField(context)
                        el("button", .type("submit"), .class("secondary outline small")) { VisitStrings.sendNow(l) }
                    }
                }
                if let status = webhook.lastStatus, let at = webhook.lastSentAt {
                    el("p", .class("muted"), .id("webhook-status")) {
                        VisitStrings.lastSent(l, "\(formatTime(at, timeZone: zone, language: l)) — \(VisitStrings.webhookOutcome(status)(l))")
                    }
                }
            }
            el("script", .src("/static/visits.js"), .init("defer", nil))
        }
    }
}
