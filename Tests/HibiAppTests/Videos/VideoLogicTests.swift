import Foundation
import Testing
@testable import HibiApp

@Suite struct ByteRangeTests {
    let etag = ByteRanges.etag(size: 1000, modifiedMillis: 1_700_000_000_000)
    let modified = Date(timeIntervalSince1970: 1_700_000_000)

    func decide(_ range: String?, ifRange: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
                size: Int64 = 1000) -> ByteRanges.Decision {
        ByteRanges.decide(range: range, ifRange: ifRange, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince,
                          etag: etag, lastModified: modified, size: size)
    }

    @Test func singleRangesSelectTheRightBytes() {
        #expect(decide(nil) == .full)
        #expect(decide("bytes=0-99") == .partial(0...99))
        #expect(decide("bytes=500-599") == .partial(500...599))
        #expect(decide("bytes=900-") == .partial(900...999))
        #expect(decide("bytes=-100") == .partial(900...999))
        #expect(decide("bytes=0-") == .partial(0...999))
        // A last position past the end is cut to the end; a suffix longer than the file is the whole file.
        #expect(decide("bytes=990-5000") == .partial(990...999))
        #expect(decide("bytes=-5000") == .partial(0...999))
        #expect(decide("bytes=999-999") == .partial(999...999))
        #expect(decide(" Bytes = 10-19 ") == .partial(10...19))
    }

    @Test func unsatisfiableAndMalformedRangesAreRefused() {
        #expect(decide("bytes=1000-") == .unsatisfiable)
        #expect(decide("bytes=1000-1001") == .unsatisfiable)
        #expect(decide("bytes=-0") == .unsatisfiable)
        #expect(decide("bytes=0-0", size: 0) == .unsatisfiable)
        #expect(decide("bytes=5-2") == .unsatisfiable)
        #expect(decide("bytes=abc") == .unsatisfiable)
        #expect(decide("bytes=1-x") == .unsatisfiable)
        #expect(decide("bytes=") == .unsatisfiable)
        #expect(decide("bytes=--5") == .unsatisfiable)
        #expect(decide("=0-5") == .unsatisfiable)
        #expect(decide("bytes=99999999999999999999999-") == .unsatisfiable)
    }

    @Test func multipleRangesAndUnknownUnitsGetTheWholeFile() {
        #expect(decide("bytes=0-9,20-29") == .full)
        #expect(decide("bytes=0-9, -5") == .full)
        #expect(decide("items=0-5") == .full)
        // Empty list elements carry nothing.
        #expect(decide("bytes=0-9,") == .partial(0...9))
    }

    @Test func ifRangeKeepsTheRangeOnlyForTheSameFile() {
        #expect(decide("bytes=0-9", ifRange: etag) == .partial(0...9))
        #expect(decide("bytes=0-9", ifRange: "\"other\"") == .full)
        #expect(decide("bytes=0-9", ifRange: "W/" + etag) == .full)
        #expect(decide("bytes=0-9", ifRange: HTTPDate.format(modified)) == .partial(0...9))
        #expect(decide("bytes=0-9", ifRange: HTTPDate.format(modified.addingTimeInterval(-60))) == .full)
        #expect(decide("bytes=0-9", ifRange: "not a date") == .full)
    }

    @Test func conditionalRequestsGiveNotModified() {
        #expect(decide(nil, ifNoneMatch: etag) == .notModified)
        #expect(decide(nil, ifNoneMatch: "\"a\", W/" + etag) == .notModified)
        #expect(decide(nil, ifNoneMatch: "*") == .notModified)
        #expect(decide(nil, ifNoneMatch: "\"other\"") == .full)
        #expect(decide(nil, ifModifiedSince: HTTPDate.format(modified)) == .notModified)
        #expect(decide(nil, ifModifiedSince: HTTPDate.format(modified.addingTimeInterval(-1))) == .full)
    }

    @Test func httpDatesRoundTrip() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
    }
}

@Suite struct ResumeRuleTests {
    @Test func resumeOnlyBetweenFiveAndNinetyPercent() {
        // 100 s: 5 s is the first resumable second, 90 s already counts as the end.
        #expect(ResumeRules.resumePosition(position: 4.99, duration: 100) == nil)
        #expect(ResumeRules.resumePosition(position: 5, duration: 100) == 5)
        #expect(ResumeRules.resumePosition(position: 50, duration: 100) == 50)
        #expect(ResumeRules.resumePosition(position: 89.99, duration: 100) == 89.99)
        #expect(ResumeRules.resumePosition(position: 90, duration: 100) == nil)
        #expect(ResumeRules.resumePosition(position: 0, duration: 100) == nil)
    }

