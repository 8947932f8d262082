import Foundation
import SQLKit
import Testing
@testable import HibiApp

/// The journal's play times read as `VideoUserDataRow.PlayTime` (issue 30, item 3) on the test's engine: a video whose
/// length is unknown (NULL `duration_ms`) has no length, a known one its seconds, and another person's plays are not read.
@Suite(.serialized) struct VideoRowsTests {
    @Test func playTimesReadTheLastPlayAndALengthThatMayBeUnknown() async throws {
        try await TestApp.withTwoPeople { core, aiko, ken in
            let sql = core.database.sql
            func video(_ id: String, owner: String, durationMs: Int64?) -> VideoRow {
                VideoRow(id: id, ownerID: owner, source: VideoSource.upload.rawValue, filePath: "\(id).mp4", originalName: "\(id).mp4", sizeBytes: 1000,
                         modifiedMs: 0, durationMs: durationMs, container: nil, videoCodec: nil, audioCodec: nil, width: nil, height: nil,
                         hasThumbnail: false, hasCaptions: false, createdAt: 1_714_550_000)
            }
            func played(_ videoID: String, by userID: String, at: Int64) -> VideoUserDataRow {
                VideoUserDataRow(userID: userID, videoID: videoID, title: nil, favorite: false, rating: nil, tags: "", lastPlayedAt: at, positionMs: 0,
                                 playCount: 1, played: false, hiddenFromContinue: false)
            }
            try await VideoRow.insert([video("known", owner: aiko.id, durationMs: 90_500), video("unknown", owner: aiko.id, durationMs: nil),
                                       video("kens", owner: ken.id, durationMs: 1000)], into: sql).run()
            try await VideoUserDataRow.insert([played("known", by: aiko.id, at: 1_714_550_400), played("unknown", by: aiko.id, at: 1_714_550_500),
                                               played("kens", by: ken.id, at: 1_714_550_450)], into: sql).run()

            let plays = try await core.features.videos.service.playTimes(userID: aiko.id, from: Date(timeIntervalSince1970: 1_714_550_000),
                                                                          to: Date(timeIntervalSince1970: 1_714_560_000))
            #expect(plays.map(\.at) == [Date(timeIntervalSince1970: 1_714_550_500), Date(timeIntervalSince1970: 1_714_550_400)])
            #expect(plays.map(\.seconds) == [nil, 90.5])
        }
    }
}
