import Foundation

enum HealthViews {
    static let tabs: [(String, Text)] = [(HealthPaths.overview, HealthStrings.overview), (HealthPaths.trends, HealthStrings.trends), (HealthPaths.goals, HealthStrings.goals),
                                         (HealthPaths.badges, HealthStrings.badges), (HealthPaths.reminders, HealthStrings.reminders), (HealthPaths.importPage, HealthStrings.importTitle),
                                         (HealthPaths.share, HealthStrings.share)]

    static func page(_ title: String, context: HibiRequestContext, tab: String, scripts: [String] = [], @NodeBuilder content: () -> [Node]) -> Node {
        let l = context.language
        let body = content()
        // One pattern in every section: the page's heading, then the section's menu under it (Health had it above).
        var headingFirst = false
        if case let .element(tag, _, _)? = body.first { headingFirst = tag == "h1" || tag == "hgroup" }
        return Layout.page(title: title, context: context, current: HealthPaths.overview) {
            link(.init("rel", "stylesheet"), .href("/static/health.css"))
            if headingFirst { body[0] }
            el("nav", .class("health-tabs section-nav"), .aria("label", HealthStrings.health(l))) {
                el("ul") {
                    for (path, name) in tabs {
                        el("li") { el("a", [.href(path)] + (path == tab ? [.aria("current", "page")] : [])) { name(l) } }
                    }
                }
            }
            headingFirst ? Node.fragment(Array(body.dropFirst())) : Node.fragment(body)
            for script in scripts { el("script", .src(script), .init("defer", nil)) }
        }
    }

    static func formatter(_ l: Language, _ zone: TimeZone, date: Date.FormatStyle.DateStyle = .abbreviated, time: Date.FormatStyle.TimeStyle = .shortened) -> Date.FormatStyle {
        Date.FormatStyle(date: date, time: time, locale: Locale(identifier: l == .ja ? "ja_JP" : "en_US"), timeZone: zone)
    }

    static func localInput(_ date: Date, zone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return f.string(from: date)
    }

    static func typeOptions(_ l: Language, selected: String?, includeAll: Bool = false, types: [HealthDataType] = HealthDataType.manual,
                            extra: [String] = []) -> [Node] {
        var nodes: [Node] = []
        if includeAll { nodes.append(el("option", [.value("")] + (selected == nil ? [.selected] : [])) { HealthStrings.allTypes(l) }) }
        for type in types {
            nodes.append(el("option", [.value(type.rawValue)] + (selected == type.rawValue ? [.selected] : [])) { type.title(l) })
        }
        for raw in extra where !(HealthDataType(rawValue: raw).map(types.contains) ?? false) {
            nodes.append(el("option", [.value(raw)] + (selected == raw ? [.selected] : [])) { HealthDataType.title(of: raw)(l) })
        }
        return nodes
    }

    struct Overview {
        var records: [HealthRecord]
        var filterType: String?
        var from: String
        var to: String
        var types: [String]
        var units: UnitPreferences
        var todaySteps: Double
        var latestWeight: HealthRecord?
        var streak: Int
        var earned: [EarnedBadge]
        var reminders: [ReminderResponse]
        var notice: (String, Layout.NoticeKind)?
        var form: [String: String] = [:]
        var page: Int = 1
        var hasOlder: Bool = false
    }

    /// Newer / older pages of the records list, keeping the filter.
    static func recordPager(_ data: Overview, language l: Language) -> Node {
        func link(_ page: Int) -> String {
            var items = [URLQueryItem(name: "page", value: String(page))]
            if let type = data.filterType { items.append(.init(name: "type", value: type)) }
            if !data.from.isEmpty { items.append(.init(name: "from", value: data.from)) }
            if !data.to.isEmpty { items.append(.init(name: "to", value: data.to)) }
            var components = URLComponents()
            components.queryItems = items
            return HealthPaths.overview + (components.string ?? "") + "#records-table"
        }
        return el("nav", .class("pagination"), .id("records-pager"), .aria("label", HealthStrings.recordPages(l))) {
            if data.page > 1 { el("a", .href(link(data.page - 1)), .init("rel", "prev")) { "← " + HealthStrings.newer(l) } } else { el("span") { "" } }
            el("span", .class("muted")) { HealthStrings.pageNumber(l, String(data.page)) }
            if data.hasOlder { el("a", .href(link(data.page + 1)), .init("rel", "next")) { HealthStrings.older(l) + " →" } } else { el("span") { "" } }
        }
    }

