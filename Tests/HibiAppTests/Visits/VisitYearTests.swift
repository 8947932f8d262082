import Foundation
import Testing
@testable import HibiApp

/// A year out of range is named as such; a malformed date stays a format error.
struct VisitYearTests {
    @Test func aYearOutOfRangeIsSaidAsSuch() {
        #expect(VisitViews.yearIsOutOfRange("20245-05-01T10:00"))
        #expect(VisitViews.yearIsOutOfRange("0000-05-01T10:00"))
        #expect(VisitViews.yearIsOutOfRange("99999999999999999999999-05-01T10:00"))
        #expect(!VisitViews.yearIsOutOfRange("2024-05-01T10:00"))
        #expect(!VisitViews.yearIsOutOfRange("2024-05-0xT10:00"))
        #expect(!VisitViews.yearIsOutOfRange("yesterday"))
        #expect(VisitError.yearOutOfRange(field: "visited_at").message(.en) == "visited_at: the year must be between 1 and 9999.")
        #expect(VisitError.yearOutOfRange(field: "visited_at").code == "invalid_date")
    }

    @Test func rulesRefuseADateBeyondYear9999ByItsYear() {
        var fields = VisitLogicTests.tokyo
        fields.visitedAt = Date(timeIntervalSince1970: 300_000_000_000)
        #expect(throws: VisitError.yearOutOfRange(field: "visitedAt")) { try VisitRules.validate(fields) }
    }
}
