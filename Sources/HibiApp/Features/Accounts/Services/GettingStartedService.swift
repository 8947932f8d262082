/// Reads what a user has done through each feature's own store or service, for the getting-started checklist.
public struct GettingStartedService: Sendable {
    let faces: FaceTemplateStore
    let diary: DiaryStore
    let health: HealthRecordStore
    let visits: VisitService
    let videos: VideoStore

    public init(core: AppCore) {
        faces = FaceTemplateStore(database: core.database, box: core.box)
        diary = DiaryStore(database: core.database, box: core.box)
        health = HealthService(database: core.database, box: core.box, logger: core.logger).records
        visits = VisitService(database: core.database, box: core.box, signer: VisitSigner(dataDirectory: core.config.dataDirectory), logger: core.logger)
        videos = VideoStore(database: core.database)
    }

    public func checklist(userID: String) async throws -> GettingStarted {
        GettingStarted(.init(
            faceEnrolled: try await faces.count(userID: userID) > 0,
            diaryEntries: try await diary.list(userID: userID, filter: .init(), limit: 1, offset: 0).total,
            healthRecords: try await health.count(userID: userID),
            visits: try await visits.count(userID: userID),
            videos: try await videos.count(userID: userID)))
    }
}
