import Foundation

/// Operator settings of the video library, read from HIBI_VIDEO_* variables.
public struct VideoSettings: FeatureSettings {
    /// Largest upload accepted, in bytes (HIBI_VIDEO_MAX_MB). The global JSON body limit does not apply to uploads.
    public var maxUploadBytes: Int64
    /// Read-only folder shared with every user (HIBI_VIDEO_LIBRARY_DIR); nil when there is none.
    public var libraryDirectory: String?
    /// How often the shared folder is scanned again (HIBI_VIDEO_SCAN_MINUTES; 0 scans only at start and on demand).
    public var scanInterval: TimeInterval
    public var ffprobePath: String
    public var ffmpegPath: String

    public init(maxUploadBytes: Int64 = 4096 * 1024 * 1024, libraryDirectory: String? = nil, scanInterval: TimeInterval = 600,
                ffprobePath: String = "/usr/bin/ffprobe", ffmpegPath: String = "/usr/bin/ffmpeg") {
        self.maxUploadBytes = maxUploadBytes
        self.libraryDirectory = libraryDirectory
        self.scanInterval = scanInterval
        self.ffprobePath = ffprobePath
        self.ffmpegPath = ffmpegPath
    }

    public static var defaults: VideoSettings { VideoSettings() }

    public static func load(environment: [String: String]) throws(ConfigError) -> VideoSettings {
        var settings = VideoSettings()
        if let raw = environment["HIBI_VIDEO_MAX_MB"], !raw.isEmpty {
            guard let mb = Int64(raw), mb > 0, mb <= 1_048_576 else {
                throw ConfigError(setting: "HIBI_VIDEO_MAX_MB", reason: "\"\(raw)\" is not a size in megabytes (1-1048576)")
            }
            settings.maxUploadBytes = mb * 1024 * 1024
        }
        if let dir = environment["HIBI_VIDEO_LIBRARY_DIR"], !dir.isEmpty {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConfigError(setting: "HIBI_VIDEO_LIBRARY_DIR", reason: "\"\(dir)\" is not an existing folder")
            }
            settings.libraryDirectory = dir
        }
        if let raw = environment["HIBI_VIDEO_SCAN_MINUTES"], !raw.isEmpty {
            guard let minutes = Int(raw), minutes >= 0, minutes <= 100_000 else {
                throw ConfigError(setting: "HIBI_VIDEO_SCAN_MINUTES", reason: "\"\(raw)\" is not a number of minutes (0 = only at start)")
            }
            settings.scanInterval = TimeInterval(minutes * 60)
        }
        if let path = environment["HIBI_FFPROBE"], !path.isEmpty { settings.ffprobePath = path }
        if let path = environment["HIBI_FFMPEG"], !path.isEmpty { settings.ffmpegPath = path }
        return settings
    }
}

extension AppConfig {
    /// Videos' settings (`HIBI_VIDEO_*`, `VideosFeature.settings`).
    public var videos: VideoSettings {
        get { self[settings: VideoSettings.self] }
        set { self[settings: VideoSettings.self] = newValue }
    }
}
