import Testing
@testable import HibiApp

struct MediaNameTests {
    @Test func ffprobeNamesReadAsFormatsPeopleKnow() {
        #expect(MediaNames.container("mov,mp4,m4a,3gp,3g2,mj2") == "MP4")
        #expect(MediaNames.container("matroska,webm") == "WebM")
        #expect(MediaNames.container("matroska") == "Matroska (MKV)")
        #expect(MediaNames.container("avi") == "AVI")
        #expect(MediaNames.codec("h264") == "H.264")
        #expect(MediaNames.codec("hevc") == "HEVC (H.265)")
        #expect(MediaNames.codec("pcm_s16le") == "PCM")
        #expect(Playability.container("avi").note(.en)?.contains("(AVI)") == true)
        #expect(Playability.videoCodec("hevc").note(.en)?.hasPrefix("Browsers cannot play HEVC (H.265) video") == true)
    }
}
