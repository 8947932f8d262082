import Foundation
import Hummingbird
import SQLKit

// The seams on Accounts' side of the walls: what Accounts offers the platform (who a request's token or session
// names) and the other features (sessions, the throttle, the password check, the people, tokens, the setup check: Accounts' types conform in Features/Accounts/AccountsOffers.swift),
// and what the others offer Accounts: the takeout's parts (`TakeoutOffer`, `ArchiveUploads`), and the diary's face
// check and lock for face sign-in and the takeout (`FaceSignInCheck`, `DiaryGate`), conformed in each feature's
// `<Name>Offers.swift`. Each is declared for the side that needs it; the assembly (`Features.init`) hands them over.

/// Who a request's credential names, with the person it belongs to: a personal API token sent as `Bearer`, or a
/// browser session's cookie; nil when it names nobody (wrong, revoked or expired). Declared for the identity
/// middleware (Shared/Web), which asks it on every request and refuses a disabled person itself; Accounts'
/// `AccountIdentities` (its token and session stores) conforms.
public protocol IdentityLookup: Sendable {
    func identity(bearerToken: String, now: Date) async throws -> Identity?
    func identity(sessionCookie: String, now: Date) async throws -> Identity?
}

/// When a browser session last opened the diary, kept on Accounts' session row. Declared for the diary's lock;
/// `SessionStore` conforms.
public protocol SessionUnlocks: Sendable {
    func unlockedAt(tokenHash: String) async throws -> Date?
    func setUnlocked(tokenHash: String, at date: Date?) async throws
}

/// Failed attempts counted per subject, so a restart does not reset a lock. Declared for the diary's face
/// sign-in (the same policy as the password's); Accounts' `LoginThrottleStore` conforms.
public protocol LoginAttempts: Sendable {
    func state(subject: String) async throws -> LoginThrottlePolicy.State?
    func reserve(subject: String, policy: LoginThrottlePolicy, now: Date) async throws -> LoginThrottlePolicy.State
    func lock(subject: String, until: Date) async throws
    func clear(subject: String) async throws
}

/// A password checked with sign-in's throttling. Declared for the diary's unlock form (the password path must
/// not be a way around the lockout); `AccountService` conforms. Throws a `UserFacingError` for a wrong password
/// or a locked account.
public protocol PasswordCheck: Sendable {
    func authenticate(username: String, password: String, clientAddress: String, now: Date) async throws -> User
}

/// The people of this server by id. Declared for background work that resumes a person's job (the diary's
/// imports, Health's imports); Accounts' `UserStore` conforms.
public protocol PeopleDirectory: Sendable {
    func find(id: String) async throws -> User?
}

/// A personal API token's owner and scopes. Declared for Visits' live-location endpoint (OwnTracks sends the
/// token as a Basic password); Accounts' `TokenStore` conforms.
public protocol TokenCheck: Sendable {
    func authenticate(token: String, now: Date) async throws -> (tokenID: String, scopes: TokenScopes, user: User)?
}

/// What a feature puts in a person's takeout (their own data, decrypted, in open formats) and reads back
/// from one. Declared for Accounts' `TakeoutService`, which asks every `TakeoutOffer` in the order of its
/// list, writing and importing alike.
public protocol TakeoutOffer: Sendable {
    /// Its members, added to the archive in order.
    func writeTakeout(user: User, into archive: TakeoutArchive) async throws
    /// Its keys in `profile.json` (the files are written with sorted keys, so the order does not matter).
    func takeoutProfile(user: User) async throws -> [String: any Encodable & Sendable]
    /// Its keys in `settings.json`.
    func takeoutSettings(user: User) async throws -> [String: any Encodable & Sendable]
    /// Reads its members back into this account (what is already there is skipped); its counts by the keys of
    /// the import's answer.
    func importTakeout(_ reader: ZipReader, user: User, now: Date) async throws -> [String: Int]
}

extension TakeoutOffer {
    public func takeoutProfile(user: User) async throws -> [String: any Encodable & Sendable] { [:] }
    public func takeoutSettings(user: User) async throws -> [String: any Encodable & Sendable] { [:] }
}

/// The takeout's ZIP as it is streamed: each feature adds its members, one at a time.
public final class TakeoutArchive {
    public var zip = StoredZipWriter()
    public let now: Date
    public let write: (Data) async throws -> Void
    /// Where a feature spools a long member before adding it (the system's temporary directory).
    public let spoolDirectory: String
    /// A large file goes out in slices of its mapping, so it never sits in memory whole.
    static let sliceBytes = 1 << 20

    public init(now: Date, spoolDirectory: String, write: @escaping (Data) async throws -> Void) {
        self.now = now
        self.spoolDirectory = spoolDirectory
        self.write = write
    }

    public func add(_ name: String, _ data: Data) async throws {
        for chunk in try zip.add(name: name, data: data, modified: now) { try await write(chunk) }
    }

