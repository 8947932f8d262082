import Foundation
import Testing
@testable import HibiApp

/// Issue 29, item 1, through the real router: "12,000" steps was saved as 12, a goal of "10,000" became 10
/// and was "reached" with the badge, and the badge outlived the goal.
@Suite(.serialized) struct TypedNumberTests {
    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    @Test func twelveThousandStepsTypedWithACommaAreTwelveThousand() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            for (hour, (typed, language)) in [("12,000", "en"), ("１２，０００", "ja"), ("12\u{202F}000", "en")].enumerated() {
                browser.acceptLanguage = language
                let saved = try await browser.post(HealthPaths.records, form: ["type": "steps", "value": typed, "unit": "count", "start": "2024-05-01T0\(hour + 7):00"])
                #expect(saved.status == .seeOther, "\(typed)")
            }
            let records = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records"))
            #expect(records.map(\.value) == [12000, 12000, 12000])

            // "1,5" is refused, in the person's language, with both ways to write it; nothing is stored.
            browser.acceptLanguage = "en"
            let english = try await browser.post(HealthPaths.records, form: ["type": "weight", "value": "1,5", "unit": "kg", "start": "2024-05-01T08:00"])
            #expect(english.status == .badRequest)
            #expect(english.body.contains("write 1.5 for a decimal, or 15 for a whole number"))
            browser.acceptLanguage = "ja"
            let japanese = try await browser.post(HealthPaths.records, form: ["type": "weight", "value": "72,5", "unit": "kg", "start": "2024-05-01T08:00"])
            #expect(japanese.status == .badRequest)
            #expect(japanese.body.contains("小数なら 72.5、整数なら 725"))
            #expect(try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records")).count == 3)
        }
    }

    @Test func aGoalOfTenThousandIsNotReachedByTwelveSteps() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":12,"start":"\#(Self.iso(Date().addingTimeInterval(-120)))"}"#)
            let set = try await browser.post(HealthPaths.goals, form: ["type": "steps", "target": "10,000", "deadline": ""])
            #expect(set.status == .ok)
            let goals = try APIClient.decode([GoalResponse].self, try await api.call(.get, "/api/v1/health/goals"))
            #expect(goals.map(\.targetValue) == [10000])
            #expect(goals.first?.status == "active")
            let badges = try APIClient.decode([BadgeResponse].self, try await api.call(.get, "/api/v1/health/badges"))
            #expect(badges.first { $0.key == "goal-1" }?.earned == false)
            #expect(!(try await browser.get(HealthPaths.goals)).body.contains("Achieved"))
        }
    }

    /// A goal reached only because it was wrong (10 instead of 10,000): deleting it takes its badge away,
    /// so the weekly review and its share card no longer show "Goal reached". Records' badges stay.
    @Test func deletingTheGoalTakesItsBadgeAway() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":12,"start":"\#(Self.iso(Date().addingTimeInterval(-120)))"}"#)
            let goal = try APIClient.decode(GoalResponse.self, try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10}"#))
            func earned() async throws -> Set<String> {
                Set(try APIClient.decode([BadgeResponse].self, try await api.call(.get, "/api/v1/health/badges")).filter(\.earned).map(\.key))
            }
            #expect(try await earned() == ["first-step", "goal-1"])
            let deleted = try await browser.post(HealthPaths.deleteGoal(goal.id), form: [:])
            #expect(deleted.status == .seeOther || deleted.status == .found)
            #expect(try await earned() == ["first-step"])
        }
    }

    /// The visit form reads with the same parser: "35,68" was taken for 35.68 by turning "," into "."; "35,681"
    /// is thirty-five thousand in English, out of a latitude's range, and said so.
    @Test func aVisitsLatitudeWithADecimalCommaIsRefusedNotGuessed() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/visits/new")
            let refused = try await browser.post("/visits", form: ["name": "Tokyo Station", "latitude": "35,68", "longitude": "139.767"])
            #expect(refused.status == .badRequest)
            #expect(refused.body.contains("latitude: “35,68” can be read two ways: write 35.68 for a decimal, or 3,568 for a whole number"))
            let thousands = try await browser.post("/visits", form: ["name": "Tokyo Station", "latitude": "35,681", "longitude": "139.767"])
            #expect(thousands.status == .badRequest && thousands.body.contains("Latitude must be a number from -90 to 90."))
            let saved = try await browser.post("/visits", form: ["name": "Tokyo Station", "latitude": "35.681", "longitude": "１３９．７６７"])
            #expect(saved.status == .seeOther || saved.status == .found)
        }
    }
}
