/// The checklist from counts, as the assembly's features would make it (the snapshot and the checklist's tests
/// build one without a database). The order is `Features.init`'s list of `GettingStartedOffer`s.
extension GettingStarted {
    public struct State: Sendable, Equatable {
        public var faceEnrolled = false
        public var diaryEntries = 0
        public var healthRecords = 0
        public var visits = 0
        public var videos = 0
        public init(faceEnrolled: Bool = false, diaryEntries: Int = 0, healthRecords: Int = 0, visits: Int = 0, videos: Int = 0) {
            self.faceEnrolled = faceEnrolled
            self.diaryEntries = diaryEntries
            self.healthRecords = healthRecords
            self.visits = visits
            self.videos = videos
        }
    }

    public init(_ state: State) {
        self.init(steps: DiaryFeature.gettingStartedSteps(faceEnrolled: state.faceEnrolled, entries: state.diaryEntries)
                  + HealthFeature.gettingStartedSteps(records: state.healthRecords) + VisitsFeature.gettingStartedSteps(visits: state.visits)
                  + VideosFeature.gettingStartedSteps(videos: state.videos))
    }
}
