import Foundation
import Hummingbird

/// Sign-in with the face on a remembered device: the device cookie says who is claimed, the same
/// liveness challenge as diary unlock proves it. Without a live device cookie both endpoints answer
/// 401 and the sign-in page offers nothing. A success opens a session with the diary unlocked.
struct FaceSignInRoutes: Sendable {
    let faces: FaceAuthService
    let devices: DeviceStore
    let sessions: SessionStore
    let lock: DiaryLock
    let secureCookies: Bool
    let sessionLifetime: TimeInterval
    let maxUpload: Int

    func register(on api: some RouterMethods<HibiRequestContext>) {
        api.post("auth/face/challenge") { request, context in
            let (_, user) = try await device(request, now: context.now)
            return JSONBody(try await faces.challenge(userID: user.id, now: context.now), status: .created)
        }
        api.post("auth/face/frame") { request, context in
            let arrivedAt = context.now
            let (device, user) = try await device(request, now: context.now)
            var request = request
            let input = try await request.json(FaceFrameRequest.self, limit: maxUpload)
            // The challenge is looked up for this device's user only, so nobody else's challenge or face counts here.
            let answer = try await faces.frame(userID: user.id, challengeID: input.challengeId, frame: try PhotoPayload.decode(input.frame),
                                               arrivedAt: arrivedAt)
            guard answer.done else { return try JSONBody(answer).response(from: request, context: context) }
            let now = context.now
            let (token, session) = try await sessions.create(userID: user.id, now: now)
            try await lock.unlock(sessionTokenHash: session.tokenHash, now: now)
            try await devices.markUsed(id: device.id, now: now)
            var response = try JSONBody(answer).response(from: request, context: context)
            for cookie in SessionCookies.signedIn(token: token, user: user, lifetime: sessionLifetime, secure: secureCookies) {
                response.setCookie(cookie)
            }
            return response
        }
    }

    func device(_ request: Request, now: Date) async throws -> (RememberedDevice, User) {
        guard let token = request.cookies[Cookies.device]?.value, let found = try await devices.find(token: token, now: now),
              !found.user.disabled else { throw AccountError.deviceNotRemembered }
        return found
    }

    /// The face box for the sign-in page, when this device's user can sign in with their face.
    func offer(deviceToken: String, context: HibiRequestContext, next: String) async throws -> Node? {
        guard faces.engine != nil, let (_, user) = try await devices.find(token: deviceToken, now: context.now), !user.disabled,
              try await faces.templates.count(userID: user.id) > 0 else { return nil }
        return UnlockViews.faceBox(context: context, title: CommonStrings.signInWithFace, next: next,
                                   challengeURL: "/api/v1/auth/face/challenge", verifyURL: "/api/v1/auth/face/frame")
    }
}
