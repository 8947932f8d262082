import Foundation

enum DiaryViews {
    struct ListState {
        var entries: [DiaryEntry]
        var total: Int
        var page: Int
        var perPage: Int
        var query: String
        var mood: Mood?
        var tag: String
        var from: String
        var to: String
        var allTags: [String]
        var notice: (String, Layout.NoticeKind)?
    }

    static func head(_ context: HibiRequestContext) -> Node {
        link(.init("rel", "stylesheet"), .href("/static/diary.css"))
    }

    static func subnav(_ context: HibiRequestContext, current: String) -> Node {
        let l = context.language
        let items: [(String, Text)] = [(DiaryPaths.list, DiaryStrings.entries), (DiaryPaths.stats, DiaryStrings.statistics), (DiaryPaths.calendar, DiaryStrings.calendar), (DiaryPaths.data, DiaryStrings.export), (DiaryPaths.settings, UnlockStrings.settings)]
        return el("nav", .class("subnav section-nav"), .aria("label", CommonStrings.diary(l))) {
            el("ul") {
                for (path, title) in items {
                    el("li") { el("a", [.href(path)] + (current == path ? [.aria("current", "page")] : [])) { title(l) } }
                }
                if current != DiaryPaths.new {
                    el("li", .class("push")) { el("a", .href(DiaryPaths.new), .role("button"), .id("new-entry")) { "＋ " + DiaryStrings.newEntry(l) } }
                }
            }
        }
    }

    static func list(context: HibiRequestContext, user: User, state: ListState) -> Node {
        let l = context.language
        let filtered = !state.query.isEmpty || state.mood != nil || !state.tag.isEmpty || !state.from.isEmpty || !state.to.isEmpty
        return Layout.page(title: CommonStrings.diary(l), context: context, current: DiaryPaths.list) {
            head(context)
            el("h1") { CommonStrings.diary(l) }
            subnav(context, current: DiaryPaths.list)
            if let (text, kind) = state.notice { Layout.notice(text, kind: kind) }
            el("form", .method("get"), .action(DiaryPaths.list), .class("diary-filters card"), .role("search")) {
                input(.type("search"), .name("q"), .value(state.query), .placeholder(DiaryStrings.searchPlaceholder(l)), .aria("label", DiaryStrings.search(l)), .id("search"))
                // Folded on a phone unless a filter is in use (diary.js opens it on wider screens).
                el("details", [.class("filter-fold"), .id("diary-filter-fold")] + (filtered ? [.init("open", nil)] : [])) {
                el("summary") { DiaryStrings.filters(l) }
                el("div", .class("grid")) {
                    el("select", .name("mood"), .aria("label", DiaryStrings.mood(l))) {
                        el("option", .value("")) { DiaryStrings.anyMood(l) }
                        for mood in Mood.allCases {
                            el("option", [.value(mood.rawValue)] + (state.mood == mood ? [.selected] : [])) { "\(mood.emoji) \(mood.label(l))" }
                        }
                    }
                    el("select", .name("tag"), .aria("label", DiaryStrings.tag(l))) {
                        el("option", .value("")) { DiaryStrings.tags(l) }
                        for tag in state.allTags {
                            el("option", [.value(tag)] + (state.tag.lowercased() == tag.lowercased() ? [.selected] : [])) { "#" + tag }
                        }
                    }
                    input(.type("date"), .name("from"), .value(state.from), .aria("label", DiaryStrings.from(l)))
                    input(.type("date"), .name("to"), .value(state.to), .aria("label", DiaryStrings.to(l)))
                }
                }
                el("div", .class("filter-actions")) {
                    el("button", .type("submit")) { DiaryStrings.filter(l) }
                    if filtered { el("a", .href(DiaryPaths.list), .role("button"), .class("secondary outline")) { DiaryStrings.clear(l) } }
                }
            }
            if state.entries.isEmpty {
                el("section", .class("empty-state card")) {
                    el("p", .class("empty-icon"), .aria("hidden", "true")) { "📔" }
                    el("p") { filtered ? DiaryStrings.noResults(l) : DiaryStrings.emptyDiary(l) }
                    if !filtered { el("a", .href(DiaryPaths.new), .role("button")) { DiaryStrings.newEntry(l) } }
                }
            } else {
                el("div", .class("entry-days"), .id("entries")) {
                    for day in DiaryRules.groupByDay(state.entries, timeZone: TimeZone(identifier: user.timeZone) ?? .gmt) {
                        el("section", .class("entry-day"), .data("day", day.key)) {
                            el("h2", .class("day-heading")) {
                                el("a", .href(DayPage.path(day.key)), .init("title", DiaryStrings.openDay(l))) { formatDay(day.entries[0].date, user: user, language: l) }
                            }
                            el("ol", .class("entry-list")) {
                                for entry in day.entries { entryCard(entry, user: user, language: l) }
                            }
                        }
                    }
                }
                pagination(state: state, language: l)
            }
            el("script", .src("/static/diary.js"), .init("defer", nil))
        }
    }

