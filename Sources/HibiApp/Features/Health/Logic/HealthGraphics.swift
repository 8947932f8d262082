import Foundation

/// SVG drawings built from data: badges (after the seed's BadgeView), trend charts and share cards.
public enum HealthGraphics {

    static func iconPath(_ icon: BadgeIcon) -> String {
        switch icon {
        case .star: "M0,-22 L6.5,-7 L22,-6.8 L10,3.5 L13.6,19 L0,11 L-13.6,19 L-10,3.5 L-22,-6.8 L-6.5,-7 Z"
        case .flame: "M0,-24 C8,-12 16,-6 14,6 C12,16 6,20 0,20 C-6,20 -12,16 -14,6 C-15,-2 -9,-6 -6,-12 C-4,-4 -1,-2 2,-4 C4,-10 2,-16 0,-24 Z"
        case .crown: "M-20,12 L-22,-12 L-10,0 L0,-18 L10,0 L22,-12 L20,12 Z M-20,15 L20,15 L20,20 L-20,20 Z"
        case .footprints: "M-10,-20 C-4,-20 -2,-10 -4,-2 C-6,4 -14,4 -15,-4 C-16,-12 -14,-20 -10,-20 Z M-11,6 C-7,6 -6,12 -9,14 C-12,15 -14,12 -13,9 Z M10,-10 C14,-10 16,-2 15,5 C14,12 6,12 4,6 C2,-2 5,-10 10,-10 Z M9,16 C13,16 13,21 10,23 C7,24 5,21 6,18 Z"
        case .target: "M0,-21 A21,21 0 1,1 -0.1,-21 Z M0,-13 A13,13 0 1,0 0.1,-13 Z M0,-6 A6,6 0 1,1 -0.1,-6 Z"
        case .feather: "M16,-20 C-4,-18 -14,0 -14,14 L-18,20 L-15,21 L-10,15 C4,15 18,2 16,-20 Z"
        case .medal: "M-10,-24 L-2,-6 L2,-6 L10,-24 Z M0,-6 A14,14 0 1,1 -0.1,-6 Z"
        case .hundred: "M-20,-10 L-14,-14 L-14,14 L-18,14 L-18,-8 Z M-8,0 A7,12 0 1,1 -7.9,0.1 Z M10,0 A7,12 0 1,1 10.1,0.1 Z"
        }
    }

