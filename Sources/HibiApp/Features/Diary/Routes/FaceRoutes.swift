import Foundation
import Hummingbird

struct FaceRoutes: Sendable {
    let faces: FaceAuthService
    let lock: DiaryLock
    let maxUpload: Int

    struct PhotoList: Codable, Sendable { var photos: [String] }
    struct FaceStatus: Codable, Sendable { let enrolledPhotos: Int; let available: Bool }
    struct Checked: Codable, Sendable { let accepted: Bool }

    /// `web` and `api` are diary groups (signed in, diary open); `signedInAPI` needs only a signed-in user.
    func register(web router: some RouterMethods<DiaryContext>, api: some RouterMethods<DiaryContext>,
                  signedInAPI: some RouterMethods<SignedInContext>) {
        router.get(RouterPath(DiaryPaths.settings), use: settingsPage)
        router.post(RouterPath(DiaryPaths.settingsLock), use: setLockMinutes)
        router.post(RouterPath(DiaryPaths.settingsMoodBaseline), use: setMoodBaseline)
        router.post(RouterPath(DiaryPaths.deleteFace), use: deleteFacePage)
        router.get(RouterPath(DiaryPaths.enroll), use: enrollPage)

        signedInAPI.get(RouterPath(DiaryAPIPaths.face), use: status)
        // Enrollment changes who can open the diary, so it needs an unlocked diary first.
        api.post(RouterPath(DiaryAPIPaths.faceCheck), use: check)
        api.post(RouterPath(DiaryAPIPaths.faceEnroll), use: enroll)
        api.delete(RouterPath(DiaryAPIPaths.face), use: deleteFace)
        // Unlocking is what a locked session does, so these two only need a signed-in user.
        signedInAPI.post(RouterPath(DiaryAPIPaths.faceChallenge), use: challenge)
        signedInAPI.post(RouterPath(DiaryAPIPaths.faceFrame), use: frame)
    }

    @Sendable func settingsPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        let user = context.user
        return HTMLPage(FaceViews.settings(context: context.base, lockMinutes: try await lock.lockMinutes(userID: user.id),
                                           enrolled: try await faces.templates.count(userID: user.id), available: faces.engine != nil,
                                           moodBaseline: try await faces.moodBaselines.baseline(userID: user.id)?.enabled,
                                           notice: request.uri.formQuery.get("deleted") != nil ? (UnlockStrings.faceDeleted(context.language), .success)
                                               : request.uri.formQuery.get("saved") != nil ? (DiaryStrings.saved(context.language), .success) : nil))
    }

    @Sendable func setLockMinutes(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        guard let minutes = Int(form["lock_minutes"] ?? "") else { throw RequestError.missingField("lock_minutes") }
        try await lock.setLockMinutes(userID: user.id, minutes: minutes)
        return Response.redirect(to: DiaryPaths.settings + "?saved=1", type: .found)
    }

    @Sendable func setMoodBaseline(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        var request = request
        let form = try await request.form()
        try await faces.moodBaselines.setEnabled(userID: user.id, form["enabled"] == "on")
        return Response.redirect(to: DiaryPaths.settings + "?saved=1", type: .found)
    }

    @Sendable func deleteFacePage(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        try await faces.deleteFaceData(userID: user.id)
        return Response.redirect(to: DiaryPaths.settings + "?deleted=1", type: .found)
    }

    @Sendable func enrollPage(_ request: Request, context: DiaryContext) async throws -> HTMLPage {
        HTMLPage(FaceViews.enroll(context: context.base, available: faces.engine != nil))
    }

    @Sendable func status(_ request: Request, context: SignedInContext) async throws -> JSONBody<FaceStatus> {
        let user = context.user
        return JSONBody(FaceStatus(enrolledPhotos: try await faces.templates.count(userID: user.id), available: faces.engine != nil))
    }

    @Sendable func check(_ request: Request, context: DiaryContext) async throws -> JSONBody<Checked> {
        let user = context.user
        var request = request
        let input = try await request.json(PhotoPayload.self, limit: maxUpload)
        try await faces.checkEnrollmentPhoto(userID: user.id, try PhotoPayload.decode(input.photo))
        return JSONBody(Checked(accepted: true))
    }

    @Sendable func enroll(_ request: Request, context: DiaryContext) async throws -> JSONBody<FaceStatus> {
        let user = context.user
        var request = request
        let input = try await request.json(PhotoList.self, limit: maxUpload * 4)
        try await faces.enroll(userID: user.id, photos: try input.photos.map(PhotoPayload.decode), now: context.now)
        return JSONBody(FaceStatus(enrolledPhotos: input.photos.count, available: true), status: .created)
    }

    @Sendable func deleteFace(_ request: Request, context: DiaryContext) async throws -> Response {
        let user = context.user
        try await faces.deleteFaceData(userID: user.id)
        return Response(status: .noContent)
    }

    @Sendable func challenge(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let user = context.user
        return JSONBody(try await faces.challenge(userID: user.id, now: context.now), status: .created)
    }

    /// One camera frame at a time; the answer names the next step, and the last one unlocks.
    @Sendable func frame(_ request: Request, context: SignedInContext) async throws -> some ResponseGenerator {
        let arrivedAt = context.now
        let user = context.user
        var request = request
        let input = try await request.json(FaceFrameRequest.self, limit: maxUpload)
        let answer = try await faces.frame(userID: user.id, challengeID: input.challengeId, frame: try PhotoPayload.decode(input.frame),
                                           arrivedAt: arrivedAt)
        if answer.done { try await lock.unlock(context.base, now: context.now) }
        return JSONBody(answer)
    }
}
