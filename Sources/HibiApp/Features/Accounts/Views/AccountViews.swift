import Foundation

enum AccountViews {
    static func setup(context: HibiRequestContext, error: String? = nil, username: String = "", displayName: String = "") -> Node {
        let l = context.language
        return Layout.page(title: CommonStrings.setupTitle(l), context: context) {
            el("article", .class("narrow card")) {
                el("hgroup") {
                    el("h1") { CommonStrings.setupTitle(l) }
                    el("p") { CommonStrings.setupIntro(l) }
                }
                if let error { Layout.notice(error, kind: .error) }
                el("form", .method("post"), .action(AccountPaths.setup), .id("setup-form")) {
                    Layout.csrfField(context)
                    Layout.field(label: CommonStrings.username(l), id: "username", .name("username"), .value(username), .autocomplete("username"), .required, .autofocus,
                                 .minlength(3), .maxlength(32))
                    Layout.field(label: CommonStrings.displayName(l), id: "display_name", .name("display_name"), .value(displayName), .maxlength(64))
                    Layout.field(label: CommonStrings.password(l), id: "password", .name("password"), .type("password"), .autocomplete("new-password"), .required,
                                 .minlength(AccountRules.minimumPasswordLength), .aria("describedby", "password-rules"))
                    passwordRules(l)
                    Layout.field(label: CommonStrings.passwordConfirm(l), id: "password_confirm", .name("password_confirm"), .type("password"),
                                 .autocomplete("new-password"), .required, .minlength(AccountRules.minimumPasswordLength))
                    input(.type("hidden"), .name("time_zone"), .value("UTC"), .data("browser-time-zone", "true"))
                    el("button", .type("submit")) { CommonStrings.createAccount(l) }
                }
            }
        }
    }

    /// `face` is the face sign-in box, present only on a remembered device whose user enrolled a face.
    /// The rules next to the field, not only in the browser's popup after a refused submit.
    static func passwordRules(_ l: Language) -> Node {
        el("small", .id("password-rules"), .class("field-help")) {
            CommonStrings.passwordRules(l, String(AccountRules.minimumPasswordLength))
        }
    }

    static func login(context: HibiRequestContext, error: String? = nil, username: String = "", next: String = "/", face: Node? = nil) -> Node {
        let l = context.language
        return Layout.page(title: CommonStrings.signIn(l), context: context) {
            el("article", .class("narrow card")) {
                el("hgroup") {
                    el("h1") { CommonStrings.signIn(l) }
                    el("p") { CommonStrings.tagline(l) }
                }
                if let error { Layout.notice(error, kind: .error) }
                if let face {
                    face
                    el("h2") { CommonStrings.orWithPassword(l) }
                }
                el("form", .method("post"), .action(AccountPaths.login), .id("login-form")) {
                    Layout.csrfField(context)
                    input(.type("hidden"), .name("next"), .value(next))
                    Layout.field(label: CommonStrings.username(l), id: "username", .name("username"), .value(username), .autocomplete("username"), .required, .autofocus)
                    Layout.field(label: CommonStrings.password(l), id: "password", .name("password"), .type("password"), .autocomplete("current-password"), .required)
                    el("label", .class("inline-check")) {
                        input(.type("checkbox"), .name("remember_device"), .value("on"), .id("remember-device"))
                        CommonStrings.rememberDevice(l)
                    }
                    el("button", .type("submit")) { CommonStrings.signIn(l) }
                }
            }
            if face != nil { el("script", .src("/static/face.js"), .init("defer", nil)) }
        }
    }

    struct SettingsNotices {
        var profile: (String, Layout.NoticeKind)?
        var password: (String, Layout.NoticeKind)?
        var tokens: (String, Layout.NoticeKind)?
        var newToken: String?
    }