    /// A file's bytes (mapped from disk) written out a slice at a time.
    public func addSliced(_ name: String, _ data: Data) async throws {
        for part in try zip.add(name: name, data: data, modified: now) {
            var start = part.startIndex
            while start < part.endIndex {
                let end = part.index(start, offsetBy: Self.sliceBytes, limitedBy: part.endIndex) ?? part.endIndex
                try await write(part[start..<end])
                start = end
            }
        }
    }

    /// A path for a spool file of its own, removed by the caller.
    public func spoolPath(_ suffix: String) -> String {
        (spoolDirectory as NSString).appendingPathComponent("hibi-takeout-\(UUID().uuidString).\(suffix)")
    }
}

/// Keys and values written as one JSON object (`profile.json`, `settings.json`), each value with the encoder's
/// own strategies (dates as ISO 8601).
public struct TakeoutFields: Encodable {
    public var fields: [String: any Encodable & Sendable]

    public init(_ fields: [String: any Encodable & Sendable]) { self.fields = fields }

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
    }
}

/// How an uploaded archive is received and opened, with the import's limits and errors. Declared for the
/// takeout's import, which is read as the diary's export is (it contains one); the diary's `DiaryTransfer` conforms.
public protocol ArchiveUploads: Sendable {
    /// The largest upload taken.
    var maxUploadBytes: Int { get }
    func openArchive(path: String) throws -> ZipReader
    func openArchive(data: Data) throws -> ZipReader
    /// The import's error for an archive it cannot read.
    func refusal(_ reason: Text) -> any Error
    /// The upload streamed into a spool file (at most `maxUploadBytes`), handed to `body` by path and removed afterwards.
    func withUploadFile<T>(_ upload: RequestBody, _ body: (String) async throws -> T) async throws -> T
}

extension TakeoutArchive {
    /// A value as pretty-printed JSON with sorted keys, the takeout's JSON files' one shape.
    public func addJSON(_ name: String, _ value: some Encodable) async throws {
        let encoder = JSONCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try await add(name, try encoder.encode(value))
    }
}

/// Whether this server still needs its first account (then `/` sends everyone to setup). Declared for Journal's
/// home page; Accounts' `SetupState` conforms.
public protocol SetupCheck: Sendable {
    func needsSetup() async throws -> Bool
}

/// The diary's face check, as Accounts' face sign-in on a remembered device uses it: the same liveness challenge and
/// camera box as the diary's unlock, with sign-in's own addresses. Declared for Accounts' face sign-in; `DiaryFeature`
/// conforms (its face service and unlock views).
public protocol FaceSignInCheck: Sendable {
    /// Whether this server can check faces at all (a face engine is loaded).
    var faceCheckAvailable: Bool { get }
    /// Whether this person enrolled their face.
    func hasEnrolledFace(userID: String) async throws -> Bool
    /// Starts a liveness challenge for this person (answered with 201); throws the diary's face errors (not enrolled,
    /// paused after failed attempts).
    func startFaceChallenge(userID: String, now: Date) async throws -> FaceChallenge
    /// Reads one camera frame of a challenge from the request's JSON body (`challengeId`, `frame`) and checks it
    /// against this person's face, stamped `arrivedAt`; the answer names the next step, or `done` once passed.
    func checkFaceFrame(_ request: Request, userID: String, arrivedAt: Date) async throws -> FaceChallenge
    /// The camera box that face.js drives, asking `challengeURL` for a challenge and sending frames to `verifyURL`.
    func faceBox(context: HibiRequestContext, title: Text, next: String, challengeURL: String, verifyURL: String) -> Node
}

/// One step of a liveness challenge, as the face check answers it.
public struct FaceChallenge: Sendable, Codable, Equatable {
    public let id: String
    /// "straight", "left", "right", "up" or "down"; "done" once the challenge is passed.
    public let step: String
    /// 0 for straight, 1... for the turns.
    public let stepIndex: Int
    public let stepCount: Int
    public let done: Bool
    public let expiresAt: Date

    public init(id: String, step: String, stepIndex: Int, stepCount: Int, done: Bool, expiresAt: Date) {
        self.id = id
        self.step = step
        self.stepIndex = stepIndex
        self.stepCount = stepCount
        self.done = done
        self.expiresAt = expiresAt
    }
}

/// The diary's lock, as Accounts uses it: the settings page and a new token ask whether the diary is open, a face
/// sign-in opens it with the session it makes, and the takeout (the diary inside) is served only behind it
/// (`signedIn(behind:)`). Declared for Accounts; the diary's `DiaryLock` conforms.
public protocol DiaryGate: RouteGate {
    /// Whether this browser session has its diary open now (a token never counts).
    func isUnlocked(_ context: HibiRequestContext, now: Date) async throws -> Bool
    /// Opens the diary for a session just made by face sign-in: the face was proven.
    func unlock(sessionTokenHash: String, now: Date) async throws
}
