import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// Typed page addresses (issue 12) exist so that a link cannot point at a path no route serves. This
/// walks the web app as a signed-in person with something in every domain, from the first page
/// outwards, and asks for every local link, image, script and GET form it finds: none may answer 404
/// or a server error. Forms that post are not sent (a walker must not delete what it finds). The day
/// page's "add a record" button pointed at a page that never existed until this walked it.
struct EveryLinkAnswersTests {
    static let pageLimit = 400

    /// Local addresses in `href` and `src`, and the `action` of forms that GET, without fragments.
    static func links(in html: String) -> [String] {
        var candidates: [String] = []
        for attribute in ["href=\"", "src=\""] {
            candidates += html.components(separatedBy: attribute).dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
        }
        for form in html.components(separatedBy: "<form").dropFirst() {
            let tag = form.prefix { $0 != ">" }
            guard !tag.contains("method=\"post\""), let action = tag.components(separatedBy: "action=\"").dropFirst().first else { continue }
            candidates += action.split(separator: "\"", maxSplits: 1).first.map { [String($0)] } ?? []
        }
        return candidates.compactMap { raw in
            var link = raw.replacingOccurrences(of: "&amp;", with: "&")
            if let hash = link.firstIndex(of: "#") { link = String(link[..<hash]) }
            return link.hasPrefix("/") && !link.hasPrefix("//") ? link : nil
        }
    }

    @Test func everyLocalLinkOnEveryReachablePageAnswers() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            // Something in every domain, so that their pages and links appear.
            try await browser.get(DiaryPaths.new)
            let entry = try await browser.postMultipart(DiaryPaths.new, fields: ["date": "2026-11-03", "time": "12:00", "text": "Lunch with Mei"],
                                                        several: [("photos", "us.png", TestImages.png)])
            #expect(entry.status == .found, "\(entry.body)")
            try await browser.get(HealthPaths.overview)
            let record = try await browser.post(HealthPaths.records, form: ["type": "steps", "value": "8200", "unit": "count", "start": "2026-11-03T08:00"])
            #expect(record.status == .seeOther || record.status == .found, "\(record.body)")
            try await browser.get("/visits/new")
            let visit = try await browser.post("/visits", form: ["name": "Kyoto Tower", "visited_at": "2026-11-03T10:00",
                                                                 "latitude": "34.9875", "longitude": "135.7592", "labels": "tower"])
            #expect(visit.status == .found, "\(visit.body)")

            var queue = ["/"], seen = Set(["/"]), parsedPaths = Set<String>()
            var broken: [String] = []
            var asked = 0
            while !queue.isEmpty, asked < Self.pageLimit {
                let link = queue.removeFirst()
                let page = try await browser.get(link)
                asked += 1
                if page.status == .notFound || page.status.code >= 500 {
                    broken.append("\(link): \(page.status.code)")
                    continue
                }
                // Each path's HTML is read once (its other queries, such as months of a calendar, are only asked).
                let path = String(link.split(separator: "?", maxSplits: 1).first ?? "")
                guard page.headers[.contentType]?.hasPrefix("text/html") == true, parsedPaths.insert(path).inserted else { continue }
                for found in Self.links(in: page.body) where seen.insert(found).inserted {
                    // Signing out would end the walk; it is a form, but guard against a link too.
                    if found.contains("logout") || found.contains("sign-out") { continue }
                    queue.append(found)
                }
            }
            #expect(asked > 40, "the walk reached only \(asked) addresses")
            #expect(broken.isEmpty, "links that answer nothing: \(broken)")
        }
    }
}
