import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import HibiApp

/// The import report through the API, the CLI's words and the import page; electrocardiograms owner-only.
@Suite(.serialized) struct HealthReportAPITests {
    /// Uploads the real-shaped export.zip through the API, as the import page does, and waits for its job.
    static func importRealExport(_ browser: Browser, _ api: APIClient) async throws -> ImportJobResponse {
        try await upload(browser, api, try Data(contentsOf: URL(fileURLWithPath: try RealExportFixtures.zip())), name: "export.zip")
    }

    /// Uploads a ZIP as the import page does and waits (up to 20 s) for its job to end.
    static func upload(_ browser: Browser, _ api: APIClient, _ zip: Data, name: String) async throws -> ImportJobResponse {
        let headers: HTTPFields = [.authorization: "Bearer \(api.token ?? "")", .contentType: "application/zip"]
        let response = try await browser.client.executeRequest(uri: "/api/v1/health/imports?name=\(name)", method: .post, headers: headers,
                                                              body: ByteBuffer(bytes: zip))
        guard response.status == .accepted else { throw TestFailure("import: \(response.status) \(String(buffer: response.body))") }
        var job = try JSONCoding.decoder.decode(ImportJobResponse.self, from: Data(buffer: response.body))
        // Asked until it ends, for up to two minutes: a 150-activity export took over 20 s on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(120)
        while job.state != "done" && job.state != "failed" && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            job = try APIClient.decode(ImportJobResponse.self, try await api.call(.get, "/api/v1/health/imports/\(job.id)"))
        }
        return job
    }

    @Test func theJobStatusCarriesTheReportAndTheFilesStayTheOwners() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.get("/admin/users")
            try await browser.post("/admin/users", form: ["username": "ken", "password": "kens password!"])
            let api = APIClient(browser: browser, token: try await browser.createToken())
            let job = try await Self.importRealExport(browser, api)
            #expect(job.state == "done")
            #expect(job.report.kinds.first { $0.kind == "Record" }?.added == 11)
            #expect(job.report.kinds.first { $0.kind == "trkpt" }?.added == 3)
            #expect(job.summary.contains("Clinical records: 0 added, 1 skipped: kind of element Hibi does not keep (first at line 54)"))

            let page = try await browser.get("/health/import")
            #expect(page.body.contains("Health records: 11 added, 2 already there"))
            #expect(page.body.contains("/health/electrocardiograms/ecg_2024-05-05.csv"))
            let files = try APIClient.decode([HealthECGStore.File].self, try await api.call(.get, "/api/v1/health/electrocardiograms"))
            #expect(files.map(\.name) == ["ecg_2024-05-05.csv"])
            let download = try await api.call(.get, "/api/v1/health/electrocardiograms/ecg_2024-05-05.csv")
            #expect(download.status == .ok && download.body == RealExportFixtures.ecgCSV)
            #expect(try await api.call(.get, "/api/v1/health/electrocardiograms/..%2F..%2Fetc%2Fpasswd").status == .notFound)

            let ken = Browser(client: browser.client)
            _ = try await ken.signIn(username: "ken", password: "kens password!")
            let kenAPI = APIClient(browser: ken, token: try await ken.createToken(name: "ken", password: "kens password!"))
            #expect(try APIClient.decode([HealthECGStore.File].self, try await kenAPI.call(.get, "/api/v1/health/electrocardiograms")).isEmpty)
            #expect(try await kenAPI.call(.get, "/api/v1/health/electrocardiograms/ecg_2024-05-05.csv").status == .notFound)
            #expect(try await ken.get("/health/electrocardiograms/ecg_2024-05-05.csv").status == .notFound)
            #expect(try await kenAPI.call(.get, "/api/v1/health/imports/\(job.id)").status == .notFound)
        }
    }
}