    /// One entry: the time is its one link (stretched over the card by CSS), the text stays text, and a
    /// photo shows as a thumbnail.
    static func entryCard(_ entry: DiaryEntry, user: User, language l: Language) -> Node {
        el("li", .class("entry-card card"), .data("entry-id", entry.id)) {
            if let first = entry.photos.first {
                el("img", .src(DiaryPaths.thumbnail(entry.id, first.id)), .class("entry-thumb"), .init("alt", ""),
                   .init("loading", "lazy"), .init("width", "72"), .init("height", "72"))
            } else {
                el("div", .class("entry-mood"), .init("style", "--mood: \(entry.confirmedMood?.color ?? "#ced4da")"), .aria("hidden", "true")) {
                    entry.confirmedMood?.emoji ?? "·"
                }
            }
            el("div", .class("entry-body")) {
                el("p", .class("entry-meta")) {
                    el("a", .href(DiaryPaths.entry(entry.id)), .class("entry-link")) {
                        el("time", .init("datetime", ISO8601DateFormatter().string(from: entry.date))) { formatTime(entry.date, user: user, language: l) }
                    }
                    if let mood = entry.confirmedMood { el("span", .class("entry-mood-label")) { "\(mood.emoji) \(mood.label(l))" } }
                    if entry.photos.count > 1 {
                        el("span", .class("photo-count"), .aria("label", DiaryStrings.photoCount(l, entry.photos.count))) { "📷 \(entry.photos.count)" }
                    }
                }
                if !entry.text.isEmpty { el("p", .class("entry-excerpt")) { excerpt(entry.text) } }
                if !entry.tags.isEmpty {
                    el("p", .class("tags")) { for tag in entry.tags { el("span", .class("tag")) { "#" + tag } } }
                }
            }
        }
    }

    static func pagination(state: ListState, language l: Language) -> Node {
        let pages = max(1, (state.total + state.perPage - 1) / state.perPage)
        func link(_ page: Int) -> String {
            var items = [URLQueryItem(name: "page", value: String(page))]
            if !state.query.isEmpty { items.append(.init(name: "q", value: state.query)) }
            if let mood = state.mood { items.append(.init(name: "mood", value: mood.rawValue)) }
            if !state.tag.isEmpty { items.append(.init(name: "tag", value: state.tag)) }
            if !state.from.isEmpty { items.append(.init(name: "from", value: state.from)) }
            if !state.to.isEmpty { items.append(.init(name: "to", value: state.to)) }
            var components = URLComponents()
            components.queryItems = items
            return DiaryPaths.list + (components.string ?? "")
        }
        return el("nav", .class("pagination"), .aria("label", "pagination")) {
            if state.page > 1 { el("a", .href(link(state.page - 1)), .init("rel", "prev")) { "← " + DiaryStrings.previous(l) } } else { el("span") { "" } }
            el("span", .class("muted")) { DiaryStrings.pageOf(l, "\(state.page) / \(pages)") + " · \(state.total)" }
            if state.page < pages { el("a", .href(link(state.page + 1)), .init("rel", "next")) { DiaryStrings.next(l) + " →" } } else { el("span") { "" } }
        }
    }

    struct FormState {
        var entry: DiaryEntry?
        var date: String
        var time: String
        var text: String
        var tags: String
        var mood: Mood?
        var error: String?
    }

    static func form(context: HibiRequestContext, state: FormState) -> Node {
        let l = context.language
        let editing = state.entry != nil
        let action = state.entry.map { DiaryPaths.edit($0.id) } ?? DiaryPaths.new
        return Layout.page(title: editing ? DiaryStrings.editEntry(l) : DiaryStrings.newEntry(l), context: context, current: DiaryPaths.list) {
            head(context)
            el("h1") { editing ? DiaryStrings.editEntry(l) : DiaryStrings.newEntry(l) }
            subnav(context, current: editing ? "" : DiaryPaths.new)
            el("article", .class("card entry-form")) {
                if let error = state.error { Layout.notice(error, kind: .error) }
                el("form", .method("post"), .action(action), .init("enctype", "multipart/form-data"), .id("entry-form"),
               .data("draft-offline", DiaryStrings.draftOffline(l)), .data("draft-restored", DiaryStrings.draftRestored(l))) {
                    Layout.csrfField(context)
                    el("div", .class("grid")) {
                        Layout.field(label: DiaryStrings.date(l), id: "date", .name("date"), .type("date"), .value(state.date), .required)
                        Layout.field(label: DiaryStrings.time(l), id: "time", .name("time"), .type("time"), .value(state.time))
                    }
                    el("label", .for("text")) {
                        DiaryStrings.text(l)
                        el("textarea", .id("text"), .name("text"), .init("rows", "8"), .maxlength(DiaryRules.maxTextLength)) { state.text }
                    }
                    Layout.field(label: DiaryStrings.tags(l), id: "tags", .name("tags"), .value(state.tags), .placeholder(DiaryStrings.tagsHint(l)))
                    el("label", .for("photo")) {
                        DiaryStrings.photos(l)
                        input(.type("file"), .id("photo"), .name("photos"), .init("accept", "image/jpeg,image/png,image/webp"), .init("multiple", nil))
                        el("small", .class("muted")) { DiaryStrings.photoHint(l, String(DiaryRules.maxPhotosPerEntry)) }
                    }
                    if let entry = state.entry, !entry.photos.isEmpty {
                        el("ul", .class("photo-edit-list")) {
                            for (index, photo) in entry.photos.enumerated() {
                                el("li") {
                                    el("img", .src(DiaryPaths.thumbnail(entry.id, photo.id)), .class("entry-thumb"),
                                       .init("alt", DiaryStrings.photoNumber(l, String(index + 1))), .init("width", "72"), .init("height", "72"))
                                    el("label") {
                                        input(.type("checkbox"), .name("remove_photo_" + photo.id), .id("remove-photo-\(index + 1)"))
                                        DiaryStrings.removePhoto(l)
                                    }
                                }
                            }
                        }
                    }
                    el("p", .id("mood-suggestion"), .class("notice info"), .init("hidden", nil), .aria("live", "polite"), .data("no-face", DiaryStrings.noFaceFound(l))) { "" }
                    moodPicker(selected: state.mood, language: l, name: "mood")
                    el("div", .class("form-actions")) {
                        el("button", .type("submit"), .id("save-entry")) { DiaryStrings.save(l) }
                        el("a", .href(state.entry.map { DiaryPaths.entry($0.id) } ?? DiaryPaths.list), .role("button"), .class("secondary outline")) { DiaryStrings.cancel(l) }
                    }
                }
            }
            el("script", .src("/static/diary.js"), .init("defer", nil))
        }
    }

    static func moodPicker(selected: Mood?, language l: Language, name: String) -> Node {
        el("fieldset", .class("mood-picker")) {
            el("legend") { DiaryStrings.mood(l) }
            el("label", .class("mood-option none")) {
                Node.void("input", [.type("radio"), .name(name), .value("")] + (selected == nil ? [.checked] : []))
                el("span") { DiaryStrings.noMood(l) }
            }
            for mood in Mood.allCases {
                el("label", .class("mood-option"), .init("style", "--mood: \(mood.color)")) {
                    Node.void("input", [.type("radio"), .name(name), .value(mood.rawValue), .id("mood-\(mood.rawValue)")] + (selected == mood ? [.checked] : []))
                    el("span") { "\(mood.emoji) \(mood.label(l))" }
                }
            }
        }
    }

    /// What an imported entry brought with it (Day One's star, journal, own time zone, place and weather).
    /// `placePath` is the page of the place (a visit) an entry recorded, when the server has Visits.
    static func importedDetails(_ details: ForeignDetails, entry: DiaryEntry, placePath: ((String) -> String)?, language l: Language) -> Node {
        el("ul", .class("entry-details muted"), .id("entry-details")) {
            if details.starred == true { el("li", .id("entry-starred")) { "★ " + Text(en: "Starred", ja: "スター付き")(l) } }
            if let journal = details.journal { el("li") { Text(en: "Journal: ", ja: "ジャーナル: ")(l) + journal } }
            if let zone = details.timeZone.flatMap(TimeZone.init(identifier:)) {
                el("li", .id("entry-time-zone")) { Text(en: "Written ", ja: "記入 ")(l) + localTime(entry.date, zone) + " (\(zone.identifier))" }
            }
            if let location = details.location {
                el("li", .id("entry-location")) {
                    if let visit = details.visitID, let placePath { el("a", .href(placePath(visit))) { "📍 " + location.label } } else { "📍 " + location.label }
                }
            }
            if let weather = details.weather, !weather.summary.isEmpty { el("li", .id("entry-weather")) { Text(en: "Weather: ", ja: "天気: ")(l) + weather.summary } }
        }
    }

    static func localTime(_ date: Date, _ zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = zone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func detail(context: HibiRequestContext, user: User, entry: DiaryEntry, notice: (String, Layout.NoticeKind)? = nil,
                       details: ForeignDetails? = nil, placePath: ((String) -> String)? = nil) -> Node {
        let l = context.language
        return Layout.page(title: formatDate(entry.date, user: user, language: l), context: context, current: DiaryPaths.list) {
            head(context)
            subnav(context, current: "")
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            el("article", .class("card entry-detail"), .id("entry")) {
                el("header") {
                    el("time", .init("datetime", ISO8601DateFormatter().string(from: entry.date))) { formatDate(entry.date, user: user, language: l) }
                    if let mood = entry.confirmedMood {
                        el("p", .class("confirmed-mood"), .id("confirmed-mood"), .init("style", "--mood: \(mood.color)")) {
                            DiaryStrings.confirmed(l) + ": \(mood.emoji) \(mood.label(l))"
                        }
                    } else {
                        el("p", .class("muted"), .id("confirmed-mood")) { DiaryStrings.notConfirmed(l) }
                    }
                }
                if !entry.photos.isEmpty {
                    el("div", .class("entry-photos" + (entry.photos.count > 1 ? " several" : "")), .id("entry-photos")) {
                        for (index, photo) in entry.photos.enumerated() {
                            el("img", .src(DiaryPaths.photo(entry.id, photo.id)), .class("entry-photo"),
                               .init("alt", DiaryStrings.photoNumber(l, String(index + 1))), .init("loading", index == 0 ? "eager" : "lazy"),
                               .data("mood-source", photo.moodSource ? "true" : "false"))
                        }
                    }
                }
                el("div", .class("entry-text")) {
                    for paragraph in entry.text.components(separatedBy: "\n") { el("p") { paragraph } }
                }
                if !entry.tags.isEmpty {
                    el("p", .class("tags")) { for tag in entry.tags { el("a", .href(DiaryPaths.list(tag: tag)), .class("tag")) { "#" + tag } } }
                }
                if let details, !details.isEmpty { importedDetails(details, entry: entry, placePath: placePath, language: l) }
                if !entry.photos.isEmpty { moodConfirmation(context: context, entry: entry) }
                el("footer", .class("form-actions")) {
                    el("a", .href(DiaryPaths.edit(entry.id)), .role("button"), .class("secondary")) { DiaryStrings.edit(l) }
                    el("form", .method("post"), .action(DiaryPaths.delete(entry.id)), .class("inline"), .data("confirm", DiaryStrings.deleteConfirm(l))) {
                        Layout.csrfField(context)
                        el("button", .type("submit"), .class("secondary outline danger")) { DiaryStrings.delete(l) }
                    }
                }
            }
            el("script", .src("/static/diary.js"), .init("defer", nil))
        }
    }

    /// The estimate is a suggestion: bars for all seven scores, one button to confirm the top mood, or pick another.
    static func moodConfirmation(context: HibiRequestContext, entry: DiaryEntry) -> Node {
        let l = context.language
        guard let scores = entry.moodScores, let top = scores.top else {
            return el("p", .class("muted")) { DiaryStrings.noFaceFound(l) }
        }
        return el("section", .class("mood-estimate"), .id("mood-estimate")) {
            el("h2") { DiaryStrings.estimate(l) }
            el("p", .id("suggestion")) {
                DiaryStrings.suggested(l, "\(top.mood.emoji) " + MoodCalibration.wording(top.mood, confidence: top.confidence, language: l))
            }
            moodBars(scores: scores, language: l)
            // A mood the user chose (in the form or here) is settled: no request to confirm the suggestion,
            // only a way to change it, folded away.
            if let confirmed = entry.confirmedMood {
                el("details", .class("change-mood")) {
                    el("summary") { DiaryStrings.changeMood(l) }
                    moodButtons(context: context, entry: entry, except: confirmed)
                }
            } else {
                el("form", .method("post"), .action(DiaryPaths.mood(entry.id)), .id("confirm-mood")) {
                    Layout.csrfField(context)
                    el("button", .type("submit"), .name("mood"), .value(top.mood.rawValue), .id("confirm-suggestion")) { DiaryStrings.confirmMood(l) }
                    el("p", .class("muted")) { DiaryStrings.pickAnother(l) }
                    buttons(except: top.mood, language: l)
                }
            }
        }
    }

    static func moodButtons(context: HibiRequestContext, entry: DiaryEntry, except: Mood) -> Node {
        el("form", .method("post"), .action(DiaryPaths.mood(entry.id)), .id("confirm-mood")) {
            Layout.csrfField(context)
            buttons(except: except, language: context.language)
        }
    }

    static func buttons(except: Mood, language l: Language) -> Node {
        el("div", .class("mood-buttons")) {
            for mood in Mood.allCases where mood != except {
                el("button", .type("submit"), .name("mood"), .value(mood.rawValue), .class("secondary outline small"), .init("style", "--mood: \(mood.color)")) {
                    "\(mood.emoji) \(mood.label(l))"
                }
            }
        }
    }

    static func moodBars(scores: MoodScores, language l: Language) -> Node {
        el("ul", .class("mood-bars")) {
            for mood in Mood.allCases {
                let value = scores.values[mood] ?? 0
                el("li") {
                    el("span", .class("bar-label")) { "\(mood.emoji) \(mood.label(l))" }
                    el("span", .class("bar"), .init("style", "--value: \(String(format: "%.3f", value)); --mood: \(mood.color)"), .role("img"),
                       .aria("label", "\(mood.label(l)) \(Int(saturating: (value * 100).rounded()))%")) { "" }
                    el("span", .class("bar-value")) { "\(Int(saturating: (value * 100).rounded()))%" }
                }
            }
        }
    }

    static func excerpt(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count > 160 ? String(line.prefix(160)) + "…" : line
    }

    static func formatDay(_ date: Date, user: User, language: Language) -> String {
        date.formatted(Date.FormatStyle(date: .complete, time: .omitted, locale: Locale(identifier: language == .ja ? "ja_JP" : "en_US"),
                                        timeZone: TimeZone(identifier: user.timeZone) ?? .gmt))
    }

    static func formatTime(_ date: Date, user: User, language: Language) -> String {
        date.formatted(Date.FormatStyle(date: .omitted, time: .shortened, locale: Locale(identifier: language == .ja ? "ja_JP" : "en_US"),
                                        timeZone: TimeZone(identifier: user.timeZone) ?? .gmt))
    }

    static func formatDate(_ date: Date, user: User, language: Language) -> String {
        date.formatted(Date.FormatStyle(date: .complete, time: .shortened, locale: Locale(identifier: language == .ja ? "ja_JP" : "en_US"),
                                        timeZone: TimeZone(identifier: user.timeZone) ?? .gmt))
    }
}
