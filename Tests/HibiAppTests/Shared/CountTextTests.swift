import Testing
@testable import HibiApp

struct CountTextTests {
    @Test func oneIsSingularInEnglishAndJapaneseIsUnchanged() {
        let days = CountText(one: Text(en: "%@ day", ja: "%@ 日"), other: Text(en: "%@ days", ja: "%@ 日"))
        #expect(days(.en, 1) == "1 day")
        #expect(days(.en, 0) == "0 days")
        #expect(days(.en, 2) == "2 days")
        #expect(days(.ja, 1) == "1 日")
        #expect(VisitStrings.visitsCount(.en, 1) == "1 visit")
        #expect(HealthStrings.daysCount(.en, 1) == "1 day")
    }
}