    @Test func shortOrUnknownVideosNeverResume() {
        #expect(ResumeRules.resumePosition(position: 30, duration: 59.9) == nil)
        #expect(ResumeRules.resumePosition(position: 30, duration: 60) == 30)
        #expect(ResumeRules.resumePosition(position: 30, duration: nil) == nil)
    }

    @Test func playedFromNinetyPercentOrAtTheEnd() {
        #expect(!ResumeRules.isPlayed(position: 89, duration: 100, ended: false, wasPlayed: false))
        #expect(ResumeRules.isPlayed(position: 90, duration: 100, ended: false, wasPlayed: false))
        #expect(ResumeRules.isPlayed(position: 3, duration: 100, ended: true, wasPlayed: false))
        #expect(ResumeRules.isPlayed(position: 3, duration: 100, ended: false, wasPlayed: true))
        #expect(!ResumeRules.isPlayed(position: 3, duration: nil, ended: false, wasPlayed: false))
    }

    @Test func hiddenVideosLeaveContinueWatchingButKeepTheirPosition() {
        var item = VideoItem(video: Video(id: "v", ownerID: "u", source: .upload, filePath: "v.mp4", originalName: "v.mp4", sizeBytes: 1,
                                          modifiedMillis: 0, media: MediaInfo(durationSeconds: 100), hasThumbnail: false,
                                          hasCaptions: false, createdAt: Date()), data: VideoUserData())
        item.data.positionSeconds = 40
        #expect(ResumeRules.inContinueWatching(item))
        item.data.hiddenFromContinue = true
        #expect(!ResumeRules.inContinueWatching(item))
        #expect(item.resumeAt == 40)
    }

    @Test func positionsAreCheckedAndClamped() throws {
        #expect(try ResumeRules.clampedPosition(120, duration: 100) == 100)
        #expect(throws: VideoError.invalidPosition) { try ResumeRules.clampedPosition(-1, duration: 100) }
        #expect(throws: VideoError.invalidPosition) { try ResumeRules.clampedPosition(.nan, duration: 100) }
        // Found by schemathesis: a huge number must be a 400, not an overflow when stored in milliseconds.
        #expect(throws: VideoError.invalidPosition) { try ResumeRules.clampedPosition(1.2e307, duration: nil) }
        #expect(throws: VideoError.invalidPosition) { try ResumeRules.clampedPosition(.infinity, duration: nil) }
    }
}

@Suite struct PlayabilityTests {
    @Test func browserFormatsArePlayable() {
        #expect(Playability.evaluate(MediaInfo(container: "mov,mp4,m4a,3gp,3g2,mj2", videoCodec: "h264", audioCodec: "aac")) == .playable)
        #expect(Playability.evaluate(MediaInfo(container: "matroska,webm", videoCodec: "vp9", audioCodec: "opus")) == .playable)
        #expect(Playability.evaluate(MediaInfo(container: "matroska,webm", videoCodec: "av1", audioCodec: nil)) == .playable)
        #expect(Playability.evaluate(MediaInfo(container: "mov,mp4,m4a,3gp,3g2,mj2", videoCodec: "h264", audioCodec: "mp3")) == .playable)
    }

    @Test func otherFormatsAreFlaggedWithTheReason() {
        #expect(Playability.evaluate(MediaInfo(container: "mov,mp4,m4a,3gp,3g2,mj2", videoCodec: "hevc", audioCodec: "aac")) == .videoCodec("hevc"))
        #expect(Playability.evaluate(MediaInfo(container: "avi", videoCodec: "mpeg4", audioCodec: "mp3")) == .container("avi"))
        #expect(Playability.evaluate(MediaInfo(container: "mov,mp4,m4a,3gp,3g2,mj2", videoCodec: "h264", audioCodec: "ac3")) == .audioCodec("ac3"))
        #expect(Playability.evaluate(MediaInfo(container: "matroska,webm", videoCodec: "h264", audioCodec: "aac")) == .container("matroska"))
        #expect(Playability.evaluate(MediaInfo(container: "mp3", videoCodec: nil, audioCodec: "mp3")) == .noVideo)
        #expect(Playability.videoCodec("hevc").note(.en)?.contains("HEVC") == true)
        #expect(Playability.videoCodec("hevc").note(.ja)?.contains("H.264") == true)
    }

    @Test func ffprobeOutputIsRead() throws {
        let json = """
        {"streams":[{"codec_type":"video","codec_name":"mjpeg","width":300,"height":300,"disposition":{"attached_pic":1}},
                    {"codec_type":"video","codec_name":"h264","width":320,"height":240,"disposition":{"attached_pic":0}},
                    {"codec_type":"audio","codec_name":"aac"}],
         "format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"12.500000"}}
        """
        let media = try #require(Playability.parseProbe(Data(json.utf8)))
        #expect(media == MediaInfo(durationSeconds: 12.5, container: "mov,mp4,m4a,3gp,3g2,mj2", videoCodec: "h264", audioCodec: "aac",
                                   width: 320, height: 240))
        #expect(Playability.parseProbe(Data("not json".utf8)) == nil)
    }
}

