import Hummingbird

/// A typed context that reads everything the shared middleware set (language, clock, CSRF token,
/// identity) through to the request's `HibiRequestContext`.
@dynamicMemberLookup
public protocol ReadsBaseContext {
    var base: HibiRequestContext { get }
}

extension ReadsBaseContext {
    public subscript<Value>(dynamicMember keyPath: KeyPath<HibiRequestContext, Value>) -> Value { base[keyPath: keyPath] }
}

/// A request from a signed-in person. A route group of this context checks the sign-in once, as the
/// request enters the group (401, or the sign-in page for a browser, otherwise), and its handlers get
/// `context.user` as a plain `User`: there is no check left for a handler to forget.
/// Everything the shared middleware set (language, clock, CSRF token, identity) reads through to `base`.
public struct SignedInContext: ChildRequestContext, ReadsBaseContext {
    public typealias ParentContext = HibiRequestContext
    public var coreContext: CoreRequestContextStorage
    /// The request as the shared middleware left it; pages are rendered with it.
    public let base: HibiRequestContext
    public let user: User
    /// Set only by `DiaryLockMiddleware`, after it found the diary open for this request.
    fileprivate(set) var diaryOpen = false

    public init(context: HibiRequestContext) throws {
        user = try context.requireUser()
        coreContext = context.coreContext
        base = context
    }

    /// The user, if they are an administrator; 403 otherwise.
    public func requireAdmin() throws -> User {
        guard user.isAdmin else { throw RequestError.forbidden }
        return user
    }
}

/// A request that may read the diary: signed in, and the diary open in this session (or a token with
/// the `diary` scope). It can only be made from a `SignedInContext` that `DiaryLockMiddleware` passed,
/// so a route in a diary group cannot be reached with the diary locked.
public struct DiaryContext: ChildRequestContext, ReadsBaseContext {
    public typealias ParentContext = SignedInContext
    public var coreContext: CoreRequestContextStorage
    public let base: HibiRequestContext
    public let user: User

    public init(context: SignedInContext) throws {
        // Reached only if a group forgot the middleware: refuse rather than open the diary.
        guard context.diaryOpen else { throw DiaryError.diaryLocked }
        user = context.user
        coreContext = context.coreContext
        base = context.base
    }
}

/// A request from an administrator: made from a signed-in context, refused with 403 for anyone else.
public struct AdminContext: ChildRequestContext, ReadsBaseContext {
    public typealias ParentContext = SignedInContext
    public var coreContext: CoreRequestContextStorage
    public let base: HibiRequestContext
    /// The administrator making the request.
    public let user: User

    public init(context: SignedInContext) throws {
        user = try context.requireAdmin()
        coreContext = context.coreContext
        base = context.base
    }
}

/// The diary lock as one middleware: it asks `DiaryLock` once per request whether the diary is open
/// (sliding the idle timer), and sends a browser to the unlock page or answers `diary_locked`, before
/// any handler or body read.
public struct DiaryLockMiddleware: RouterMiddleware {
    public typealias Context = SignedInContext
    let lock: DiaryLock

    public init(lock: DiaryLock) {
        self.lock = lock
    }

    public func handle(_ request: Request, context: SignedInContext, next: (Request, SignedInContext) async throws -> Response) async throws -> Response {
        guard try await lock.admits(context) else {
            // A browser asking for a page goes to the unlock page and comes back; anything else is told why.
            if request.method == .get, !request.uri.path.hasPrefix("/api/") {
                throw Redirect(to: DiaryPaths.unlock(next: request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")))
            }
            throw DiaryError.diaryLocked
        }
        var context = context
        context.diaryOpen = true
        return try await next(request, context)
    }
}

extension RouterMethods where Context == HibiRequestContext {
    /// Routes for signed-in people only.
    public func signedIn() -> RouterGroup<SignedInContext> {
        group(context: SignedInContext.self)
    }

    /// Routes for administrators only.
    public func admin() -> RouterGroup<AdminContext> {
        signedIn().group(context: AdminContext.self)
    }

    /// Routes that read or change the diary: signed in, and the diary open.
    public func diary(_ lock: DiaryLock) -> RouterGroup<DiaryContext> {
        signedIn().add(middleware: DiaryLockMiddleware(lock: lock)).group(context: DiaryContext.self)
    }
}
