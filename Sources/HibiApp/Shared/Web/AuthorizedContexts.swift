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
    /// The gates this request passed, set only by `RouteGateMiddleware` (this file), after its gate admitted it.
    fileprivate(set) var passedGates: Set<ObjectIdentifier> = []

    public init(context: HibiRequestContext) throws {
        user = try context.requireUser()
        coreContext = context.coreContext
        base = context
    }

    /// Whether a `RouteGateMiddleware` of `gate` admitted this request: a context made behind a gate (the diary's
    /// lock) checks this, so a route group that forgot the gate refuses instead of letting the request through.
    public func hasPassed<Gate: RouteGate>(_ gate: Gate.Type) -> Bool { passedGates.contains(ObjectIdentifier(gate)) }

    /// The user, if they are an administrator; 403 otherwise.
    public func requireAdmin() throws -> User {
        guard user.isAdmin else { throw RequestError.forbidden }
        return user
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

/// A check a group of routes passes once per request, before any handler or body read (the diary's lock, declared
/// by its feature): `admit` returns to let the request on, or throws what to answer instead.
public protocol RouteGate: Sendable {
    func admit(_ request: Request, context: SignedInContext) async throws
}

/// Runs a gate and records on the context that it passed (`SignedInContext.hasPassed`).
public struct RouteGateMiddleware<Gate: RouteGate>: RouterMiddleware {
    public typealias Context = SignedInContext
    let gate: Gate

    public init(gate: Gate) {
        self.gate = gate
    }

    public func handle(_ request: Request, context: SignedInContext, next: (Request, SignedInContext) async throws -> Response) async throws -> Response {
        try await gate.admit(request, context: context)
        var context = context
        context.passedGates.insert(ObjectIdentifier(Gate.self))
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

    /// Routes for signed-in people that `gate` admitted first (a feature's routes behind another feature's gate:
    /// Accounts' takeout behind the diary's lock).
    public func signedIn(behind gate: some RouteGate) -> RouterGroup<SignedInContext> {
        signedIn().add(middleware: RouteGateMiddleware(gate: gate))
    }
}
