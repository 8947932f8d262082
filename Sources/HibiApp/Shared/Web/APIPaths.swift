/// Where the JSON API is mounted. Each feature's `<Name>APIPaths` holds its addresses relative to this root
/// (registered with them, given `":id"`-style placeholders); links that name an API address add the root.
public enum APIPaths {
    public static let root = "/api/v1"

    /// A feature's API path as a client asks for it.
    public static func url(_ path: String) -> String { root + path }
}
