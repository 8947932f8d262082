import Foundation

/// Videos' part of a day's page (Journal's `/day/:date`): the videos last played that day.
enum VideoDayViews {
    static let videos = Text(en: "Videos watched", ja: "見た動画")
    /// Where the section stands among the day's (Journal places the sections by this number; "on this day" is at 700).
    static let order = 800

    static func part(watched: [VideoItem], day: DayQuery) -> DayPart {
        var part = DayPart()
        part.recorded = !watched.isEmpty
        part.fields = ["videosWatched": watched.map(DayVideoResponse.init)]
        if !watched.isEmpty {
            part.sections = [DaySection(order: order, el("section", .id("day-videos")) {
                el("h2") { videos(day.language) }
                el("ul") {
                    for item in watched {
                        el("li") { el("a", .href(VideoPaths.video(item.video.id))) { item.title } }
                    }
                }
            })]
        }
        return part
    }
}

/// A video in the day's API answer.
struct DayVideoResponse: Codable, Sendable {
    let id: String
    let title: String
    let lastPlayedAt: Date?

    init(_ item: VideoItem) {
        id = item.video.id
        title = item.title
        lastPlayedAt = item.data.lastPlayedAt
    }
}
