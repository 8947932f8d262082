import Foundation

/// Every page and file address of the video library in one place; routes are registered with the same
/// functions given `":id"` placeholders, so links and routes cannot drift apart.
public enum VideoPaths {
    public static let library = "/videos"
    public static let scan = "/videos/scan"
    public static let history = "/videos/history"
    public static let clearHistory = "/videos/history/clear"
    public static let playlists = "/videos/playlists"

    public static func video(_ id: String) -> String { "/videos/\(id)" }
    /// A video played as part of a playlist (the player moves on to the next one).
    public static func video(_ id: String, playlist: String, autoplay: Bool = false) -> String {
        video(id) + "?playlist=\(playlist)" + (autoplay ? "&autoplay=1" : "")
    }
    public static func stream(_ id: String) -> String { video(id) + "/stream" }
    public static func thumbnail(_ id: String) -> String { video(id) + "/thumbnail" }
    public static func captions(_ id: String) -> String { video(id) + "/captions" }
    public static func hide(_ id: String) -> String { video(id) + "/hide" }
    public static func delete(_ id: String) -> String { video(id) + "/delete" }
    public static func addToPlaylists(_ id: String) -> String { video(id) + "/playlists" }

    public static func playlist(_ id: String) -> String { "/videos/playlists/\(id)" }
    public static func renamePlaylist(_ id: String) -> String { playlist(id) + "/rename" }
    public static func deletePlaylist(_ id: String) -> String { playlist(id) + "/delete" }
    /// `action` is one of the item actions the playlist page offers (up, down, remove).
    public static func playlistItem(_ id: String, video: String, action: String) -> String { playlist(id) + "/items/\(video)/\(action)" }

    /// The library filtered by one tag (encoded but for letters and digits).
    public static func library(tag: String) -> String {
        library + "?tag=" + (tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}

/// Every address of the video library's JSON API, relative to `APIPaths.root`: the routes are registered with
/// these and the answers' links (`streamURL`, `thumbnailURL`, `captionsURL`) and the upload form use them too.
public enum VideoAPIPaths {
    public static let videos = "/videos"
    public static let continueWatching = videos + "/continue-watching"
    public static let history = videos + "/history"
    public static let scan = videos + "/library/scan"
    public static func video(_ id: String) -> String { videos + "/\(id)" }
    public static func stream(_ id: String) -> String { video(id) + "/stream" }
    public static func thumbnail(_ id: String) -> String { video(id) + "/thumbnail" }
    public static func captions(_ id: String) -> String { video(id) + "/captions" }
    public static func progress(_ id: String) -> String { video(id) + "/progress" }
    public static func plays(_ id: String) -> String { video(id) + "/plays" }
    public static func hide(_ id: String) -> String { video(id) + "/hide" }
    public static let playlists = "/playlists"
    public static func playlist(_ id: String) -> String { playlists + "/\(id)" }
    public static func items(_ id: String) -> String { playlist(id) + "/items" }
    public static func item(_ id: String, video: String) -> String { items(id) + "/\(video)" }
    public static func order(_ id: String) -> String { playlist(id) + "/order" }
}
