import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

/// Issue 29, item 5: a 20% guess was preselected on the new-entry form ("😮 Surprised · 20%"), and saving
/// without touching it stored "Your mood: Surprised" while the entry said "perhaps surprised, unsure".
@Suite(.serialized) struct UnsureMoodTests {
    /// A face the model barely reads: surprise on top at 20%, the rest spread evenly.
    struct UnsureMoods: MoodEstimating {
        func estimateMood(imageData: Data) async throws -> MoodScores? {
            var values = Dictionary(uniqueKeysWithValues: Mood.allCases.map { ($0, 0.8 / 6) })
            values[.surprise] = 0.2
            return MoodScores(values)
        }
    }

    struct Estimate: Decodable { let suggestedMood: Mood?; let strength: String?; let wording: String?; let preselect: Bool }

    @Test func anUnsureGuessIsShownInWordsAndNeverChosenForThePerson() async throws {
        try await TestApp.run(moods: UnsureMoods()) { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            let photo = "data:image/jpeg;base64," + TestImages.jpeg.base64EncodedString()
            try await browser.get("/diary/new")
            let headers: HTTPFields = [.contentType: "application/json", HTTPField.Name("X-CSRF-Token")!: browser.csrf ?? ""]
            let page = try await browser.send("/api/v1/diary/mood-estimate", method: .post, headers: headers,
                                              body: .init(string: #"{"photo":"\#(photo)"}"#))
            #expect(page.status == .ok, "\(page.body)")
            let estimate = try JSONDecoder().decode(Estimate.self, from: Data(page.body.utf8))
            #expect(estimate.suggestedMood == .surprise && estimate.strength == "unsure" && !estimate.preselect)
            #expect(estimate.wording == "perhaps surprised, unsure")
            browser.acceptLanguage = "ja"
            let japanese = try await browser.send("/api/v1/diary/mood-estimate", method: .post, headers: headers,
                                                  body: .init(string: #"{"photo":"\#(photo)"}"#))
            #expect(try JSONDecoder().decode(Estimate.self, from: Data(japanese.body.utf8)).wording == "驚きかもしれません(不確か)")
            browser.acceptLanguage = "en"

            // The form as the browser sends it when nothing was ticked: no mood field. No mood is confirmed.
            try await browser.get("/diary/new")
            let created = try await browser.postMultipart("/diary/new", fields: ["date": "2026-11-20", "time": "21:15", "text": "A quiet evening"],
                                                          files: ["photo": ("me.jpg", TestImages.jpeg)])
            #expect(created.status == .found)
            let entry = try await browser.get(try #require(created.location))
            #expect(entry.body.contains("perhaps surprised, unsure"))
            #expect(!entry.body.contains("Your mood:"))
            #expect(entry.body.contains("Mood not confirmed yet"))
        }
    }

    /// The form script ticks only what the server says may be ticked, and shows words, not a percentage.
    @Test func theFormScriptFollowsTheServer() throws {
        let script = try String(contentsOfFile: TestApp.resourcesDirectory + "/web/diary.js", encoding: .utf8)
        #expect(script.contains("if (body.preselect) option.checked = true;"))
        #expect(!script.contains("body.confidence * 100"))
    }
}