@Suite struct VideoRuleTests {
    @Test func tagsAreNormalized() throws {
        #expect(try VideoRules.parseTagField(" Cats, travel ,cats,, ") == ["cats", "travel"])
        #expect(VideoRules.encodeTags(["a", "b"]) == ",a,b,")
        #expect(VideoRules.decodeTags(",a,b,") == ["a", "b"])
        #expect(throws: VideoError.invalidTag) { try VideoRules.normalizeTags([String(repeating: "x", count: 41)]) }
        #expect(throws: VideoError.invalidTag) { try VideoRules.normalizeTags((0...20).map { "t\($0)" }) }
    }

    @Test func ratingsAndNames() throws {
        #expect(try VideoRules.validateRating(5) == 5)
        #expect(throws: VideoError.invalidRating) { try VideoRules.validateRating(0) }
        #expect(throws: VideoError.invalidRating) { try VideoRules.validateRating(6) }
        #expect(throws: VideoError.invalidPlaylistName) { try VideoRules.validatePlaylistName("   ") }
        #expect(try VideoRules.validateTitle("  ") == nil)
    }

    @Test func uploadNamesLoseAnyFolder() {
        #expect(VideoRules.uploadName("../../etc/passwd") == "passwd")
        #expect(VideoRules.uploadName("C:\\Users\\me\\clip.mp4") == "clip.mp4")
        #expect(VideoRules.uploadName("..") == "video")
        #expect(VideoRules.uploadName(nil) == "video")
        #expect(VideoRules.defaultTitle(fileName: "holiday_2019-08.mp4") == "holiday 2019-08")
    }

    @Test func pathsCannotClimbOut() {
        #expect(VideoRules.isSafeRelativePath("films/a.mp4"))
        #expect(!VideoRules.isSafeRelativePath("../a.mp4"))
        #expect(!VideoRules.isSafeRelativePath("films/../../a.mp4"))
        #expect(!VideoRules.isSafeRelativePath("/etc/passwd"))
        #expect(!VideoRules.isSafeRelativePath("a//b.mp4"))
        #expect(VideoRules.isInside(root: "/srv/videos", path: "/srv/videos/a.mp4"))
        #expect(!VideoRules.isInside(root: "/srv/videos", path: "/srv/videos-other/a.mp4"))
        #expect(!VideoRules.isInside(root: "/srv/videos", path: "/srv/videos"))
        #expect(!VideoRules.isInside(root: "/srv/videos", path: "/etc/passwd"))
    }

    @Test func playlistOrderMustBeAPermutation() throws {
        #expect(try VideoRules.validateOrder(current: ["a", "b", "c"], proposed: ["c", "a", "b"]) == ["c", "a", "b"])
        #expect(throws: VideoError.invalidOrder) { try VideoRules.validateOrder(current: ["a", "b"], proposed: ["a", "a"]) }
        #expect(throws: VideoError.invalidOrder) { try VideoRules.validateOrder(current: ["a", "b"], proposed: ["a"]) }
        #expect(throws: VideoError.invalidOrder) { try VideoRules.validateOrder(current: ["a", "b"], proposed: ["a", "x"]) }
        #expect(VideoRules.move("b", by: -1, in: ["a", "b", "c"]) == ["b", "a", "c"])
        #expect(VideoRules.move("a", by: -1, in: ["a", "b", "c"]) == ["a", "b", "c"])
        #expect(VideoRules.move("c", by: 1, in: ["a", "b", "c"]) == ["a", "b", "c"])
    }
}

@Suite struct VideoInputSafetyTests {
    @Test func controlCharactersAreRefusedOrStripped() {
        #expect(throws: VideoError.invalidPlaylistName) { try VideoRules.validatePlaylistName("a\u{0}b") }
        #expect(throws: VideoError.invalidTag) { try VideoRules.normalizeTags(["x\u{0}"]) }
        #expect(throws: VideoError.invalidTitle) { try VideoRules.validateTitle("line\nbreak") }
        #expect(VideoRules.cleanSearch("ca\u{0}t ") == "cat")
        #expect(VideoRules.uploadName("a\u{0}b.mp4") == "ab.mp4")
        #expect(VideoRules.isPlausibleID("7e4698d4-b873-44f3-8531-42fc4c83785d"))
        #expect(!VideoRules.isPlausibleID("../x"))
        #expect(!VideoRules.isPlausibleID("a\u{0}"))
        #expect(!VideoRules.isPlausibleID(""))
    }
}
