import Foundation
import Hummingbird

/// Accounts: setup, sign-in (password and face on a remembered device), settings, tokens, the admin
/// pages and each person's takeout. It asks the diary for face checks and its lock (`FaceSignInCheck`,
/// `DiaryGate`), and every feature's `TakeoutOffer` for the takeout (Shared/Offers); it never reads their tables.
public struct AccountsFeature: Feature {
    public let devices: DeviceStore
    public let takeout: TakeoutService
    let platform: Platform
    let faces: any FaceSignInCheck
    let diaryLock: any DiaryGate

    init(platform: Platform, faces: any FaceSignInCheck, diaryLock: any DiaryGate, takeoutOffers: [any TakeoutOffer],
         uploads: any ArchiveUploads, takeoutVideoFiles: @escaping @Sendable (String) async throws -> (count: Int, bytes: Int64)) {
        self.platform = platform
        self.faces = faces
        self.diaryLock = diaryLock
        devices = DeviceStore(database: platform.database)
        takeout = TakeoutService(offers: takeoutOffers, uploads: uploads, videoFiles: takeoutVideoFiles)
    }

    public func routes() -> FeatureRoutes {
        let config = platform.config
        let diaryUnlocked: @Sendable (HibiRequestContext) async throws -> Bool = { [clock = platform.clock, diaryLock] in
            try await diaryLock.isUnlocked($0, now: clock.now())
        }
        let faceSignIn = FaceSignInRoutes(faces: faces, devices: devices, sessions: platform.sessions, diaryLock: diaryLock,
                                          secureCookies: config.usesSecureCookies, sessionLifetime: config.sessionLifetime)
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
            // The takeout holds the diary, so it is served behind the diary's lock.
            TakeoutRoutes(takeout: takeout, heavyWork: platform.heavyWork)
                .register(web: web.signedIn(behind: diaryLock), api: api.signedIn(behind: diaryLock))
        }
    }
}

extension AccountsFeature {
    public static var sitePages: [(page: SitePage, path: String)] {
        [(.settings, AccountPaths.settings), (.administration, AccountPaths.adminUsers), (.signIn, AccountPaths.login),
         (.setup, AccountPaths.setup), (.signOut, AccountPaths.logout), (.language, AccountPaths.language)]
    }

    public static var adminPages: [AdminPage] {
        [AdminPage(order: 10, path: AccountPaths.adminUsers, title: CommonStrings.users, linkID: "admin-users-link"),
         AdminPage(order: 30, path: AccountPaths.adminMap, title: AdminMapStrings.title, linkID: "admin-map-link")]
    }
}
