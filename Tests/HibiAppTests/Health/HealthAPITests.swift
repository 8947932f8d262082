import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

@Suite(.serialized) struct HealthAPITests {
    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    @Test func manualEntryIsValidatedConvertedAndEarnsTheFirstBadge() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let bad = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":-10,"start":"\#(Self.iso(Date()))"}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.body.contains("out_of_range"))
            let created = try await api.call(.post, "/api/v1/health/records",
                                             json: #"{"type":"weight","value":150,"unit":"lb","start":"\#(Self.iso(Date().addingTimeInterval(-60)))"}"#)
            #expect(created.status == .created)
            let body = try APIClient.decode(CreatedRecordResponse.self, created)
            #expect(abs(body.record.value - 68.04) < 0.01 && body.record.unit == "kg")
            #expect(body.newBadges == ["first-step"])
            let dup = try await api.call(.post, "/api/v1/health/records",
                                         json: #"{"type":"weight","value":150,"unit":"lb","start":"\#(Self.iso(body.record.start))"}"#)
            #expect(dup.status == .conflict)

            // Display in pounds once the profile asks for it.
            #expect(try await api.call(.put, "/api/v1/health/profile", json: #"{"weightUnit":"lb","heightCm":165}"#).status == .ok)
            let list = try APIClient.decode([HealthRecordResponse].self, try await api.call(.get, "/api/v1/health/records?type=weight"))
            #expect(list.map(\.displayValue) == ["150 lb"])

            let edited = try await api.call(.put, "/api/v1/health/records/\(body.record.id)",
                                            json: #"{"type":"weight","value":67,"start":"\#(Self.iso(body.record.start))"}"#)
            #expect(edited.status == .ok)
            #expect(try APIClient.decode(HealthRecordResponse.self, edited).value == 67)
            #expect(try await api.call(.delete, "/api/v1/health/records/\(body.record.id)").status == .noContent)
            #expect(try await api.call(.get, "/api/v1/health/records/\(body.record.id)").status == .notFound)

            let badges = try APIClient.decode([BadgeResponse].self, try await api.call(.get, "/api/v1/health/badges"))
            #expect(badges.first { $0.key == "first-step" }?.earned == true)
            #expect(badges.first { $0.key == "streak-30" }?.earned == false)
            #expect(badges.first { $0.key == "streak-30" }?.colors.primary == "#FFD700")
        }
    }

    @Test func appleHealthUploadRunsInTheBackgroundWithProgress() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let xml = ExportFixtures.export(days: 8)
            var headers: HTTPFields = [.authorization: "Bearer \(api.token!)", .contentType: "application/octet-stream"]
            headers[.acceptLanguage] = "ja"
            let response = try await browser.client.executeRequest(uri: "/api/v1/health/imports?name=export.xml", method: .post, headers: headers,
                                                                  body: ByteBuffer(string: xml))
            #expect(response.status == .accepted)
            let job = try JSONCoding.decoder.decode(ImportJobResponse.self, from: Data(buffer: response.body))
            var state = job
            for _ in 0..<200 where state.state != "done" && state.state != "failed" {
                try await Task.sleep(for: .milliseconds(50))
                state = try APIClient.decode(ImportJobResponse.self, try await api.call(.get, "/api/v1/health/imports/\(job.id)"))
            }
            #expect(state.state == "done")
            #expect(state.progress == 1)
            #expect(state.inserted == Int64(8 * ExportFixtures.recordsPerDay))

            let trend = try APIClient.decode(TrendResponse.self, try await api.call(.get, "/api/v1/health/trends?type=steps&range=year"))
            #expect(trend.unit == "count")
            #expect(try await api.call(.get, "/api/v1/health/trends?type=nope").status == .badRequest)

            // A broken upload fails with a message naming the line.
            let broken = try await browser.client.executeRequest(uri: "/api/v1/health/imports", method: .post, headers: headers,
                                                                body: ByteBuffer(string: "<HealthData>\n<Record type=\"x\" "))
            let failedJob = try JSONCoding.decoder.decode(ImportJobResponse.self, from: Data(buffer: broken.body))
            var failed = failedJob
            for _ in 0..<200 where failed.state != "failed" && failed.state != "done" {
                try await Task.sleep(for: .milliseconds(50))
                failed = try APIClient.decode(ImportJobResponse.self, try await api.call(.get, "/api/v1/health/imports/\(failedJob.id)"))
            }
            #expect(failed.state == "failed")
            #expect(failed.error?.contains("line 2") == true)
        }
    }

    @Test func goalsShowProgressAndBecomeAchieved() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let deadline = Self.iso(Date().addingTimeInterval(86400 * 30))
            let goal = try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10000,"deadline":"\#(deadline)"}"#)
            #expect(goal.status == .created)
            #expect(try APIClient.decode(GoalResponse.self, goal).status == "active")
            _ = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":6000,"start":"\#(Self.iso(Date().addingTimeInterval(-120)))"}"#)
            var goals = try APIClient.decode([GoalResponse].self, try await api.call(.get, "/api/v1/health/goals"))
            #expect(goals.first?.progress == 0.6)
            let second = try await api.call(.post, "/api/v1/health/records", json: #"{"type":"steps","value":4500,"start":"\#(Self.iso(Date().addingTimeInterval(-60)))"}"#)
            #expect(try APIClient.decode(CreatedRecordResponse.self, second).newBadges.contains("goal-1"))
            goals = try APIClient.decode([GoalResponse].self, try await api.call(.get, "/api/v1/health/goals"))
            #expect(goals.first?.status == "achieved")
            let past = try await api.call(.post, "/api/v1/health/goals", json: #"{"type":"steps","targetValue":10,"deadline":"2001-01-01T00:00:00Z"}"#)
            #expect(past.status == .badRequest)
        }
    }

    @Test func csvExportAndImportRoundTrip() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let csv = "type,value,unit,start,end\nweight,64.5,kg,2024-05-01T07:00:00+09:00,\nsteps,8000,count,2024-05-01T08:00:00Z,2024-05-01T20:00:00Z\n"
            let imported = try await api.call(.post, "/api/v1/health/import.csv", json: csv, contentType: "text/csv")
            #expect(imported.status == .ok)
            #expect(try APIClient.decode(CSVImportResponse.self, imported).inserted == 2)
            let again = try APIClient.decode(CSVImportResponse.self, try await api.call(.post, "/api/v1/health/import.csv", json: csv, contentType: "text/csv"))
            #expect(again.inserted == 0 && again.duplicates == 2)
            let bad = try await api.call(.post, "/api/v1/health/import.csv", json: "weight,abc,kg,2024-05-01T07:00:00Z", contentType: "text/csv")
            #expect(bad.status == .unprocessableContent)
            #expect(bad.body.contains("CSV line 1"))
            let export = try await api.call(.get, "/api/v1/health/export.csv")
            #expect(export.body.hasPrefix(HealthCSV.header))
            #expect(export.body.contains("weight,64.5,kg,2024-04-30T22:00:00Z"))
        }
    }

    @Test func anotherUsersHealthDataNeverShows() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/admin/users")
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let aiko = APIClient(browser: browser, token: try await browser.createToken())
            let created = try APIClient.decode(CreatedRecordResponse.self, try await aiko.call(.post, "/api/v1/health/records",
                json: #"{"type":"weight","value":61.5,"start":"\#(Self.iso(Date().addingTimeInterval(-60)))"}"#))
            let goal = try APIClient.decode(GoalResponse.self, try await aiko.call(.post, "/api/v1/health/goals",
                json: #"{"type":"weight","targetValue":58,"deadline":"\#(Self.iso(Date().addingTimeInterval(86400 * 9)))"}"#))
            let reminder = try APIClient.decode(ReminderResponse.self, try await aiko.call(.post, "/api/v1/health/reminders",
                json: #"{"time":"21:00","message":"体重を記録","weekdays":[2,4]}"#))

            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken", password: "kens password!"))
            #expect(try APIClient.decode([HealthRecordResponse].self, try await kenAPI.call(.get, "/api/v1/health/records")).isEmpty)
            #expect(try await kenAPI.call(.get, "/api/v1/health/records/\(created.record.id)").status == .notFound)
            #expect(try await kenAPI.call(.delete, "/api/v1/health/records/\(created.record.id)").status == .notFound)
            #expect(try await kenAPI.call(.put, "/api/v1/health/records/\(created.record.id)",
                                          json: #"{"type":"weight","value":1,"start":"\#(Self.iso(Date()))"}"#).status == .notFound)
            #expect(try await kenAPI.call(.delete, "/api/v1/health/goals/\(goal.id)").status == .notFound)
            #expect(try await kenAPI.call(.delete, "/api/v1/health/reminders/\(reminder.id)").status == .notFound)
            #expect(try APIClient.decode([GoalResponse].self, try await kenAPI.call(.get, "/api/v1/health/goals")).isEmpty)
            #expect(!(try await kenAPI.call(.get, "/api/v1/health/export.csv")).body.contains("61.5"))
            let page = try await ken.get("/health")
            #expect(!page.body.contains("61.5"))
            #expect(try await ken.get("/health/records/\(created.record.id)/edit").status == .notFound)
            // Aiko still has everything.
            #expect(try APIClient.decode([HealthRecordResponse].self, try await aiko.call(.get, "/api/v1/health/records")).count == 1)
        }
    }

    @Test func webPagesEntryChartsBadgesAndShareCard() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            browser.acceptLanguage = "ja"
            let empty = try await browser.post("/health/records", form: ["type": "steps", "value": "-4", "unit": "count", "start": "2024-05-01T08:00"])
            #expect(empty.status == .badRequest)
            #expect(empty.body.contains("歩数は 0〜200,000 の範囲で入力してください。"))
            let saved = try await browser.post("/health/records", form: ["type": "steps", "value": "8200", "unit": "count", "start": "2024-05-01T08:00"])
            #expect(saved.status == .seeOther)
            #expect(saved.location == "/health?saved=1&badge=first-step")
            let overview = try await browser.get("/health")
            #expect(overview.body.contains("8,200"))
            let trends = try await browser.get("/health/trends?type=steps&range=week")
            #expect(trends.status == .ok && trends.body.contains("trend-chart"))
            let badges = try await browser.get("/health/badges")
            #expect(badges.body.contains("はじめの一歩") && badges.body.contains("健康マスター"))
            let svg = try await browser.get("/health/badges/streak-30.svg?state=locked")
            #expect(svg.headers[.contentType] == "image/svg+xml" && svg.body.contains("(locked)"))
            let card = try await browser.get("/health/share/card.svg?steps=1&badge=1")
            #expect(card.body.contains("今週の歩数") && !card.body.contains("Aiko"))
            let named = try await browser.post("/health/profile", form: ["name": "Aiko Tanaka", "weight_unit": "kg", "distance_unit": "km", "energy_unit": "kcal"])
            #expect(named.status == .ok)
            #expect(!(try await browser.get("/health/share/card.svg?steps=1")).body.contains("Aiko Tanaka"))
            #expect((try await browser.get("/health/share/card.svg?steps=1&name=1")).body.contains("Aiko Tanaka"))
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") {
                let png = try await browser.send("/health/share/card.png?steps=1&badge=1", method: .get, body: nil)
                #expect(png.status == .ok && png.headers[.contentType] == "image/png")
            }
        }
    }
}
