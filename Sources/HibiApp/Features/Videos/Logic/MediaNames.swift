/// Names people know for what ffprobe reports: "mov,mp4,m4a,3gp,3g2,mj2" is MP4, "h264" is H.264.
public enum MediaNames {
    public static func container(_ raw: String) -> String {
        let formats = Set(raw.lowercased().split(separator: ",").map(String.init))
        if formats.contains("mp4") { return "MP4" }
        if formats.contains("webm") { return "WebM" }
        let known: [String: String] = [
            "matroska": "Matroska (MKV)", "avi": "AVI", "mpegts": "MPEG-TS", "flv": "Flash Video (FLV)", "asf": "Windows Media (WMV)",
            "ogg": "Ogg", "mpeg": "MPEG-PS", "mov": "QuickTime (MOV)", "gif": "GIF", "mxf": "MXF",
        ]
        for format in raw.lowercased().split(separator: ",") {
            if let name = known[String(format)] { return name }
        }
        return raw.split(separator: ",").first.map { $0.uppercased() } ?? raw
    }

    public static func codec(_ raw: String) -> String {
        let known: [String: String] = [
            "h264": "H.264", "hevc": "HEVC (H.265)", "vp8": "VP8", "vp9": "VP9", "av1": "AV1", "mpeg4": "MPEG-4 Part 2",
            "mpeg2video": "MPEG-2", "prores": "ProRes", "wmv3": "Windows Media Video", "theora": "Theora",
            "aac": "AAC", "opus": "Opus", "mp3": "MP3", "vorbis": "Vorbis", "ac3": "Dolby Digital (AC-3)", "eac3": "Dolby Digital Plus",
            "flac": "FLAC", "alac": "Apple Lossless", "wmav2": "Windows Media Audio",
        ]
        if let name = known[raw.lowercased()] { return name }
        return raw.hasPrefix("pcm_") ? "PCM" : raw.uppercased()
    }
}
