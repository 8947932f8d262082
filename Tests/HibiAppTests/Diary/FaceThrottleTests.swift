import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import HibiApp

/// Issue 13, item 3: twelve face attempts started at once were all evaluated (the allowance is five).
/// Each challenge now reserves an attempt atomically when it starts.
@Suite(.serialized) struct FaceThrottleTests {
    @Test func twelveChallengesStartedAtOnceGetTheAllowanceAndNoServerError() async throws {
        let config = try await ThrottleTests.fileConfig()
        let core = try await AppCore.open(config, logger: TestApp.quietLogger, face: .given(analyzer: ScriptedFaceAnalyzer(), moods: nil))
        let app = await buildApplication(core: core)
        try await app.test(.router) { client in
            let browser = Browser(client: client)
            try await browser.setUp()
            try await browser.unlockDiary()
            let tests = FaceUnlockTests()
            #expect(try await tests.enroll(browser).status == .created)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await tests.post(browser, "/api/v1/diary/face/challenge", [String: String]()).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == LoginThrottlePolicy.standard.lockAfter, "\(statuses)")
            #expect(statuses.allSatisfy { $0 == .created || $0 == .tooManyRequests }, "\(statuses)")
        }
    }
}
