import Foundation

// Accounts' side of the protocols in Shared/Offers/Offers+Accounts.swift.
extension SessionStore: SessionUnlocks {}
extension LoginThrottleStore: LoginAttempts {}
extension AccountService: PasswordCheck {}
extension UserStore: PeopleDirectory {}
extension TokenStore: TokenCheck {}
extension SetupState: SetupCheck {}
