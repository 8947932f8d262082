import Hummingbird

/// A request that may read the diary: signed in, and the diary open in this session (or a token with
/// the `diary` scope). It can only be made from a `SignedInContext` the diary's lock admitted (`RouteGateMiddleware`),
/// so a route in a diary group cannot be reached with the diary locked.
public struct DiaryContext: ChildRequestContext, ReadsBaseContext {
    public typealias ParentContext = SignedInContext
    public var coreContext: CoreRequestContextStorage
    public let base: HibiRequestContext
    public let user: User

    public init(context: SignedInContext) throws {
        // Reached only if a group forgot the middleware: refuse rather than open the diary.
        guard context.hasPassed(DiaryLock.self) else { throw DiaryError.diaryLocked }
        user = context.user
        coreContext = context.coreContext
        base = context.base
    }
}

/// The diary lock as one route gate: it asks `DiaryLock` once per request whether the diary is open (sliding the
/// idle timer), and sends a browser to the unlock page or answers `diary_locked`, before any handler or body read.
extension DiaryLock: RouteGate {
    public func admit(_ request: Request, context: SignedInContext) async throws {
        guard try await admits(context) else {
            // A browser asking for a page goes to the unlock page and comes back; anything else is told why.
            if request.method == .get, !request.uri.path.hasPrefix("/api/") {
                throw Redirect(to: DiaryPaths.unlock(next: request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")))
            }
            throw DiaryError.diaryLocked
        }
    }
}

extension RouterMethods where Context == HibiRequestContext {
    /// Routes that read or change the diary: signed in, and the diary open.
    public func diary(_ lock: DiaryLock) -> RouterGroup<DiaryContext> {
        signedIn().add(middleware: RouteGateMiddleware(gate: lock)).group(context: DiaryContext.self)
    }
}
