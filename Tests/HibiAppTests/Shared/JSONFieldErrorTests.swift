import Foundation
import Testing
@testable import HibiApp

/// A valid JSON body with a wrong value names the field and the form it expects, not "syntax error".
struct JSONFieldErrorTests {
    struct GoalBody: Decodable { let type: String; let deadline: Date }

    @Test func aDateWithoutATimeNamesTheFieldAndTheExpectedForm() throws {
        let error = #expect(throws: RequestError.self) {
            try JSONCoding.decode(GoalBody.self, from: Data(#"{"type":"steps","deadline":"2024-12-31"}"#.utf8))
        }
        guard case let .invalidField(field, reason)? = error else { Issue.record("expected invalidField, got \(String(describing: error))"); return }
        #expect(field == "deadline")
        #expect(reason.en == "must be a date and time with a time zone, such as 2024-05-01T09:00:00Z")
        #expect(reason.ja.contains("日時"))
    }

    @Test func datesStillDecodeAndSyntaxErrorsStaySyntaxErrors() throws {
        let body = try JSONCoding.decode(GoalBody.self, from: Data(#"{"type":"steps","deadline":"2024-12-31T09:00:00+09:00"}"#.utf8))
        #expect(body.deadline == Date(timeIntervalSince1970: 1_735_603_200))
        #expect(throws: RequestError.malformedJSON("syntax error")) {
            try JSONCoding.decode(GoalBody.self, from: Data(#"{"type": "#.utf8))
        }
        #expect(throws: RequestError.missingField("deadline")) {
            try JSONCoding.decode(GoalBody.self, from: Data(#"{"type":"steps"}"#.utf8))
        }
    }
}
