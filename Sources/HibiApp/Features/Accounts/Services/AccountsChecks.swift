import SQLKit

extension CheckSchema {
    /// Accounts' rules for migration 33 (`CheckSchema`), kept as the code that writes these tables keeps them: AccountRules.normalizeUsername (3 to 32 characters), normalizeDisplayName (the username
    /// when left empty), validateTokenName (1 to 64), Language (en, ja).
    static let accountsRules: [Rule] = [
        Rule(table: "users", name: "users_username_not_empty", check: #""username" <> ''"#, repair: #""username" = "id""#),
        Rule(table: "users", name: "users_display_name_not_empty", check: #""display_name" <> ''"#, repair: #""display_name" = "username""#),
        Rule(table: "users", name: "users_language", check: among("language", Language.allCases.map(\.rawValue), nullable: true),
             repair: #""language" = NULL"#),
        Rule(table: "api_tokens", name: "api_tokens_name_not_empty", check: #""name" <> ''"#, repair: #""name" = 'API token'"#),
        Rule(table: "login_failures", name: "login_failures_failures", check: #""failures" >= 0"#, repair: #""failures" = 0"#),
    ]
}
