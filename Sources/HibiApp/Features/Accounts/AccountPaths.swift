import Foundation

/// Every account and administration address in one place; routes are registered with the same
/// functions (given `":id"` placeholders) that links, forms and redirects use.
public enum AccountPaths {
    public static let today = "/"
    public static let setup = "/setup"
    public static let login = "/login"
    public static let logout = "/logout"
    public static let logoutEverywhere = "/logout/all"
    public static let language = "/language"
    public static let settings = "/settings"
    public static let profile = "/settings/profile"
    public static let password = "/settings/password"
    public static let tokens = "/settings/tokens"
    public static let takeout = "/settings/export.zip"
    /// Settings → Import: a takeout read back into this account (the takeout's README names it).
    public static let takeoutImport = "/settings/import"
    public static let adminUsers = "/admin/users"
    public static let adminMap = "/admin/map"

    public static func revokeToken(_ id: String) -> String { tokens + "/\(id)/revoke" }
    public static func revokeDevice(_ id: String) -> String { "/settings/devices/\(id)/revoke" }
    /// `action` is `disable` or `enable`.
    public static func setUserDisabled(_ id: String, action: String) -> String { adminUsers + "/\(id)/\(action)" }
    public static func resetUser(_ id: String) -> String { adminUsers + "/\(id)/reset" }
    /// A part of the settings page.
    public static func settings(section: String) -> String { settings + "#" + section }
}

/// Every address of Accounts' JSON API, relative to `APIPaths.root`: the routes are registered with these, and
/// the sign-in page's face box asks the face sign-in's with `APIPaths.url(...)`.
public enum AccountAPIPaths {
    public static let me = "/me"
    public static let tokens = "/tokens"
    public static func token(_ id: String) -> String { tokens + "/\(id)" }
    /// The takeout: a person's data as one ZIP, and one read back into this account.
    public static let export = me + "/export"
    public static let importTakeout = me + "/import"
    /// Sign-in with the face on a remembered device.
    public static let faceChallenge = "/auth/face/challenge"
    public static let faceFrame = "/auth/face/frame"
}
