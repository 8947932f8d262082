import Foundation

// Videos' side of the protocols in Shared/Offers (what it adds to Journal's search and checklist).
extension VideosFeature: SearchOffer, GettingStartedOffer {
    public func searchHits(_ search: JournalSearch) async throws -> [SearchHit] {
        try await service.store.list(userID: search.user.id, query: VideoQuery(text: search.query)).prefix(search.limit).map { item in
            SearchHit(domain: .videos, id: item.video.id, title: item.title, snippet: item.data.tags.joined(separator: ", "),
                      date: item.data.lastPlayedAt ?? item.video.createdAt, path: "/videos/\(item.video.id)")
        }
    }

    public func gettingStartedSteps(userID: String) async throws -> [GettingStarted.Step] {
        Self.gettingStartedSteps(videos: try await service.store.count(userID: userID))
    }

    static func gettingStartedSteps(videos: Int) -> [GettingStarted.Step] {
        [GettingStarted.Step(key: "video", title: Text(en: "Add videos", ja: "動画を追加する"),
                             help: Text(en: "Upload a video to watch and resume later.", ja: "動画をアップロードして、続きから再生できます。"),
                             href: VideoPaths.library, done: videos > 0)]
    }
}

// What videos add to the takeout: what this person sees and what they made of it, and the files they uploaded
// (the shared library's files are the administrator's, not theirs). Nothing is read back.
extension VideosFeature: TakeoutOffer {
    /// One video of the library as this person sees it: the file's facts and their own title, rating,
    /// tags, favourite and viewing history.
    struct VideoExport: Codable {
        let id: String
        let fileName: String
        let source: String
        let sizeBytes: Int64
        let durationSeconds: Double?
        let title: String
        let favorite: Bool
        let rating: Int?
        let tags: [String]
        let lastPlayedAt: Date?
        let positionSeconds: Double
        let playCount: Int
        let played: Bool
        /// The uploaded file inside the takeout (`videos/files/…`); nil for a file of the shared library.
        var file: String?

        init(_ item: VideoItem) {
            id = item.video.id
            fileName = item.video.originalName
            source = item.video.source.rawValue
            sizeBytes = item.video.sizeBytes
            durationSeconds = item.video.media.durationSeconds
            title = item.title
            favorite = item.data.favorite
            rating = item.data.rating
            tags = item.data.tags
            lastPlayedAt = item.data.lastPlayedAt
            positionSeconds = item.data.positionSeconds
            playCount = item.data.playCount
            played = item.data.played
        }
    }

    struct PlaylistExport: Codable {
        let name: String
        /// Ids as in videos/library.json, in play order.
        let videoIDs: [String]
        let createdAt: Date
        let updatedAt: Date
    }

    /// A file goes out in slices of its mapping, so a long video never sits in memory.
    public func writeTakeout(user: User, into archive: TakeoutArchive) async throws {
        var exports: [VideoExport] = []
        for item in try await service.store.list(userID: user.id) {
            var export = VideoExport(item)
            if let (member, path) = takeoutFile(item.video) {
                try await archive.addSliced(member, try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
                export.file = member
            }
            exports.append(export)
        }
        try await archive.addJSON("videos/library.json", exports)
        try await archive.addJSON("videos/playlists.json", try await service.store.playlists(userID: user.id).map {
            PlaylistExport(name: $0.name, videoIDs: $0.videoIDs, createdAt: $0.createdAt, updatedAt: $0.updatedAt)
        })
    }

    public func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> [String: Int] { [:] }

    /// An uploaded video's member name and file on disk; nil for the shared library's files or a missing file.
    func takeoutFile(_ video: Video) -> (member: String, path: String)? {
        guard video.source == .upload, let path = service.files.resolve(video) else { return nil }
        let ext = (video.originalName as NSString).pathExtension.lowercased()
        let safe = ext.count <= 8 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? ext : ""
        return ("videos/files/\(video.id)" + (safe.isEmpty ? "" : ".\(safe)"), path)
    }

    /// How many uploaded video files a takeout carries and their bytes, shown before the download starts.
    public func takeoutFiles(userID: String) async throws -> (count: Int, bytes: Int64) {
        var count = 0, bytes: Int64 = 0
        for item in try await service.store.list(userID: userID) where takeoutFile(item.video) != nil {
            count += 1
            bytes = bytes.addingReportingOverflow(max(0, item.video.sizeBytes)).partialValue
        }
        return (count, bytes)
    }
}

extension VideosFeature: DayPageOffer {
    /// A day with at most this many videos; more is a sign of generated data, and the library lists them all.
    static let dayLimit = 500

    public func dayPart(_ day: DayQuery) async throws -> DayPart {
        let watched = try await service.played(userID: day.user.id, from: day.interval.start, to: day.interval.end)
        return VideoDayViews.part(watched: Array(watched.prefix(Self.dayLimit)), day: day)
    }
}

extension VideosFeature: OverviewOffer {
    /// The videos last played each day and their length (Hibi keeps the last play, not a play log).
    public func dayFigures(_ range: DayRange) async throws -> [DayKey: DaySummary] {
        Self.figures(try await service.playTimes(userID: range.user.id, from: range.span.start, to: range.span.end), span: range.span)
    }

    static func figures(_ plays: [(at: Date, seconds: Double?)], span: DaySpan) -> [DayKey: DaySummary] {
        var days: [DayKey: DaySummary] = [:]
        for play in plays {
            let seconds = play.seconds ?? 0
            span.touch(&days, at: play.at) { day in
                day.videos += 1
                day.videoHours += max(0, seconds.isFinite ? seconds : 0) / 3600
            }
        }
        return days
    }

    public func firstRecorded(user: User, diaryOpen: Bool) async throws -> Date? {
        try await service.firstPlayDate(userID: user.id)
    }
}
