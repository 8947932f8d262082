/// One link of the main navigation.
public struct NavItem: Sendable {
    public let path: String
    public let title: Text
    public let icon: String

    public init(path: String, title: Text, icon: String) {
        self.path = path
        self.title = title
        self.icon = icon
    }
}

/// A feature's place in the main navigation (`Feature.navigation`): entries are shown by `order`, lowest first.
public struct NavEntry: Sendable {
    public let order: Int
    public let item: NavItem

    public init(order: Int, item: NavItem) {
        self.order = order
        self.item = item
    }
}

/// Pages the frame of every page (and the shared middleware) links to, each declared by the feature that serves it
/// (`Feature.sitePages`): the search box, the account menu, the language form, sign-in and setup.
public enum SitePage: Sendable, CaseIterable {
    case search, settings, administration, signIn, setup, signOut, language

    /// Every feature's declared pages, collected once; `WallTests` checks each is declared exactly once.
    static let declared: [(page: SitePage, path: String)] = Features.types.flatMap { $0.sitePages }
    private static let paths = Dictionary(declared.map { ($0.page, $0.path) }, uniquingKeysWith: { first, _ in first })

    public var path: String { Self.paths[self] ?? "/" }
}

public enum Layout {
    /// The main navigation: every feature's entry, in order (the assembly collects them: `Layout.navigation(of:)`).
    public static let navigation: [NavItem] = navigation(of: Features.types.compactMap { $0.navigation })

    static func navigation(of entries: [NavEntry]) -> [NavItem] {
        entries.sorted { $0.order < $1.order }.map(\.item)
    }

    public static func page(title: String, context: HibiRequestContext, current: String? = nil,
                            @NodeBuilder content: () -> [Node]) -> Node {
        let language = context.language
        // No data-theme here: Pico follows the system's colour scheme; theme.js applies the user's choice.
        return el("html", .lang(language.rawValue)) {
            el("head") {
                meta(.init("charset", "utf-8"))
                meta(.name("viewport"), .init("content", "width=device-width, initial-scale=1"))
                meta(.name("color-scheme"), .init("content", "light dark"))
                meta(.name("csrf-token"), .init("content", context.csrfToken))
                el("title") { "\(title) · \(CommonStrings.appName(language))" }
                link(.init("rel", "stylesheet"), .href("/vendor/pico/pico.min.css"))
                link(.init("rel", "stylesheet"), .href("/static/app.css"))
                link(.init("rel", "icon"), .href("/static/icon.svg"), .type("image/svg+xml"))
                // Installable on a phone: manifest, icons, and a service worker for the shell and an offline page.
                link(.init("rel", "manifest"), .href("/static/manifest.json"))
                link(.init("rel", "apple-touch-icon"), .href("/static/icons/icon-192.png"))
                meta(.name("theme-color"), .init("content", "#c2410c"))
                // Not deferred: the chosen theme is set before the first paint (no flash of the other scheme).
                el("script", .src("/static/theme.js")) { "" }
            }
            el("body") {
                el("a", .class("skip"), .href("#main")) { CommonStrings.skipToContent(language) }
                header(context: context, current: current)
                el("main", .class("container"), .id("main")) { content() }
                footer(context: context)
                el("script", .src("/static/app.js"), .init("defer", nil))
                el("script", .src("/static/register-sw.js"), .init("defer", nil))
            }
        }
    }

    static func header(context: HibiRequestContext, current: String?) -> Node {
        let language = context.language
        return el("header", .class("site-header")) {
            el("nav", .class("container")) {
                el("ul") {
                    el("li") {
                        el("a", .href("/"), .class("brand")) {
                            el("span", .class("brand-mark"), .aria("hidden", "true")) { "日" }
                            el("strong") { CommonStrings.appName(language) }
                        }
                    }
                }
                if let user = context.user {
                    el("ul", .class("main-nav")) {
                        for item in navigation {
                            el("li") {
                                el("a", [.href(item.path)] + (current == item.path ? [.aria("current", "page")] : [])) {
                                    el("span", .class("nav-icon"), .aria("hidden", "true")) { item.icon }
                                    el("span") { item.title(language) }
                                }
                            }
                        }
                        // One search box for everything, on every page (a link to the search page where the header is narrow).
                        el("li", .class("header-search")) {
                            el("form", .method("get"), .action(SitePage.search.path), .role("search")) {
                                input(.type("search"), .name("q"), .id("header-search"), .placeholder(CommonStrings.search(language)),
                                      .aria("label", CommonStrings.searchEverything(language)))
                            }
                            el("a", .href(SitePage.search.path), .class("search-link"), .aria("label", CommonStrings.searchEverything(language))) { "🔍" }
                        }
                        el("li") {
                            el("details", .class("dropdown user-menu")) {
                                el("summary", .aria("label", CommonStrings.userMenu(language, user.displayName))) { user.displayName }
                                // A menu of its own (app.css), not dir=rtl: that reversed the items and left them inline.
                                el("ul", .class("user-menu-items")) {
                                    el("li") { el("a", .href(SitePage.settings.path)) { CommonStrings.settings(language) } }
                                    if user.isAdmin {
                                        el("li") { el("a", .href(SitePage.administration.path)) { CommonStrings.admin(language) } }
                                    }
                                    el("li") {
                                        el("form", .method("post"), .action(SitePage.signOut.path), .class("inline")) {
                                            csrfField(context)
                                            el("button", .type("submit"), .class("linklike"), .id("sign-out")) { CommonStrings.signOut(language) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func footer(context: HibiRequestContext) -> Node {
        let language = context.language
        return el("footer", .class("container site-footer")) {
            el("form", .method("post"), .action(SitePage.language.path), .class("language-switch")) {
                csrfField(context)
                el("label", .for("language-select")) { CommonStrings.language(language) }
                el("select", .name("language"), .id("language-select"), .data("autosubmit", "true")) {
                    for option in Language.allCases {
                        el("option", [.value(option.rawValue)] + (option == language ? [.selected] : [])) { option.nativeName }
                    }
                }
                el("button", .type("submit"), .class("secondary outline"), .id("language-apply")) { CommonStrings.save(language) }
            }
            el("div", .class("theme-switch")) {
                el("label", .for("theme-select")) { CommonStrings.appearance(language) }
                el("select", .id("theme-select")) {
                    el("option", .value("system")) { CommonStrings.themeSystem(language) }
                    el("option", .value("light")) { CommonStrings.themeLight(language) }
                    el("option", .value("dark")) { CommonStrings.themeDark(language) }
                }
            }
            el("small", .class("muted")) { CommonStrings.tagline(language) }
        }
    }

    public static func csrfField(_ context: HibiRequestContext) -> Node {
        input(.type("hidden"), .name("_csrf"), .value(context.csrfToken))
    }

    /// A message box for form feedback; `role=alert` makes screen readers announce errors.
    public static func notice(_ text: String, kind: NoticeKind) -> Node {
        el("p", .class("notice \(kind.rawValue)"), .role(kind == .error ? "alert" : "status")) { text }
    }

    public enum NoticeKind: String, Sendable {
        case error
        case success
        case info
    }

    public static func field(label: String, id: String, _ attributes: Attribute...) -> Node {
        el("label", .for(id)) {
            label
            Node.void("input", [.id(id)] + attributes)
        }
    }
}