    static func settings(context: HibiRequestContext, user: User, tokens: [APIToken], devices: [RememberedDevice],
                         notices: SettingsNotices = .init(), takeoutVideos: (count: Int, bytes: Int64) = (0, 0)) -> Node {
        let l = context.language
        // Foundation's list lacks "UTC", the default for accounts made from the shell.
        let zones = Set(TimeZone.knownTimeZoneIdentifiers + ["UTC", user.timeZone]).sorted()
        return Layout.page(title: CommonStrings.settings(l), context: context) {
            el("h1") { CommonStrings.settings(l) }
            settingsNav(l, current: AccountPaths.settings)
            el("section", .class("card"), .id("profile")) {
                el("h2") { CommonStrings.profile(l) }
                if let (text, kind) = notices.profile { Layout.notice(text, kind: kind) }
                el("form", .method("post"), .action(AccountPaths.profile)) {
                    Layout.csrfField(context)
                    Layout.field(label: CommonStrings.displayName(l), id: "display_name", .name("display_name"), .value(user.displayName), .maxlength(64), .required)
                    el("div", .class("grid")) {
                        el("label", .for("pref_language")) {
                            CommonStrings.language(l)
                            el("select", .name("language"), .id("pref_language")) {
                                for option in Language.allCases {
                                    el("option", [.value(option.rawValue)] + (option == l ? [.selected] : [])) { option.nativeName }
                                }
                            }
                        }
                        el("label", .for("time_zone")) {
                            CommonStrings.timeZone(l)
                            el("select", .name("time_zone"), .id("time_zone")) {
                                for zone in zones {
                                    el("option", [.value(zone)] + (zone == user.timeZone ? [.selected] : [])) { zone }
                                }
                            }
                        }
                    }
                    el("button", .type("submit")) { CommonStrings.save(l) }
                }
            }
            el("section", .class("card"), .id("password-section")) {
                el("h2") { CommonStrings.changePassword(l) }
                if let (text, kind) = notices.password { Layout.notice(text, kind: kind) }
                el("form", .method("post"), .action(AccountPaths.password)) {
                    Layout.csrfField(context)
                    Layout.field(label: CommonStrings.currentPassword(l), id: "current_password", .name("current_password"), .type("password"), .autocomplete("current-password"), .required)
                    Layout.field(label: CommonStrings.newPassword(l), id: "new_password", .name("new_password"), .type("password"), .autocomplete("new-password"), .required,
                                 .minlength(AccountRules.minimumPasswordLength), .aria("describedby", "password-rules"))
                    passwordRules(l)
                    Layout.field(label: CommonStrings.passwordConfirm(l), id: "new_password_confirm", .name("new_password_confirm"), .type("password"),
                                 .autocomplete("new-password"), .required)
                    el("button", .type("submit")) { CommonStrings.changePassword(l) }
                }
            }
            el("section", .class("card"), .id("takeout")) {
                el("h2") { TakeoutStrings.title(l) }
                el("p", .class("muted")) { TakeoutStrings.intro(l) }
                el("p", .id("takeout-videos")) { TakeoutStrings.videos(l, count: takeoutVideos.count, bytes: takeoutVideos.bytes) }
                el("p", .class("button-row")) {
                    el("a", .href(AccountPaths.takeout), .role("button"), .id("download-all"), .init("download", nil)) { TakeoutStrings.download(l) }
                    " "
                    el("a", .href(AccountPaths.takeoutImport), .role("button"), .class("secondary outline"), .id("import-takeout")) { TakeoutStrings.importLink(l) }
                }
            }
            el("section", .class("card"), .id("tokens")) {
                el("h2") { CommonStrings.apiTokens(l) }
                el("p", .class("muted")) { CommonStrings.apiTokensIntro(l) }
                if let (text, kind) = notices.tokens { Layout.notice(text, kind: kind) }
                if let token = notices.newToken {
                    el("div", .class("notice success")) {
                        el("p") { CommonStrings.tokenCreated(l) }
                        el("code", .id("new-token"), .class("token")) { token }
                    }
                }
                if tokens.isEmpty {
                    el("p", .class("empty")) { CommonStrings.noTokens(l) }
                } else {
                    el("div", .class("overflow-auto")) {
                        el("table", .id("tokens"), .class("cards")) {
                            el("thead") {
                                el("tr") {
                                    el("th") { CommonStrings.tokenName(l) }
                                    el("th") { "ID" }
                                    el("th") { CommonStrings.tokenScopes(l) }
                                    el("th") { CommonStrings.created(l) }
                                    el("th") { CommonStrings.lastUsed(l) }
                                    el("th") { "" }
                                }
                            }
                            el("tbody") {
                                for token in tokens {
                                    el("tr") {
                                        el("td", .data("label", CommonStrings.tokenName(l))) { token.name }
                                        el("td", .data("label", "ID")) { el("code") { token.prefix + "…" } }
                                        el("td", .class("token-scopes"), .data("label", CommonStrings.tokenScopes(l))) { token.scopes.text }
                                        el("td", .data("label", CommonStrings.created(l))) { Layout.formatDate(token.createdAt, user: user, language: l) }
                                        el("td", .data("label", CommonStrings.lastUsed(l))) { token.lastUsedAt.map { Layout.formatDate($0, user: user, language: l) } ?? CommonStrings.never(l) }
                                        el("td") {
                                            el("form", .method("post"), .action(AccountPaths.revokeToken(token.id)), .class("inline")) {
                                                Layout.csrfField(context)
                                                el("button", .type("submit"), .class("secondary outline small")) { CommonStrings.revoke(l) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                el("form", .method("post"), .action(AccountPaths.tokens), .id("token-form")) {
                    Layout.csrfField(context)
                    Layout.field(label: CommonStrings.tokenName(l), id: "token-name", .name("name"), .required, .maxlength(64))
                    el("fieldset") {
                        el("legend") { CommonStrings.tokenScopes(l) }
                        el("label", .class("inline-check")) { input(.type("checkbox"), .name("scope_read"), .checked, .disabled); CommonStrings.scopeRead(l) }
                        el("label", .class("inline-check")) { input(.type("checkbox"), .name("scope_write"), .id("scope-write")); CommonStrings.scopeWrite(l) }
                        el("label", .class("inline-check")) { input(.type("checkbox"), .name("scope_diary"), .id("scope-diary")); CommonStrings.scopeDiary(l) }
                    }
                    Layout.field(label: CommonStrings.tokenPasswordHint(l), id: "token-password", .name("password"), .type("password"),
                                 .autocomplete("current-password"))
                    el("button", .type("submit")) { CommonStrings.createToken(l) }
                    el("p", .class("muted")) { CommonStrings.tokensRevokedWithSessions(l) }
                }
            }
            el("section", .class("card"), .id("devices")) {
                el("h2") { CommonStrings.devices(l) }
                el("p", .class("muted")) { CommonStrings.devicesIntro(l) }
                if devices.isEmpty {
                    el("p", .class("empty")) { CommonStrings.noDevices(l) }
                } else {
                    el("div", .class("overflow-auto")) {
                        el("table", .id("devices-table"), .class("cards")) {
                            el("thead") {
                                el("tr") {
                                    el("th") { CommonStrings.device(l) }
                                    el("th") { CommonStrings.created(l) }
                                    el("th") { CommonStrings.lastUsed(l) }
                                    el("th") { "" }
                                }
                            }
                            el("tbody") {
                                for device in devices {
                                    el("tr", .data("device", device.id)) {
                                        el("td", .data("label", CommonStrings.device(l))) { device.label }
                                        el("td", .data("label", CommonStrings.created(l))) { Layout.formatDate(device.createdAt, user: user, language: l) }
                                        el("td", .data("label", CommonStrings.lastUsed(l))) { device.lastUsedAt.map { Layout.formatDate($0, user: user, language: l) } ?? CommonStrings.never(l) }
                                        el("td") {
                                            el("form", .method("post"), .action(AccountPaths.revokeDevice(device.id)), .class("inline")) {
                                                Layout.csrfField(context)
                                                el("button", .type("submit"), .class("secondary outline small")) { CommonStrings.forget(l) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            el("section", .class("card"), .id("sessions")) {
                el("h2") { CommonStrings.dangerZone(l) }
                el("p") { CommonStrings.sessionsIntro(l) }
                el("form", .method("post"), .action(AccountPaths.logoutEverywhere), .id("sign-out-everywhere"), .data("confirm", CommonStrings.signOutEverywhereConfirm(l))) {
                    Layout.csrfField(context)
                    el("button", .type("submit"), .class("secondary")) { CommonStrings.signOutEverywhere(l) }
                }
            }
        }
    }

    static func admin(context: HibiRequestContext, users: [User], me: User, notice: (String, Layout.NoticeKind)? = nil,
                      temporary: (String, String)? = nil) -> Node {
        let l = context.language
        return Layout.page(title: CommonStrings.admin(l), context: context) {
            el("h1") { CommonStrings.users(l) }
            Layout.adminNav(l, current: AccountPaths.adminUsers)
            if let (text, kind) = notice { Layout.notice(text, kind: kind) }
            if let (name, password) = temporary {
                el("div", .class("notice success"), .role("status")) {
                    el("p") { CommonStrings.temporaryPassword(l, name) }
                    el("code", .id("temporary-password"), .class("token")) { password }
                }
            }
            el("div", .class("overflow-auto card")) {
                el("table", .id("users"), .class("cards")) {
                    el("thead") {
                        el("tr") {
                            el("th") { CommonStrings.username(l) }
                            el("th") { CommonStrings.displayName(l) }
                            el("th") { CommonStrings.status(l) }
                            el("th") { CommonStrings.actions(l) }
                        }
                    }
                    el("tbody") {
                        for user in users {
                            el("tr", .data("username", user.username)) {
                                el("td", .data("label", CommonStrings.username(l))) {
                                    user.username
                                    if user.isAdmin { el("span", .class("badge")) { CommonStrings.administrator(l) } }
                                    if user.id == me.id { el("span", .class("badge muted")) { CommonStrings.you(l) } }
                                }
                                el("td", .data("label", CommonStrings.displayName(l))) { user.displayName }
                                el("td", .data("label", CommonStrings.status(l))) { user.disabled ? CommonStrings.disabledLabel(l) : CommonStrings.activeLabel(l) }
                                el("td", .class("actions")) {
                                    if user.id != me.id {
                                        el("form", .method("post"), .action(AccountPaths.setUserDisabled(user.id, action: user.disabled ? "enable" : "disable")), .class("inline")) {
                                            Layout.csrfField(context)
                                            el("button", .type("submit"), .class("secondary outline small")) { user.disabled ? CommonStrings.enable(l) : CommonStrings.disable(l) }
                                        }
                                    }
                                    el("form", .method("post"), .action(AccountPaths.resetUser(user.id)), .class("inline")) {
                                        Layout.csrfField(context)
                                        el("button", .type("submit"), .class("secondary outline small")) { CommonStrings.resetPassword(l) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            el("section", .class("card")) {
                el("h2") { CommonStrings.addUser(l) }
                el("form", .method("post"), .action(AccountPaths.adminUsers), .id("add-user")) {
                    Layout.csrfField(context)
                    el("div", .class("grid")) {
                        Layout.field(label: CommonStrings.username(l), id: "new_username", .name("username"), .required, .minlength(3), .maxlength(32))
                        Layout.field(label: CommonStrings.displayName(l), id: "new_display_name", .name("display_name"), .maxlength(64))
                    }
                    Layout.field(label: CommonStrings.password(l), id: "new_password", .name("password"), .type("password"), .autocomplete("new-password"),
                                 .required, .minlength(AccountRules.minimumPasswordLength))
                    el("label") {
                        input(.type("checkbox"), .name("is_admin"), .init("role", "switch"))
                        CommonStrings.administrator(l)
                    }
                    el("button", .type("submit")) { CommonStrings.addUser(l) }
                }
            }
        }
    }
}
