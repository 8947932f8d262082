import Foundation

/// Every page and file address of the health feature, in one place: routes are registered with the
/// same functions links and redirects use (given `":id"`-style placeholders), so a link cannot point
/// at a path no route serves.
public enum HealthPaths {
    public static let overview = "/health"
    public static let records = "/health/records"
    /// The form that adds a record, on the overview (there is no page of its own).
    public static let newRecord = overview + "#record-form"
    public static let importPage = "/health/import"
    public static let importCSV = "/health/import/csv"
    public static let exportCSV = "/health/export.csv"
    public static let trends = "/health/trends"
    public static let goals = "/health/goals"
    public static let profile = "/health/profile"
    public static let badges = "/health/badges"
    public static let reminders = "/health/reminders"
    public static let share = "/health/share"
    public static let shareCardSVG = "/health/share/card.svg"
    public static let shareCardPNG = "/health/share/card.png"

    public static func record(_ id: String) -> String { records + "/\(id)" }
    public static func editRecord(_ id: String) -> String { record(id) + "/edit" }
    public static func deleteRecord(_ id: String) -> String { record(id) + "/delete" }
    public static func deleteGoal(_ id: String) -> String { goals + "/\(id)/delete" }
    public static func deleteReminder(_ id: String) -> String { reminders + "/\(id)/delete" }
    /// A badge's image by its file name (`<key>.svg`); `locked` asks for the greyed version.
    public static func badgeImage(file: String) -> String { badges + "/\(file)" }
    public static func badgeImage(key: String, locked: Bool = false) -> String { badgeImage(file: key + ".svg") + (locked ? "?state=locked" : "") }
    public static func electrocardiogram(_ name: String) -> String { "/health/electrocardiograms/\(name)" }
    public static func shareCardSVG(query: String) -> String { shareCardSVG + "?" + query }
    public static func shareCardPNG(query: String) -> String { shareCardPNG + "?" + query }

    /// The overview after a change, with its notice: saved (and the badge it earned, if any) or deleted.
    public static func overviewSaved(badge: String? = nil) -> String { overview + "?saved=1" + (badge.map { "&badge=" + $0 } ?? "") }
    public static let overviewDeleted = overview + "?deleted=1"
}

/// Every address of the health JSON API, relative to `APIPaths.root`: the routes are registered with these
/// (given `":id"`-style placeholders), and `APIPathsTests` holds them to Resources/openapi/health.json.
public enum HealthAPIPaths {
    public static let records = "/health/records"
    public static func record(_ id: String) -> String { records + "/\(id)" }
    public static let exportCSV = "/health/export.csv"
    public static let importCSV = "/health/import.csv"
    /// Health Auto Export's REST API automation posts here.
    public static let autoExport = "/health/auto-export"
    public static let imports = "/health/imports"
    public static func importJob(_ id: String) -> String { imports + "/\(id)" }
    public static let electrocardiograms = "/health/electrocardiograms"
    public static func electrocardiogram(_ name: String) -> String { electrocardiograms + "/\(name)" }
    /// Workout routes as map tracks (the visits map draws them).
    public static let workoutRoutes = "/health/workouts/routes"
    public static let profile = "/health/profile"
    public static let goals = "/health/goals"
    public static func goal(_ id: String) -> String { goals + "/\(id)" }
    public static let badges = "/health/badges"
    public static let trends = "/health/trends"
    public static let reminders = "/health/reminders"
    public static func reminder(_ id: String) -> String { reminders + "/\(id)" }
}
