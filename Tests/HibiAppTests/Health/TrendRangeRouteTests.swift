import Foundation
import Testing
@testable import HibiApp

/// Issue 29 item 4: an export from 2016–2018 can be charted, through the API (range=all, from/to) and the page.
@Suite(.serialized) struct TrendRangeRouteTests {
    /// Steps at noon in Tokyo (the test user's zone): 3,000 + 2,000 on 2016-04-15, 7,000 on 2017-06-01, 4,000 on 2018-09-10.
    static let records = [("2016-04-15T03:00:00Z", 3000), ("2016-04-15T04:00:00Z", 2000), ("2017-06-01T03:00:00Z", 7000),
                          ("2018-09-10T03:00:00Z", 4000)]

    static func seed(_ api: APIClient) async throws {
        for (start, value) in records {
            let created = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":\#(value),"start":"\#(start)"}"#)
            #expect(created.status == .created)
        }
    }

    static func days(_ trend: TrendResponse) -> [String] { trend.points.map { DayKey($0.date, timeZone: .gmt).description } }

    @Test func theAPIChartsOldHistoryOverAllTimeAndChosenDays() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            try await Self.seed(api)

            // All time: 2016-04-15 … 2018-09-10 is 880 days, so calendar months, each a daily average over its days in the window.
            let all = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=steps&range=all"))
            #expect(all.range == "all" && all.bucket == "month")
            #expect(all.from == "2016-04-15" && all.to == "2018-09-10")
            #expect(all.dataFrom == "2016-04-15" && all.dataTo == "2018-09-10")
            #expect(Self.days(all) == ["2016-04-15", "2017-06-01", "2018-09-01"])
            let expected: [Double] = [5000.0 / 16, 7000.0 / 30, 400]
            #expect(all.points.map(\.value) == expected)

            // One month, day by day: the day's two records add up.
            let april = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=steps&from=2016-04-01&to=2016-04-30"))
            #expect(april.range == "custom" && april.bucket == "day")
            #expect(Self.days(april) == ["2016-04-15"])
            #expect(april.points.map(\.value) == [5000])

            // A year, week by week from its first day: 2017-06-01 lies in the week from 2017-05-28.
            let year = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=steps&from=2017-01-01&to=2017-12-31"))
            #expect(year.bucket == "week")
            #expect(Self.days(year) == ["2017-05-28"])
            #expect(year.points.map(\.value) == [1000])

            // The ranges back from today still answer, empty, and say where the data is.
            let week = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=steps&range=week"))
            #expect(week.range == "week" && week.points.isEmpty && week.dataFrom == "2016-04-15")
            // A type without records: no data span, and all time is today alone.
            let weight = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=weight&range=all"))
            #expect(weight.points.isEmpty && weight.dataFrom == nil && weight.from == weight.to)
        }
    }

    @Test func badWindowsAreRefusedInBothLanguages() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let cases: [(String, String)] = [
                ("from=2018-01-01&to=2017-01-01", "from: must not be after to (2017-01-01)"),
                ("from=2017-02-30&to=2017-03-01", "from: must be a day written YYYY-MM-DD"),
                ("from=1901-12-13&to=2017-03-01", "from: must be a day written YYYY-MM-DD"),
                ("from=2017-01-01", "to: give both from and to"),
                ("range=week&from=2017-01-01&to=2017-02-01", "range: give either range or from and to"),
                ("range=decade", "range: week, month, year or all"),
            ]
            for (query, message) in cases {
                let answer = try await api.call(.get, "/api/v1/health/trends?type=steps&\(query)")
                #expect(answer.status == .badRequest, "\(query)")
                #expect(answer.body.contains(message), "\(query): \(answer.body)")
            }
            browser.acceptLanguage = "ja"
            let reversed = try await api.call(.get, "/api/v1/health/trends?type=steps&from=2018-01-01&to=2017-01-01")
            #expect(reversed.status == .badRequest)
            #expect(reversed.body.contains("to(2017-01-01)より後の日付は指定できません"))
        }
    }

    @Test func theEmptyWeekSaysWhereTheDataIsAndItsLinkShowsIt() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await Self.seed(APIClient(browser: browser, token: try await browser.createToken()))
            let week = try await browser.get("/health/trends?type=steps&range=week")
            #expect(week.status == .ok)
            #expect(!week.body.contains(#"<circle class="point""#))
            #expect(week.body.contains("Your steps runs from Apr 2016 to Sep 2018"))
            let link = "/health/trends?type=steps&amp;from=2016-04-15&amp;to=2018-09-10"
            #expect(week.body.contains(#"href="\#(link)""#))
            #expect(week.body.contains(#"value="all""#))
            #expect(week.body.contains("All time"))

            let shown = try await browser.get(link.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(shown.status == .ok)
            #expect(!shown.body.contains("trend-data-span"))
            #expect(!shown.body.contains("No data in this range yet"))
            #expect(shown.body.contains("Steps · 2016-04-15 – 2018-09-10"))
            // The three months with records, one point each (the chart draws nothing for the months between).
            #expect(shown.body.components(separatedBy: #"<circle class="point""#).count - 1 == 3)

            let all = try await browser.get("/health/trends?type=steps&range=all")
            #expect(all.status == .ok && !all.body.contains("No data in this range yet") && !all.body.contains("trend-data-span"))

            browser.acceptLanguage = "ja"
            let ja = try await browser.get("/health/trends?type=steps&range=month")
            #expect(ja.body.contains("歩数の記録は2016年4月から2018年9月までです"))
            #expect(ja.body.contains("全期間"))
        }
    }
}
