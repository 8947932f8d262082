import Foundation

/// A page of the administration section, declared by the feature that serves it (`Feature.adminPages`): the
/// section's own menu lists them by `order`, lowest first.
public struct AdminPage: Sendable {
    public let order: Int
    public let path: String
    public let title: Text
    /// The menu link's element id.
    public let linkID: String

    public init(order: Int, path: String, title: Text, linkID: String) {
        self.order = order
        self.path = path
        self.title = title
        self.linkID = linkID
    }
}

extension Layout {
    /// Every feature's administration pages, in menu order (the assembly's feature types declare them).
    static let adminPages: [AdminPage] = Features.types.flatMap { $0.adminPages }.sorted { $0.order < $1.order }

    /// The administration pages' own menu, in the same place as every section's menu.
    public static func adminNav(_ l: Language, current: String) -> Node {
        el("nav", .class("section-nav admin-nav"), .aria("label", CommonStrings.admin(l))) {
            el("ul") {
                for page in adminPages {
                    el("li") { el("a", [.href(page.path), .id(page.linkID)] + (current == page.path ? [.aria("current", "page")] : [])) { page.title(l) } }
                }
            }
        }
    }

    /// A moment as the person reads it: their time zone, a short date and time in their language.
    public static func formatDate(_ date: Date, user: User, language: Language) -> String {
        date.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened,
                                        locale: Locale(identifier: language == .ja ? "ja_JP" : "en_US"),
                                        timeZone: TimeZone(identifier: user.timeZone) ?? .gmt))
    }
}
