import Foundation
import Hummingbird

/// Sign-in with the face on a remembered device: the device cookie says who is claimed, the same
/// liveness challenge as diary unlock proves it (the diary's face check, `FaceSignInCheck`). Without a live
/// device cookie both endpoints answer 401 and the sign-in page offers nothing. A success opens a session with
/// the diary unlocked.
struct FaceSignInRoutes: Sendable {
    let faces: any FaceSignInCheck
    let devices: DeviceStore
    let sessions: SessionStore
    let diaryLock: any DiaryGate
    let secureCookies: Bool
    let sessionLifetime: TimeInterval

    func register(on api: some RouterMethods<HibiRequestContext>) {
        api.post(RouterPath(AccountAPIPaths.faceChallenge), use: challenge)
        api.post(RouterPath(AccountAPIPaths.faceFrame), use: frame)
    }

    @Sendable func challenge(_ request: Request, context: HibiRequestContext) async throws -> JSONBody<FaceChallenge> {
        let (_, user) = try await device(request, now: context.now)
        return JSONBody(try await faces.startFaceChallenge(userID: user.id, now: context.now), status: .created)
    }

    /// One camera frame at a time; the last one signs in.
    @Sendable func frame(_ request: Request, context: HibiRequestContext) async throws -> Response {
        let arrivedAt = context.now
        let (device, user) = try await device(request, now: context.now)
        // The challenge is looked up for this device's user only, so nobody else's challenge or face counts here.
        let answer = try await faces.checkFaceFrame(request, userID: user.id, arrivedAt: arrivedAt)
        guard answer.done else { return try JSONBody(answer).response(from: request, context: context) }
        let now = context.now
        let (token, session) = try await sessions.create(userID: user.id, now: now)
        try await diaryLock.unlock(sessionTokenHash: session.tokenHash, now: now)
        try await devices.markUsed(id: device.id, now: now)
        var response = try JSONBody(answer).response(from: request, context: context)
        for cookie in SessionCookies.signedIn(token: token, user: user, lifetime: sessionLifetime, secure: secureCookies) {
            response.setCookie(cookie)
        }
        return response
    }

    func device(_ request: Request, now: Date) async throws -> (RememberedDevice, User) {
        guard let token = request.cookies[Cookies.device]?.value, let found = try await devices.find(token: token, now: now),
              !found.user.disabled else { throw AccountError.deviceNotRemembered }
        return found
    }

    /// The face box for the sign-in page, when this device's user can sign in with their face.
    func offer(deviceToken: String, context: HibiRequestContext, next: String) async throws -> Node? {
        guard faces.faceCheckAvailable, let (_, user) = try await devices.find(token: deviceToken, now: context.now), !user.disabled,
              try await faces.hasEnrolledFace(userID: user.id) else { return nil }
        return faces.faceBox(context: context, title: CommonStrings.signInWithFace, next: next,
                             challengeURL: APIPaths.url(AccountAPIPaths.faceChallenge), verifyURL: APIPaths.url(AccountAPIPaths.faceFrame))
    }
}