    /// A round badge in its tier's colours; locked badges are faded and carry a padlock, like the seed's view.
    public static func badge(_ definition: BadgeDefinition, earned: Bool, size: Int = 120, language: Language) -> String {
        let c = definition.tier.colors
        let id = "b-\(definition.key)-\(earned ? "e" : "l")"
        let lock = earned ? "" : """
        <g transform="translate(25,25)" opacity="0.9"><circle r="11" fill="#6b7280"/><rect x="-6" y="-2" width="12" height="9" rx="1.5" fill="#fff"/>\
        <path d="M-4,-2 V-5 A4,4 0 0,1 4,-5 V-2" stroke="#fff" stroke-width="2" fill="none"/></g>
        """
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="-50 -50 100 100" width="\(size)" height="\(size)" role="img" \
        aria-label="\(escapeHTML(definition.name(language)))\(earned ? "" : " (locked)")" class="badge-image \(earned ? "earned" : "locked")">\
        <defs><radialGradient id="\(id)-fill" cx="30%" cy="30%" r="75%"><stop offset="0" stop-color="\(c.primary)"/>\
        <stop offset="1" stop-color="\(c.secondary)"/></radialGradient>\
        <linearGradient id="\(id)-ring" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="\(c.accent)"/>\
        <stop offset="1" stop-color="\(c.primary)"/></linearGradient></defs>\
        <g transform="scale(\(earned ? "1" : "0.8"))">\
        <circle r="40" fill="url(#\(id)-fill)" opacity="\(earned ? "1" : "0.3")"/>\
        <circle r="43" fill="none" stroke="url(#\(id)-ring)" stroke-width="3" opacity="\(earned ? "1" : "0.2")"/>\
        <path d="\(iconPath(definition.icon))" fill="\(c.accent)" stroke="\(c.secondary)" stroke-width="1" fill-rule="evenodd" opacity="\(earned ? "1" : "0.4")"/>\
        \(lock)</g></svg>
        """
    }

    /// A line chart of values and their moving average, sized by viewBox so it scales to any screen.
    public static func chart(points: [TrendPoint], unit: String, display: (Double) -> Double, language: Language, title: String) -> String {
        let width = 640.0, height = 260.0, right = 12.0, top = 14.0, bottom = 30.0
        guard !points.isEmpty else {
            return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 120" class="trend-chart" role="img" aria-label="\(escapeHTML(title))">\
            <text x="320" y="64" text-anchor="middle" fill="#6b7280" font-size="16">\(escapeHTML(Text(en: "No data in this range yet", ja: "この期間のデータはまだありません")(language)))</text></svg>
            """
        }
        let values = points.map { display($0.value) } + points.map { display($0.movingAverage) }
        guard let lowest = values.min(), let highest = values.max(), let firstPoint = points.first, let lastPoint = points.last else { return "" }
        // Round ticks, and a left margin as wide as the longest label (about 6.5 units a digit at font size 11).
        let scale = NiceScale(low: lowest, high: highest)
        let low = scale.low, high = scale.high
        let tickLabels = scale.ticks.map { (value: $0, label: HealthFormat.grouped($0, maxFractionDigits: scale.fractionDigits, language: language)) }
        let left = 14 + 6.5 * Double(tickLabels.map(\.label.count).max() ?? 4)
        let t0 = firstPoint.date.timeIntervalSince1970, t1 = max(lastPoint.date.timeIntervalSince1970, t0 + 1)
        func x(_ date: Date) -> Double { points.count == 1 ? left + (width - left - right) / 2 : left + (date.timeIntervalSince1970 - t0) / (t1 - t0) * (width - left - right) }
        func y(_ v: Double) -> Double { top + (1 - (v - low) / (high - low)) * (height - top - bottom) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(saturating: width)) \(Int(height))\" class=\"trend-chart\" role=\"img\" aria-label=\"\(escapeHTML(title))\">"
        for tick in tickLabels {
            let yy = y(tick.value)
            svg += "<line x1=\"\(f(left))\" x2=\"\(width - right)\" y1=\"\(f(yy))\" y2=\"\(f(yy))\" stroke=\"#e5e7eb\"/>"
            svg += "<text class=\"y-label\" x=\"\(f(left - 6))\" y=\"\(f(yy + 4))\" text-anchor=\"end\" font-size=\"11\" fill=\"#6b7280\">\(escapeHTML(tick.label))</text>"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .ja ? "ja_JP" : "en_US")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.setLocalizedDateFormatFromTemplate("Md")
        let labelEvery = max(1, points.count / 6)
        for (i, p) in points.enumerated() where i % labelEvery == 0 {
            // Labels at the ends are anchored inwards so they are never cut by the chart's edge.
            let px = x(p.date)
            let anchor = px > width - right - 24 ? "end" : (px < left + 16 ? "start" : "middle")
            svg += "<text class=\"x-label\" x=\"\(f(px))\" y=\"\(f(height - 10))\" text-anchor=\"\(anchor)\" font-size=\"11\" fill=\"#6b7280\">\(escapeHTML(formatter.string(from: p.date)))</text>"
        }
        let bars = points.map { "\(f(x($0.date))),\(f(y(display($0.value))))" }.joined(separator: " ")
        let avg = points.map { "\(f(x($0.date))),\(f(y(display($0.movingAverage))))" }.joined(separator: " ")
        svg += "<polyline points=\"\(bars)\" fill=\"none\" stroke=\"#f59f00\" stroke-width=\"1.5\" opacity=\"0.7\"/>"
        for p in points {
            svg += "<circle class=\"point\" cx=\"\(f(x(p.date)))\" cy=\"\(f(y(display(p.value))))\" r=\"3\" fill=\"#f59f00\"><title>\(escapeHTML(HealthFormat.grouped(display(p.value), language: language))) \(escapeHTML(unit))</title></circle>"
        }
        svg += "<polyline class=\"moving-average\" points=\"\(avg)\" fill=\"none\" stroke=\"#d9480f\" stroke-width=\"3\" stroke-linejoin=\"round\"/>"
        svg += "<text x=\"\(left)\" y=\"11\" font-size=\"11\" fill=\"#6b7280\">\(escapeHTML(unit))</text></svg>"
        return svg
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    public struct ShareSummary: Sendable {
        public var title: String
        public var lines: [(String, String)]
        public var badge: BadgeDefinition?
        public var name: String?
        public var footer: String
    }

