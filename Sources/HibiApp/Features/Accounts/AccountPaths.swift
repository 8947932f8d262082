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
    public static let adminBackups = "/admin/backups"
    public static let adminMap = "/admin/map"

    public static func revokeToken(_ id: String) -> String { tokens + "/\(id)/revoke" }
    public static func revokeDevice(_ id: String) -> String { "/settings/devices/\(id)/revoke" }
    /// `action` is `disable` or `enable`.
    public static func setUserDisabled(_ id: String, action: String) -> String { adminUsers + "/\(id)/\(action)" }
    public static func resetUser(_ id: String) -> String { adminUsers + "/\(id)/reset" }
    /// A part of the settings page.
    public static func settings(section: String) -> String { settings + "#" + section }
}
