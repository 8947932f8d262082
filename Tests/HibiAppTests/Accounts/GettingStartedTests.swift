import Testing
@testable import HibiApp

struct GettingStartedTests {
    @Test func stepsTickOffFromWhatWasDone() {
        let empty = GettingStarted(.init())
        #expect(empty.steps.map(\.key) == ["face", "diary", "health", "visit", "video"])
        #expect(empty.doneCount == 0 && !empty.isComplete)
        let some = GettingStarted(.init(faceEnrolled: true, diaryEntries: 0, healthRecords: 3, visits: 0, videos: 1))
        #expect(some.steps.filter(\.done).map(\.key) == ["face", "health", "video"])
        #expect(some.doneCount == 3)
        #expect(GettingStarted(.init(faceEnrolled: true, diaryEntries: 1, healthRecords: 1, visits: 1, videos: 1)).isComplete)
        #expect(empty.steps.allSatisfy { !$0.title.en.isEmpty && !$0.title.ja.isEmpty && $0.href.hasPrefix("/") })
    }
}
