import Foundation
import Hummingbird

/// Accounts: setup, sign-in (password and face on a remembered device), settings, tokens, the admin
/// pages and each person's takeout. It asks the diary for face checks and its lock, and every feature's
/// `TakeoutOffer` for the takeout (Shared/Offers); it never reads their tables.
public struct AccountsFeature: Feature {
    public let devices: DeviceStore
    public let takeout: TakeoutService
    let platform: Platform
    let diary: DiaryFeature

    init(platform: Platform, diary: DiaryFeature, takeoutOffers: [any TakeoutOffer],
         takeoutVideoFiles: @escaping @Sendable (String) async throws -> (count: Int, bytes: Int64)) {
        self.platform = platform
        self.diary = diary
        devices = DeviceStore(database: platform.database)
        takeout = TakeoutService(offers: takeoutOffers, uploads: diary.transfer, videoFiles: takeoutVideoFiles)
    }

    public func routes() -> FeatureRoutes {
        let config = platform.config
        let lock = diary.lock
        let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool = { [clock = platform.clock] in
            try await lock.isUnlocked($0, now: clock.now())
        }
        let faceSignIn = FaceSignInRoutes(faces: diary.faces, devices: devices, sessions: platform.sessions, lock: lock,
                                          secureCookies: config.usesSecureCookies, sessionLifetime: config.sessionLifetime,
                                          maxUpload: DiaryFeature.maxUpload)
        return .build { web, api in
            AccountWebRoutes(accounts: platform.accounts, sessions: platform.sessions, tokens: platform.tokens, devices: devices,
                             faceSignIn: faceSignIn, setupState: SetupState(users: platform.users), secureCookies: config.usesSecureCookies,
                             sessionLifetime: config.sessionLifetime, diaryUnlocked: diaryUnlocked,
                             takeoutVideos: { [takeout] in try await takeout.videoFiles(userID: $0) })
                .register(on: web, signedIn: web.signedIn())
            AdminWebRoutes(accounts: platform.accounts, users: platform.users, mapTiles: platform.mapTiles).register(on: web.admin())
            AccountAPIRoutes(accounts: platform.accounts, tokens: platform.tokens, bodyLimit: config.maxRequestBodyBytes,
                             diaryUnlocked: diaryUnlocked).register(on: api.signedIn())
            faceSignIn.register(on: api)
            TakeoutRoutes(takeout: takeout, heavyWork: platform.heavyWork).register(web: web.diary(lock), api: api.diary(lock))
        }
    }
}

extension AccountsFeature {
    public static var sitePages: [(page: SitePage, path: String)] {
        [(.settings, AccountPaths.settings), (.administration, AccountPaths.adminUsers), (.signIn, AccountPaths.login),
         (.setup, AccountPaths.setup), (.signOut, AccountPaths.logout), (.language, AccountPaths.language)]
    }
}