    /// A 1200×630 card (the size link previews use). Only what the summary carries is drawn.
    /// Every text has a box of its own: the title and the name on separate lines, the figures in a grid that
    /// ends above the footer, each text shrunk (then shortened with "…") to its box's width. With every option
    /// ticked the title ran into the name, the fourth figure overlapped the footer and was cut at the bottom.
    public static func shareCard(_ summary: ShareSummary, language: Language) -> String {
        let font = "font-family=\"Noto Sans CJK JP, sans-serif\""
        func text(_ kind: String, x: Int, y: Int, size: Int, _ content: String, weight: Bool = false, fill: String, anchor: String? = nil) -> String {
            "<text class=\"\(kind)\" x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\"" + (weight ? " font-weight=\"700\"" : "")
                + (anchor.map { " text-anchor=\"\($0)\"" } ?? "") + " fill=\"\(fill)\" \(font)>\(escapeHTML(content))</text>"
        }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">\
        <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff4e6"/><stop offset="1" stop-color="#ffe8cc"/></linearGradient></defs>\
        <rect width="1200" height="630" fill="url(#bg)"/>\
        <rect x="60" y="60" width="64" height="64" rx="14" fill="#d9480f"/>\
        <text x="92" y="105" text-anchor="middle" font-size="38" font-weight="700" fill="#fff" \(font)>日</text>
        """
        let title = CardText.fit(summary.title, width: 1140 - 144, size: 40, minimum: 24)
        svg += text("card-title", x: 144, y: 104, size: title.size, title.text, weight: true, fill: "#7a3300")
        var top = 190
        if let name = summary.name, !name.isEmpty {
            let fitted = CardText.fit(name, width: 1140 - 144, size: 28, minimum: 20)
            svg += text("card-name", x: 144, y: 150, size: fitted.size, fitted.text, fill: "#7a3300")
            top = 215
        }
        // The figures: one column for one or two, a 2×2 grid for three or four, left of the badge if there is one.
        let lines = Array(summary.lines.prefix(4))
        let right = summary.badge == nil ? 1140 : 790
        let columns = lines.count > 2 ? 2 : 1
        let gap = 40
        let columnWidth = (right - 80 - gap * (columns - 1)) / columns
        let rowHeight = 150
        for (index, line) in lines.enumerated() {
            let column = columns == 2 ? index % 2 : 0
            let row = columns == 2 ? index / 2 : index
            let x = 80 + column * (columnWidth + gap)
            let y = top + row * rowHeight
            let label = CardText.fit(line.0, width: columnWidth, size: 28, minimum: 20)
            let value = CardText.fit(line.1, width: columnWidth, size: 56, minimum: 30)
            svg += text("card-label", x: x, y: y + 28, size: label.size, label.text, fill: "#6b4a2b")
            svg += text("card-value", x: x, y: y + 28 + 26 + value.size, size: value.size, value.text, weight: true, fill: "#d9480f")
        }
        if let badge = summary.badge {
            let inner = HealthGraphics.badge(badge, earned: true, size: 240, language: language)
            svg += "<g class=\"card-badge\" transform=\"translate(840,\(top - 10))\">\(inner)</g>"
            let badgeName = CardText.fit(badge.name(language), width: 300, size: 30, minimum: 20)
            svg += text("card-badge-name", x: 960, y: top + 270, size: badgeName.size, badgeName.text, weight: true, fill: "#7a3300", anchor: "middle")
        }
        svg += text("card-footer", x: 80, y: 595, size: 22, summary.footer, fill: "#9a6b3f") + "</svg>"
        return svg
    }

    /// A night's stages as rows of bars against the clock (in bed at the bottom, awake at the top), from
    /// the merged samples of each stage: where two sources recorded the same stage it is drawn once.
    public static func sleepChart(_ night: SleepNights.Night, timeZone: TimeZone, language: Language) -> String? {
        let rows: [SleepNights.Stage] = [.awake, .rem, .core, .deep, .asleep, .inBed].filter { !(night.intervals[$0] ?? []).isEmpty }
        guard !rows.isEmpty, night.end > night.start else { return nil }
        let colors: [SleepNights.Stage: String] = [.awake: "#f08c00", .rem: "#4dabf7", .core: "#1c7ed6", .deep: "#364fc7",
                                                   .asleep: "#5c7cfa", .inBed: "#adb5bd"]
        let width = 640.0, left = 96.0, right = 12.0, rowHeight = 24.0, top = 6.0
        let height = top + Double(rows.count) * rowHeight + 24
        let t0 = Double(night.start), span = Double(night.end - night.start)
        func x(_ t: Int64) -> Double { left + (Double(t) - t0) / span * (width - left - right) }
        let label = SleepStrings.chartLabel(language)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(saturating: width)) \(Int(saturating: height))\" class=\"sleep-chart\" role=\"img\" aria-label=\"\(escapeHTML(label))\">"
        for (index, stage) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y + 16))\" text-anchor=\"end\" font-size=\"11\" fill=\"#495057\">\(escapeHTML(SleepStrings.stage(stage)(language)))</text>"
            for range in night.intervals[stage] ?? [] {
                let x0 = x(range.lowerBound), w = max(1, x(range.upperBound) - x0)
                svg += "<rect class=\"stage-\(stage.rawValue)\" x=\"\(f(x0))\" y=\"\(f(y + 3))\" width=\"\(f(w))\" height=\"\(f(rowHeight - 6))\" rx=\"2\" fill=\"\(colors[stage] ?? "#868e96")\"/>"
            }
        }
        // Whole local hours along the bottom, at most eight labels.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language == .ja ? "ja_JP" : "en_US")
        formatter.timeZone = timeZone
        formatter.dateFormat = "H:mm"
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(night.start))))
        let firstHour = (night.start + offset + 3599) / 3600 * 3600 - offset
        let hours = max(1, Int((night.end - firstHour) / 3600) + 1)
        let step = Int64(max(1, (hours + 7) / 8)) * 3600
        var tick = firstHour
        while tick <= night.end {
            let px = x(tick)
            svg += "<line x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top))\" y2=\"\(f(height - 20))\" stroke=\"#e9ecef\"/>"
            svg += "<text x=\"\(f(px))\" y=\"\(f(height - 6))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#6b7280\">\(escapeHTML(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(tick)))))</text>"
            tick += step
        }
        return svg + "</svg>"
    }
}

/// How wide a line of the share card will be, without a font engine: a generous estimate per character
/// (a CJK character is a full em, Latin capitals and digits about 0.62 em), so a fitted text never
/// reaches its neighbour in rsvg-convert or a browser.
enum CardText {
    static func width(_ text: String, size: Int) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x20: ems += 0.3
            case 0x2E80...: ems += 1.0
            case 0x41...0x5A, 0x30...0x39: ems += 0.66
            case 0x61...0x7A: ems += 0.56
            default: ems += 0.6
            }
        }
        return ems * Double(size)
    }

    /// The text at the largest size from `size` down to `minimum` that fits `width`; at the minimum, shortened with "…".
    static func fit(_ text: String, width: Int, size: Int, minimum: Int) -> (text: String, size: Int) {
        var current = size
        while current > minimum, Self.width(text, size: current) > Double(width) { current -= 2 }
        guard Self.width(text, size: current) > Double(width) else { return (text, current) }
        var characters = Array(text)
        while !characters.isEmpty, Self.width(String(characters) + "…", size: current) > Double(width) { characters.removeLast() }
        return (String(characters).trimmingCharacters(in: .whitespaces) + "…", current)
    }
}
