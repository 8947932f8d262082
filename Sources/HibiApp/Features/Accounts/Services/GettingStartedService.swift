/// Reads what a user has done through each feature's own store or service, for the getting-started checklist.
public struct GettingStartedService: Sendable {
    let faces: FaceTemplateStore
    let diary: DiaryStore
    let health: HealthRecordStore
    let visits: VisitService
    let videos: VideoStore

    /// Each step reads its own feature's store, handed over by the assembly (never built again here).
    init(faces: FaceTemplateStore, diary: DiaryStore, health: HealthRecordStore, visits: VisitService, videos: VideoStore) {
        self.faces = faces
        self.diary = diary
        self.health = health
        self.visits = visits
        self.videos = videos
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