    static func overview(context: HibiRequestContext, user: User, data: Overview, now: Date) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return page(HealthStrings.health(l), context: context, tab: HealthPaths.overview, scripts: ["/static/health.js"]) {
            el("h1") { HealthStrings.health(l) }
            if let notice = data.notice { Layout.notice(notice.0, kind: notice.1) }
            el("div", .class("health-summary")) {
                el("div", .class("card stat"), .id("stat-steps")) {
                    el("small") { HealthStrings.stepsToday(l) }
                    el("strong") { HealthFormat.grouped(data.todaySteps, maxFractionDigits: 0, language: l) }
                }
                el("div", .class("card stat"), .id("stat-weight")) {
                    el("small") { HealthDataType.weight.title(l) }
                    el("strong") { data.latestWeight.map { HealthFormat.value($0.value, type: $0.type, preferences: data.units, language: l) } ?? "—" }
                }
                el("div", .class("card stat"), .id("stat-streak")) {
                    el("small") { HealthStrings.streak(l) }
                    el("strong") { HealthStrings.daysCount(l, data.streak) }
                }
            }
            if !data.earned.isEmpty {
                el("section", .class("badge-strip"), .id("earned-badges")) {
                    for badge in data.earned.suffix(6) {
                        if let d = BadgeRules.definition(badge.key) {
                            el("a", .href(HealthPaths.badges), .init("title", d.name(l))) { Node.raw(HealthGraphics.badge(d, earned: true, size: 56, language: l)) }
                        }
                    }
                }
            }
            if !data.reminders.isEmpty {
                el("section", .class("card reminders-today"), .id("reminder-list")) {
                    el("h2") { HealthStrings.reminders(l) }
                    el("ul") {
                        for r in data.reminders {
                            el("li") {
                                el("strong") { r.time }
                                " \(r.message)"
                                if let next = r.nextAt { el("small", .class("muted")) { " · " + HealthStrings.next(l, next.formatted(formatter(l, zone))) } }
                            }
                        }
                    }
                }
            }
            el("section", .class("card")) {
                el("h2") { HealthStrings.addRecord(l) }
                recordForm(context: context, action: HealthPaths.records, values: data.form, zone: zone, now: now, button: HealthStrings.add(l))
            }
            el("section", .class("card")) {
                el("h2") { HealthStrings.records(l) }
                el("form", .method("get"), .action(HealthPaths.overview), .class("filter-form"), .id("filter-form")) {
                    el("label") {
                        HealthStrings.type(l)
                        el("select", .name("type"), .id("filter-type")) { typeOptions(l, selected: data.filterType, includeAll: true, extra: data.types) }
                    }
                    el("label") { HealthStrings.from(l); input(.type("date"), .name("from"), .value(data.from)) }
                    el("label") { HealthStrings.to(l); input(.type("date"), .name("to"), .value(data.to)) }
                    el("button", .type("submit"), .class("secondary")) { HealthStrings.filter(l) }
                }
                if data.records.isEmpty {
                    el("p", .class("muted"), .id("no-records")) { HealthStrings.noRecords(l) }
                } else {
                    el("div", .class("table-scroll")) {
                        el("table", .id("records-table"), .class("cards")) {
                            el("thead") { el("tr") {
                                el("th") { HealthStrings.type(l) }; el("th") { HealthStrings.value(l) }; el("th") { HealthStrings.time(l) }; el("th") { HealthStrings.source(l) }; el("th") { "" }
                            } }
                            el("tbody") {
                                for r in data.records {
                                    el("tr", .data("record-id", r.id)) {
                                        el("td", .data("label", HealthStrings.type(l))) { HealthDataType.title(of: r.type)(l) + (r.category.isEmpty ? "" : " · \(AppleTypeNames.category(r.category)(l))") }
                                        el("td", .class("num"), .data("label", HealthStrings.value(l))) { HealthFormat.value(r.value, type: r.type, preferences: data.units, language: l) }
                                        el("td", .data("label", HealthStrings.time(l))) { r.start.formatted(formatter(l, zone)) }
                                        el("td", .data("label", HealthStrings.source(l))) { r.source.title(l) + (r.device.isEmpty ? "" : " · \(r.device)") }
                                        el("td", .class("actions")) {
                                            el("a", .href(HealthPaths.editRecord(r.id)), .class("small")) { HealthStrings.edit(l) }
                                            el("form", .method("post"), .action(HealthPaths.deleteRecord(r.id)), .class("inline"), .data("confirm", HealthStrings.deleteRecordConfirm(l))) {
                                                Layout.csrfField(context)
                                                el("button", .type("submit"), .class("linklike small danger")) { HealthStrings.delete(l) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if data.page > 1 || data.hasOlder { recordPager(data, language: l) }
                }
            }
        }
    }

    static func recordForm(context: HibiRequestContext, action: String, values: [String: String], zone: TimeZone, now: Date, button: String) -> Node {
        let l = context.language
        let type = values["type"] ?? HealthDataType.weight.rawValue
        let units = HealthDataType(rawValue: type).map(HealthUnits.inputUnits(for:)) ?? ["kg"]
        return el("form", .method("post"), .action(action), .id("record-form"), .class("record-form")) {
            Layout.csrfField(context)
            el("div", .class("grid")) {
                el("label", .for("record-type")) {
                    HealthStrings.type(l)
                    el("select", .name("type"), .id("record-type")) { typeOptions(l, selected: type) }
                }
                Layout.field(label: HealthStrings.value(l), id: "record-value", .name("value"), .type("text"), .init("inputmode", "decimal"),
                             .value(values["value"] ?? ""), .required)
                el("label", .for("record-unit")) {
                    HealthStrings.unit(l)
                    el("select", .name("unit"), .id("record-unit"), .data("units", unitMap())) {
                        for unit in units { el("option", [.value(unit)] + (values["unit"] == unit ? [.selected] : [])) { unit } }
                    }
                }
            }
            el("div", .class("grid")) {
                Layout.field(label: HealthStrings.time(l), id: "record-start", .name("start"), .type("datetime-local"),
                             .value(values["start"] ?? localInput(now, zone: zone)), .required)
                Layout.field(label: HealthStrings.endTime(l), id: "record-end", .name("end"), .type("datetime-local"), .value(values["end"] ?? ""))
            }
            el("button", .type("submit"), .id("record-submit")) { button }
        }
    }

    /// type → units, for the script that swaps the unit list when the type changes.
    static func unitMap() -> String {
        HealthDataType.manual.map { "\($0.rawValue)=\(HealthUnits.inputUnits(for: $0).joined(separator: ","))" }.joined(separator: ";")
    }

    static func edit(context: HibiRequestContext, user: User, record: HealthRecord, error: String?, values: [String: String]?) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let form = values ?? ["type": record.type, "value": HealthFormat.number(record.value, maxFractionDigits: 4), "unit": record.unit,
                              "start": localInput(record.start, zone: zone), "end": record.end == record.start ? "" : localInput(record.end, zone: zone)]
        return page(HealthStrings.edit(l), context: context, tab: HealthPaths.overview, scripts: ["/static/health.js"]) {
            el("article", .class("card")) {
                el("h1") { HealthStrings.edit(l) + " · " + HealthDataType.title(of: record.type)(l) }
                if let error { Layout.notice(error, kind: .error) }
                recordForm(context: context, action: HealthPaths.record(record.id), values: form, zone: zone, now: context.now, button: HealthStrings.save(l))
            }
        }
    }

    static func importPage(context: HibiRequestContext, user: User, jobs: [ImportJob], notice: (String, Layout.NoticeKind)?,
                           electrocardiograms: [HealthECGStore.File] = []) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return page(HealthStrings.importTitle(l), context: context, tab: HealthPaths.importPage, scripts: ["/static/health.js"]) {
            el("h1") { HealthStrings.importTitle(l) }
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            el("section", .class("card"), .id("apple-import")) {
                el("h2") { HealthStrings.appleHealth(l) }
                el("p") { HealthStrings.appleHealthHelp(l) }
                el("form", .id("apple-upload"), .data("running", HealthStrings.importing(l)), .data("done", HealthStrings.importDone(l)),
                   .data("failed", HealthStrings.importFailed(l))) {
                    el("label", .for("apple-file")) {
                        HealthStrings.chooseFile(l)
                        input(.type("file"), .id("apple-file"), .name("file"), .init("accept", ".zip,.xml,application/zip,text/xml"), .required)
                    }
                    el("button", .type("submit"), .id("apple-submit")) { HealthStrings.upload(l) }
                }
                el("div", .id("import-status"), .class("import-status"), .aria("live", "polite")) {
                    // progress is not a void element: without its end tag the message below became its (never shown) content.
                    el("progress", [.id("import-progress"), .value("0"), .init("max", "100"), .init("hidden", nil), .aria("label", HealthStrings.importing(l))]) { "" }
                    el("p", .id("import-message")) { "" }
                    el("ul", .id("import-report"), .class("import-report")) { "" }
                }
            }
            if !electrocardiograms.isEmpty {
                el("section", .class("card"), .id("ecg-section")) {
                    el("h2") { HealthStrings.electrocardiograms(l) }
                    el("ul", .id("ecg-list")) {
                        for file in electrocardiograms {
                            el("li") { el("a", .href(HealthPaths.electrocardiogram(file.name)), .init("download", file.name)) { file.name } }
                        }
                    }
                }
            }
            el("section", .class("card"), .id("csv-section")) {
                el("h2") { HealthStrings.csv(l) }
                el("p") { el("a", .href(HealthPaths.exportCSV), .id("csv-export"), .init("download", "hibi-health.csv")) { HealthStrings.csvExport(l) } }
                el("p", .class("muted")) { HealthStrings.csvHelp(l) }
                el("form", .method("post"), .action(HealthPaths.importCSV), .id("csv-form")) {
                    Layout.csrfField(context)
                    el("label", .for("csv-text")) {
                        HealthStrings.csvImport(l)
                        el("textarea", .name("csv"), .id("csv-text"), .init("rows", "4"), .placeholder("weight,64.5,kg,2024-05-01T07:30:00+09:00")) { "" }
                    }
                    el("button", .type("submit"), .class("secondary"), .id("csv-submit")) { HealthStrings.csvImport(l) }
                }
            }
            if !jobs.isEmpty {
                el("section", .class("card")) {
                    el("h2") { HealthStrings.recentImports(l) }
                    el("ul", .id("job-list")) {
                        for job in jobs {
                            el("li") {
                                "\(job.createdAt.formatted(formatter(l, zone))) · \(job.fileName) · \(HealthStrings.jobState(job.state)(l)) · "
                                    + HealthStrings.jobCounts(l).replacingOccurrences(of: "%1", with: CountText.grouped(Int(clamping: job.inserted), l))
                                        .replacingOccurrences(of: "%2", with: CountText.grouped(Int(clamping: job.duplicates), l))
                                if let error = job.errorMessage { br(); el("small", .class("error-text")) { error(l) } }
                                if !job.report.kinds.isEmpty {
                                    el("ul", .class("import-report")) { for line in job.report.lines(l) { el("li") { line } } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func trends(context: HibiRequestContext, type: HealthDataType, selection: TrendSelection, result: TrendResult, units: UnitPreferences) -> Node {
        let l = context.language
        let analysis = result.analysis
        let unit = HealthUnits.label(HealthUnits.displayUnit(for: type, preferences: units), type: type)(l)
        let rangeTitle = switch selection {
        case let .range(range): range.title(l)
        case .all: HealthStrings.allTime(l)
        case .days: "\(result.window.first) – \(result.window.last)"
        }
        let chart = HealthGraphics.chart(points: analysis.trendPoints, unit: unit == "count" ? "" : unit,
                                         display: { HealthUnits.display($0, type: type, preferences: units) }, language: l,
                                         title: "\(type.title(l)) · \(rangeTitle)")
        return page(HealthStrings.trends(l), context: context, tab: HealthPaths.trends) {
            el("h1") { HealthStrings.trends(l) }
            el("form", .method("get"), .action(HealthPaths.trends), .class("filter-form"), .id("trend-form")) {
                el("label") {
                    HealthStrings.type(l)
                    el("select", .name("type"), .id("trend-type"), .data("autosubmit", "true")) {
                        typeOptions(l, selected: type.rawValue, types: HealthDataType.allCases)
                    }
                }
                el("fieldset", .class("range-switch")) {
                    el("legend") { HealthStrings.period(l) }
                    for r in TrendRange.allCases {
                        el("label") {
                            input(.type("radio"), .name("range"), .value(r.rawValue), selection == .range(r) ? .checked : .data("x", ""), .data("autosubmit", "true"))
                            r.title(l)
                        }
                    }
                    el("label") {
                        input(.type("radio"), .name("range"), .value("all"), selection == .all ? .checked : .data("x", ""), .data("autosubmit", "true"))
                        HealthStrings.allTime(l)
                    }
                }
                el("button", .type("submit"), .class("secondary")) { HealthStrings.filter(l) }
            }
            // An empty window while other days hold records of this type (an export from years ago): say where they are.
            if analysis.trendPoints.isEmpty, let span = result.dataSpan {
                el("p", .class("notice"), .id("trend-data-span")) {
                    HealthStrings.fill(HealthStrings.dataRuns(l), HealthStrings.inSentence(type.title(l)), HealthStrings.month(span.first, l), HealthStrings.month(span.last, l))
                    " — "
                    el("a", .href("\(HealthPaths.trends)?type=\(type.rawValue)&from=\(span.first)&to=\(span.last)"), .id("trend-show-data")) {
                        HealthStrings.showIt(l)
                    }
                }
            }
            el("section", .class("card chart-card"), .id("trend-chart")) {
                Node.raw(chart)
                el("p", .class("legend muted")) {
                    el("span", .class("swatch values")) { "" }; " \(HealthStrings.dailyValues(l))  "
                    el("span", .class("swatch average")) { "" }; " \(HealthStrings.movingAverage(l))"
                }
            }
            el("section", .id("insights")) {
                el("h2") { HealthStrings.insights(l) }
                for insight in analysis.insights {
                    el("article", .class("insight \(insight.type.rawValue)")) {
                        el("strong") { insight.title(l) }
                        el("p") { insight.description(l) }
                        if let confidence = insight.confidence {
                            el("small", .class("muted")) { "\(HealthStrings.confidence(l)) \(Int(saturating: (confidence * 100).rounded()))%" }
                        }
                    }
                }
            }
        }
    }

    static func goals(context: HibiRequestContext, user: User, profile: HealthProfile, goals: [(Goal, GoalProgress)], notice: (String, Layout.NoticeKind)?) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        let units = profile.units
        return page(HealthStrings.goals(l), context: context, tab: HealthPaths.goals) {
            el("h1") { HealthStrings.goals(l) }
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            el("section", .class("card"), .id("goal-list")) {
                if goals.isEmpty { el("p", .class("muted")) { HealthStrings.noGoals(l) } }
                for (goal, progress) in goals {
                    el("article", .class("goal \(progress.status.rawValue)"), .data("goal-id", goal.id)) {
                        el("header") {
                            el("strong") { goal.type.title(l) + " → " + HealthFormat.value(goal.targetValue, type: goal.type.rawValue, preferences: units, language: l) }
                            el("span", .class("status-pill \(progress.status.rawValue)")) {
                                switch progress.status { case .active: HealthStrings.active(l); case .achieved: HealthStrings.achieved(l); case .missed: HealthStrings.missed(l) }
                            }
                        }
                        el("progress", [.value(String(Int(saturating: (progress.fraction * 100).rounded()))), .init("max", "100"), .aria("label", goal.type.title(l))]) { "\(Int(saturating: (progress.fraction * 100).rounded()))%" }
                        el("small", .class("muted")) {
                            "\(Int(saturating: (progress.fraction * 100).rounded()))% · " + (goal.deadline.map { "\(HealthStrings.deadline(l)) \($0.formatted(formatter(l, zone, time: .omitted)))" }
                                                                     ?? (GoalRules.isDaily(goal) ? HealthStrings.everyDay(l) : HealthStrings.noDeadline(l)))
                            if let current = progress.currentValue { " · \(HealthFormat.value(current, type: goal.type.rawValue, preferences: units, language: l))" }
                        }
                        el("form", .method("post"), .action(HealthPaths.deleteGoal(goal.id)), .class("inline"), .data("confirm", HealthStrings.deleteGoalConfirm(l))) {
                            Layout.csrfField(context)
                            el("button", .type("submit"), .class("linklike small")) { HealthStrings.delete(l) }
                        }
                    }
                }
            }
            el("section", .class("card")) {
                el("h2") { HealthStrings.newGoal(l) }
                el("form", .method("post"), .action(HealthPaths.goals), .id("goal-form")) {
                    Layout.csrfField(context)
                    el("div", .class("grid")) {
                        el("label", .for("goal-type")) {
                            HealthStrings.type(l)
                            el("select", .name("type"), .id("goal-type")) { typeOptions(l, selected: "steps") }
                        }
                        Layout.field(label: HealthStrings.target(l), id: "goal-target", .name("target"), .type("text"), .init("inputmode", "decimal"), .required)
                        Layout.field(label: HealthStrings.deadlineOptional(l), id: "goal-deadline", .name("deadline"), .type("date"), .aria("describedby", "goal-deadline-help"))
                    }
                    el("small", .id("goal-deadline-help"), .class("field-help")) { HealthStrings.deadlineHelp(l) }
                    el("button", .type("submit"), .id("goal-submit")) { HealthStrings.add(l) }
                }
            }
            el("section", .class("card"), .id("profile")) {
                el("h2") { HealthStrings.profile(l) }
                el("form", .method("post"), .action(HealthPaths.profile), .id("profile-form")) {
                    Layout.csrfField(context)
                    Layout.field(label: HealthStrings.name(l), id: "profile-name", .name("name"), .value(profile.name ?? ""), .maxlength(100))
                    el("div", .class("grid")) {
                        Layout.field(label: HealthStrings.birthDate(l), id: "profile-birth", .name("birth_date"), .type("date"), .value(profile.birthDate ?? ""))
                        Layout.field(label: HealthStrings.height(l), id: "profile-height", .name("height_cm"), .type("text"), .init("inputmode", "decimal"),
                                     .value(profile.heightCm.map { HealthFormat.number($0) } ?? ""))
                        Layout.field(label: "\(HealthStrings.targetWeight(l)) (\(units.weight.rawValue))", id: "profile-target", .name("target_weight"), .type("text"),
                                     .init("inputmode", "decimal"),
                                     .value(profile.targetWeightKg.map { HealthFormat.number(HealthUnits.display($0, type: .weight, preferences: units)) } ?? ""))
                    }
                    el("fieldset", .class("grid")) {
                        el("legend") { HealthStrings.units(l) }
                        unitSelect("weight_unit", UnitPreferences.Weight.allCases.map(\.rawValue), units.weight.rawValue)
                        unitSelect("distance_unit", UnitPreferences.Distance.allCases.map(\.rawValue), units.distance.rawValue)
                        unitSelect("energy_unit", UnitPreferences.Energy.allCases.map(\.rawValue), units.energy.rawValue)
                    }
                    el("button", .type("submit"), .id("profile-submit")) { HealthStrings.save(l) }
                }
            }
        }
    }

    static func unitSelect(_ name: String, _ options: [String], _ selected: String) -> Node {
        el("select", .name(name), .id(name), .aria("label", name)) {
            for option in options { el("option", [.value(option)] + (option == selected ? [.selected] : [])) { option } }
        }
    }

    static func badges(context: HibiRequestContext, user: User, earned: [EarnedBadge], facts: BadgeFacts) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return page(HealthStrings.badges(l), context: context, tab: HealthPaths.badges) {
            el("h1") { HealthStrings.badges(l) }
            el("div", .class("badge-grid"), .id("badge-grid")) {
                for d in BadgeRules.all {
                    let got = earned.first { $0.key == d.key }
                    el("article", .class("badge-card \(got == nil ? "locked" : "earned") tier-\(d.tier.rawValue)"), .data("badge", d.key)) {
                        Node.void("img", [.src(HealthPaths.badgeImage(key: d.key, locked: got == nil)), .init("alt", d.name(l)),
                                          .init("width", "96"), .init("height", "96")])
                        el("strong") { d.name(l) }
                        el("small") { d.description(l) }
                        if let got {
                            el("small", .class("earned-date")) { HealthStrings.earnedOn(l, got.earnedAt.formatted(formatter(l, zone, time: .omitted))) }
                        } else {
                            el("progress", [.value(String(Int(saturating: (BadgeRules.progress(d.requirement, facts: facts) * 100).rounded()))), .init("max", "100"), .aria("label", d.name(l))]) { "" }
                            el("small", .class("muted")) { HealthStrings.locked(l) }
                        }
                    }
                }
            }
        }
    }

    static func reminders(context: HibiRequestContext, reminders: [ReminderResponse], notice: (String, Layout.NoticeKind)?, user: User) -> Node {
        let l = context.language
        let zone = TimeZone(identifier: user.timeZone) ?? .gmt
        return page(HealthStrings.reminders(l), context: context, tab: HealthPaths.reminders) {
            el("h1") { HealthStrings.reminders(l) }
            el("p", .class("muted")) { HealthStrings.remindersHelp(l) }
            if let notice { Layout.notice(notice.0, kind: notice.1) }
            el("section", .class("card"), .id("reminder-list")) {
                if reminders.isEmpty { el("p", .class("muted")) { HealthStrings.noReminders(l) } }
                el("ul") {
                    for r in reminders {
                        el("li", .data("reminder-id", r.id)) {
                            el("strong") { r.time }
                            " \(r.message) "
                            el("small", .class("muted")) {
                                (r.weekdays.isEmpty ? "" : r.weekdays.map { HealthStrings.weekdayNames[$0 - 1](l) }.joined(separator: " ") + " · ")
                                + (r.nextAt.map { HealthStrings.next(l, $0.formatted(formatter(l, zone))) } ?? "")
                                + (r.webhookURL == nil ? "" : " · webhook")
                            }
                            el("form", .method("post"), .action(HealthPaths.deleteReminder(r.id)), .class("inline")) {
                                Layout.csrfField(context)
                                el("button", .type("submit"), .class("linklike small")) { " " + HealthStrings.delete(l) }
                            }
                        }
                    }
                }
            }
            el("section", .class("card")) {
                el("form", .method("post"), .action(HealthPaths.reminders), .id("reminder-form")) {
                    Layout.csrfField(context)
                    el("div", .class("grid")) {
                        Layout.field(label: HealthStrings.time(l), id: "reminder-time", .name("time"), .type("time"), .value("21:00"), .required)
                        Layout.field(label: HealthStrings.message(l), id: "reminder-message", .name("message"), .maxlength(200), .required)
                    }
                    el("fieldset", .class("weekdays")) {
                        el("legend") { HealthStrings.days(l) }
                        for (i, name) in HealthStrings.weekdayNames.enumerated() {
                            el("label") { input(.type("checkbox"), .name("day\(i + 1)")); name(l) }
                        }
                    }
                    Layout.field(label: HealthStrings.webhook(l), id: "reminder-webhook", .name("webhook_url"), .type("url"), .placeholder("https://"))
                    el("button", .type("submit"), .id("reminder-submit")) { HealthStrings.add(l) }
                }
            }
        }
    }

    static func share(context: HibiRequestContext, query: String, options: Set<String>) -> Node {
        let l = context.language
        return page(HealthStrings.share(l), context: context, tab: HealthPaths.share) {
            el("h1") { HealthStrings.share(l) }
            el("p", .class("muted")) { HealthStrings.shareHelp(l) }
            el("form", .method("get"), .action(HealthPaths.share), .id("share-form"), .class("card")) {
                for (key, label) in [("steps", HealthStrings.weekSteps), ("streak", HealthStrings.streak), ("badge", HealthStrings.latestBadge), ("weight", HealthStrings.weightChange), ("name", HealthStrings.includeName)] {
                    el("label") { Node.void("input", [.type("checkbox"), .name(key), .value("1")] + (options.contains(key) ? [.checked] : [])); label(l) }
                }
                el("button", .type("submit"), .class("secondary"), .id("share-preview")) { HealthStrings.preview(l) }
            }
            el("section", .class("card share-preview")) {
                Node.void("img", [.src(HealthPaths.shareCardSVG(query: query)), .id("share-image"), .init("alt", HealthStrings.share(l))])
                el("p") { el("a", .href(HealthPaths.shareCardPNG(query: query)), .role("button"), .id("share-download"), .init("download", "hibi-health.png")) { HealthStrings.downloadPNG(l) } }
            }
        }
    }
}
