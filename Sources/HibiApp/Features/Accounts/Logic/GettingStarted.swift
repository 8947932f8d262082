/// The first page of a new account: five first steps, each ticked off by what the user has actually done.
public struct GettingStarted: Sendable, Equatable {
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

    public struct Step: Sendable, Equatable {
        public let key: String
        public let title: Text
        public let help: Text
        public let href: String
        public let done: Bool
    }

    public let steps: [Step]

    public init(_ state: State) {
        steps = [
            Step(key: "face", title: Text(en: "Enroll your face", ja: "顔を登録する"),
                 help: Text(en: "Unlock your diary and sign in by looking at the camera.", ja: "カメラを見るだけで日記を開き、サインインできます。"),
                 href: DiaryPaths.enroll, done: state.faceEnrolled),
            Step(key: "diary", title: Text(en: "Write a first diary entry", ja: "最初の日記を書く"),
                 help: Text(en: "A few lines about today, with a photo if you like.", ja: "今日のことを数行。写真も添えられます。"),
                 href: DiaryPaths.new, done: state.diaryEntries > 0),
            Step(key: "health", title: Text(en: "Import Apple Health", ja: "Apple ヘルスケアを読み込む"),
                 help: Text(en: "Upload the export from your iPhone, or type a record.", ja: "iPhone の書き出しファイルをアップロードするか、記録を入力します。"),
                 href: HealthPaths.importPage, done: state.healthRecords > 0),
            Step(key: "visit", title: Text(en: "Add a visit", ja: "訪問を追加する"),
                 help: Text(en: "A place you went, on the map.", ja: "行った場所を地図に残します。"),
                 href: VisitPaths.new, done: state.visits > 0),
            Step(key: "video", title: Text(en: "Add videos", ja: "動画を追加する"),
                 help: Text(en: "Upload a video to watch and resume later.", ja: "動画をアップロードして、続きから再生できます。"),
                 href: VideoPaths.library, done: state.videos > 0),
        ]
    }

    public var doneCount: Int { steps.filter(\.done).count }
    public var isComplete: Bool { doneCount == steps.count }
}
