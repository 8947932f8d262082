import Foundation
import Testing
@testable import HibiApp

extension APIClient {
    /// Imports into the diary through the API as a client would: the report comes with the answer, or (when the
    /// import runs past the request's 10 s, as it can on a loaded machine) from the job the 202 names, asked until
    /// it has ended; a finished job stands for the 200 (a failed one for the 422).
    func importDiary(_ data: Data, contentType: String) async throws -> (Browser.Page, DiaryImportReport) {
        let page = try await call(.post, "/api/v1/diary/import", body: data, contentType: contentType)
        struct Answer: Decodable { let report: DiaryImportReport }
        guard page.status == .accepted else { return (page, try APIClient.decode(Answer.self, page).report) }
        struct Job: Decodable { let id: String; let state: String; let report: DiaryImportReport? }
        let id = try APIClient.decode(Job.self, page).id
        for _ in 0..<600 {
            let answer = try await call(.get, "/api/v1/diary/import/jobs/\(id)")
            let job = try APIClient.decode(Job.self, answer)
            if job.state != "running" {
                let report = try #require(job.report, "the job \(job.state) without a report")
                return (Browser.Page(status: job.state == "done" ? .ok : .unprocessableContent, headers: answer.headers, body: answer.body), report)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("the import job was still running after two minutes")
        throw CancellationError()
    }
}
