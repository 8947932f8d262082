import Foundation
import HTTPTypes
import Testing
@testable import HibiApp

@Suite(.serialized) struct VideoMetadataTests {
    @Test func metadataSearchAndFilters() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let walk = try await browser.uploaded(VideoFixtures.clip, name: "walk.mp4")
            let bars = try await browser.uploaded(VideoFixtures.other, name: "bars.mp4")
            let patched = try await browser.json(.patch, "/api/v1/videos/\(walk.id)",
                                                 #"{"title":"Morning 100% walk","favorite":true,"rating":4,"tags":["Nature"," dogs ","nature"]}"#)
            #expect(patched.status == .ok)
            let updated = try APIClient.decode(VideoResponse.self, patched)
            #expect(updated.title == "Morning 100% walk")
            #expect(updated.tags == ["nature", "dogs"])
            #expect(updated.favorite && updated.rating == 4)
            #expect(try await browser.json(.patch, "/api/v1/videos/\(walk.id)", #"{"rating":6}"#).status == .badRequest)
            #expect(try await browser.json(.patch, "/api/v1/videos/\(walk.id)", #"{"tags":["a,b"]}"#).status == .badRequest)
            _ = try await browser.json(.patch, "/api/v1/videos/\(bars.id)", #"{"rating":2,"tags":["test"]}"#)

            func ids(_ query: String) async throws -> [String] {
                try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos?\(query)")).map(\.id)
            }
            #expect(try await ids("q=MORNING") == [walk.id])
            #expect(try await ids("q=100%25") == [walk.id])
            #expect(try await ids("q=_") == [])
            #expect(try await ids("tag=dogs") == [walk.id])
            #expect(try await ids("tag=dog") == [])
            #expect(try await ids("favorite=true") == [walk.id])
            #expect(try await ids("min_rating=3") == [walk.id])
            #expect(Set(try await ids("min_rating=2")) == [walk.id, bars.id])
            #expect(try await browser.get("/api/v1/videos?min_rating=9").status == .badRequest)
            // null clears a field; leaving a key out keeps it.
            let cleared = try APIClient.decode(VideoResponse.self, try await browser.json(.patch, "/api/v1/videos/\(walk.id)", #"{"rating":null,"title":null}"#))
            #expect(cleared.rating == nil && cleared.title == "walk" && cleared.favorite)
            // ... and stays cleared when read back from the database (the answer above is the value written).
            let reread = try APIClient.decode(VideoResponse.self, try await browser.get("/api/v1/videos/\(walk.id)"))
            #expect(reread.rating == nil && reread.title == "walk" && reread.favorite)
            #expect(try await ids("min_rating=3") == [])
            // The page's form does the same.
            try await browser.get("/videos/\(bars.id)")
            let saved = try await browser.post("/videos/\(bars.id)", form: ["title": "Colour bars", "tags": "test, calibration", "rating": "5",
                                                                             "favorite": "true"])
            #expect(saved.status == .seeOther)
            let page = try await browser.get("/videos?tag=calibration")
            #expect(page.body.contains("Colour bars"))
            #expect(!page.body.contains(">walk<"))
        }
    }
}

@Suite(.serialized) struct VideoResumeTests {
    @Test func continueWatchingHistoryAndHiding() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let video = try await browser.uploaded(VideoFixtures.clip)  // 70 s
            func progress(_ seconds: Double, ended: Bool = false) async throws -> VideoResponse {
                let page = try await browser.json(.put, "/api/v1/videos/\(video.id)/progress", #"{"positionSeconds":\#(seconds),"ended":\#(ended)}"#)
                #expect(page.status == .ok)
                return try APIClient.decode(VideoResponse.self, page)
            }
            func continuing() async throws -> [String] {
                try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos/continue-watching")).map(\.id)
            }
            let started = try APIClient.decode(VideoResponse.self, try await browser.json(.post, "/api/v1/videos/\(video.id)/plays"))
            #expect(started.playCount == 1)
            // 3 s of 70 is under 5%: nothing to resume.
            #expect(try await progress(3).resumeAtSeconds == nil)
            #expect(try await continuing().isEmpty)
            // 3.5 s is exactly 5%.
            #expect(try await progress(3.5).resumeAtSeconds == 3.5)
            let middle = try await progress(35)
            #expect(middle.resumeAtSeconds == 35 && !middle.played)
            #expect(try await continuing() == [video.id])

            let hidden = try APIClient.decode(VideoResponse.self, try await browser.json(.post, "/api/v1/videos/\(video.id)/hide"))
            #expect(hidden.hiddenFromContinueWatching)
            #expect(hidden.positionSeconds == 35 && hidden.resumeAtSeconds == 35)
            #expect(try await continuing().isEmpty)
            // The player page still offers the position.
            #expect(try await browser.get("/videos/\(video.id)").body.contains(#"data-resume="35.0""#))
            // Playing again brings it back.
            _ = try await browser.json(.post, "/api/v1/videos/\(video.id)/plays")
            #expect(try await continuing() == [video.id])

            // 63 s is 90%: watched, no longer resumable.
            let end = try await progress(63)
            #expect(end.played && end.resumeAtSeconds == nil)
            #expect(try await continuing().isEmpty)
            #expect(try await browser.json(.put, "/api/v1/videos/\(video.id)/progress", #"{"positionSeconds":-4}"#).status == .badRequest)

            let history = try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos/history"))
            #expect(history.map(\.id) == [video.id])
            #expect(history[0].lastPlayedAt != nil && history[0].playCount == 2)
            #expect(try await browser.get("/videos/history").body.contains(video.title))
            #expect(try await browser.json(.delete, "/api/v1/videos/history").status == .noContent)
            #expect(try APIClient.decode([VideoResponse].self, try await browser.get("/api/v1/videos/history")).isEmpty)
            let after = try APIClient.decode(VideoResponse.self, try await browser.get("/api/v1/videos/\(video.id)"))
            #expect(after.positionSeconds == 63 && after.playCount == 2 && after.played)
        }
    }
}

@Suite(.serialized) struct VideoPlaylistTests {
    @Test func aVideoInSeveralPlaylistsAndReordering() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let a = try await browser.uploaded(VideoFixtures.clip, name: "a.mp4")
            let b = try await browser.uploaded(VideoFixtures.other, name: "b.mp4")
            func create(_ name: String) async throws -> PlaylistResponse {
                let page = try await browser.json(.post, "/api/v1/playlists", #"{"name":"\#(name)"}"#)
                #expect(page.status == .created)
                return try APIClient.decode(PlaylistResponse.self, page)
            }
            func add(_ playlist: PlaylistResponse, _ video: VideoResponse) async throws -> PlaylistResponse {
                try APIClient.decode(PlaylistResponse.self, try await browser.json(.post, "/api/v1/playlists/\(playlist.id)/items",
                                                                                 #"{"videoId":"\#(video.id)"}"#))
            }
            let evening = try await create("Evening")
            let morning = try await create("Morning")
            _ = try await add(evening, a)
            #expect(try await add(evening, b).videoIds == [a.id, b.id])
            #expect(try await add(morning, a).videoIds == [a.id])
            // Adding twice keeps one entry.
            #expect(try await add(morning, a).videoIds == [a.id])

            let reordered = try await browser.json(.put, "/api/v1/playlists/\(evening.id)/order", #"{"videoIds":["\#(b.id)","\#(a.id)"]}"#)
            #expect(try APIClient.decode(PlaylistResponse.self, reordered).videoIds == [b.id, a.id])
            #expect(try await browser.json(.put, "/api/v1/playlists/\(evening.id)/order", #"{"videoIds":["\#(b.id)"]}"#).status == .badRequest)
            // The page's buttons move one step.
            try await browser.get("/videos/playlists/\(evening.id)")
            #expect(try await browser.post("/videos/playlists/\(evening.id)/items/\(a.id)/up", form: [:]).status == .seeOther)
            #expect(try APIClient.decode(PlaylistResponse.self, try await browser.get("/api/v1/playlists/\(evening.id)")).videoIds == [a.id, b.id])
            // Playing in order: the player knows the next video.
            let player = try await browser.get("/videos/\(a.id)?playlist=\(evening.id)")
            #expect(player.body.contains(#"data-next="/videos/\#(b.id)?playlist=\#(evening.id)""#))

            let renamed = try await browser.json(.patch, "/api/v1/playlists/\(morning.id)", #"{"name":"Early"}"#)
            #expect(try APIClient.decode(PlaylistResponse.self, renamed).name == "Early")
            #expect(try await browser.json(.patch, "/api/v1/playlists/\(morning.id)", #"{"name":"  "}"#).status == .badRequest)

            let removed = try await browser.json(.delete, "/api/v1/playlists/\(evening.id)/items/\(a.id)")
            #expect(try APIClient.decode(PlaylistResponse.self, removed).videoIds == [b.id])
            // Still in the other playlist.
            #expect(try APIClient.decode(PlaylistResponse.self, try await browser.get("/api/v1/playlists/\(morning.id)")).videoIds == [a.id])

            // Deleting a video takes it out of every playlist; deleting a playlist keeps the videos.
            #expect(try await browser.json(.delete, "/api/v1/videos/\(b.id)").status == .noContent)
            #expect(try APIClient.decode(PlaylistResponse.self, try await browser.get("/api/v1/playlists/\(evening.id)")).videoIds.isEmpty)
            #expect(try await browser.json(.delete, "/api/v1/playlists/\(morning.id)").status == .noContent)
            #expect(try await browser.get("/api/v1/playlists/\(morning.id)").status == .notFound)
            #expect(try await browser.get("/api/v1/videos/\(a.id)").status == .ok)
        }
    }
}

@Suite(.serialized) struct VideoSharedLibraryTests {
    @Test func sharedFolderIsScannedAndSharedReadOnly() async throws {
        var config = try await TestApp.config()
        let library = try LibraryFolder()
        config.videos.libraryDirectory = library.path
        try await TestApp.run(config: config) { aiko in
            try await aiko.setUp()
            let ken = try await aiko.addUser("ken")
            #expect(try await ken.json(.post, "/api/v1/videos/library/scan").status == .forbidden)
            let scan = try APIClient.decode(ScanResponse.self, try await aiko.json(.post, "/api/v1/videos/library/scan"))
            // Only Trips/Bars.mp4: the symlinks lead outside the folder. (The start-up scan may have found it first.)
            #expect(scan.added + scan.unchanged == 1 && scan.removed == 0)
            let kenList = try APIClient.decode([VideoResponse].self, try await ken.get("/api/v1/videos"))
            #expect(kenList.map(\.fileName) == ["Bars.mp4"])
            let shared = kenList[0]
            #expect(shared.source == .library && shared.hasCaptions && shared.hasThumbnail)
            let captions = try await ken.bytes(try #require(shared.captionsURL))
            #expect(captions.0 == .ok && String(decoding: captions.2, as: UTF8.self).hasPrefix("WEBVTT"))
            let part = try await ken.bytes(shared.streamURL, headers: [.range: "bytes=0-3"])
            #expect(part.0 == .partialContent && part.2.count == 4)
            // Per-user data on a shared video stays per user.
            _ = try await aiko.json(.patch, "/api/v1/videos/\(shared.id)", #"{"favorite":true}"#)
            #expect(try APIClient.decode(VideoResponse.self, try await ken.get("/api/v1/videos/\(shared.id)")).favorite == false)
            #expect(try await ken.json(.delete, "/api/v1/videos/\(shared.id)").status == .forbidden)
            #expect(try await ken.get("/videos/\(shared.id)").body.contains("<track"))

            // Changed, new and removed files.
            let bars = (library.path as NSString).appendingPathComponent("Trips/Bars.mp4")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: bars)
            try FileManager.default.copyItem(atPath: VideoFixtures.clip, toPath: (library.path as NSString).appendingPathComponent("Clip.mp4"))
            let second = try APIClient.decode(ScanResponse.self, try await aiko.json(.post, "/api/v1/videos/library/scan"))
            #expect(second.added == 1 && second.updated == 1 && second.removed == 0)
            try FileManager.default.removeItem(atPath: bars)
            let third = try APIClient.decode(ScanResponse.self, try await aiko.json(.post, "/api/v1/videos/library/scan"))
            #expect(third.removed == 1 && third.unchanged == 1)
            #expect(try await ken.get("/api/v1/videos/\(shared.id)").status == .notFound)
        }
    }
}
