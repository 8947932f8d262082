import Foundation
import Testing
@testable import HibiApp

/// "10,000 steps a day": a goal without a deadline, and a goal already met is reached when it is set.
@Suite(.serialized) struct GoalWithoutDeadlineTests {
    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    @Test func aDailyGoalCountsTodayAndIsReachedWhenSetIfAlreadyMet() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            _ = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":12000,"start":"\#(Self.iso(Date().addingTimeInterval(-120)))"}"#)
            let created = try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10000}"#)
            #expect(created.status == .created)
            let goal = try APIClient.decode(GoalResponse.self, created)
            #expect(goal.deadline == nil)
            #expect(goal.status == "achieved")
            #expect(goal.achievedAt != nil)
            #expect(!created.body.contains("\"deadline\""))
            let badges = try APIClient.decode([BadgeResponse].self, try await api.call(.get, "/api/v1/health/badges"))
            #expect(badges.first { $0.key == "goal-1" }?.earned == true, "reached when set, not when the next record arrives")
            // Null is "no deadline" too; a deadline in the past is still refused.
            #expect(try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"weight","targetValue":60,"deadline":null}"#).status == .created)
            #expect(try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10,"deadline":"2001-01-01T00:00:00Z"}"#).status == .badRequest)
        }
    }

    @Test func rulesForAGoalWithoutADeadline() {
        let now = Date(timeIntervalSince1970: 1_717_200_000)
        let daily = Goal(id: "d", type: .steps, targetValue: 10_000, deadline: nil, createdAt: now.addingTimeInterval(-86400 * 40), startValue: nil,
                         achievedAt: now.addingTimeInterval(-86400 * 3))
        #expect(GoalRules.isDaily(daily))
        // Today's 4,000 steps: today is not reached yet, and a day without a deadline is never "missed".
        #expect(GoalRules.progress(goal: daily, total: 4000, latest: nil, now: now) == GoalProgress(currentValue: 4000, fraction: 0.4, status: .active))
        #expect(GoalRules.progress(goal: daily, total: 10_500, latest: nil, now: now).status == .achieved)
        let level = Goal(id: "w", type: .weight, targetValue: 60, deadline: nil, createdAt: now, startValue: 64, achievedAt: nil)
        #expect(!GoalRules.isDaily(level))
        #expect(GoalRules.progress(goal: level, total: 0, latest: 62, now: now.addingTimeInterval(86400 * 400)).status == .active)
        #expect(GoalRules.progress(goal: level, total: 0, latest: 59.5, now: now).status == .achieved)
    }
}
