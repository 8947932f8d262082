import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Where CPU-heavy parsing of uploads runs (a visits import, a diary archive, a large multipart
/// body): on NIO's blocking thread pool instead of the request's task, so a big import never holds a
/// thread of Swift's cooperative pool (which serves every other request, `/healthz` included).
/// At most `slots` jobs run at once on the whole instance and each person runs one at a time, so
/// one user cannot queue up the server: a second import while the first runs is refused with 409 (`RequestError.busy`).
/// "One at a time" holds across instances on one database too: the person's claim is a lease row
/// (`job_leases`, name `heavy-work:<user>`) renewed while the job runs, so a crashed instance's claim
/// expires after `leaseSeconds` instead of refusing that person for ever.
public final class HeavyWork: Sendable {
    private let pool: NIOThreadPool
    private let slots: AsyncSlots
    private let busy = Mutex<Set<String>>([])
    /// The database claim; nil in tests of the pool alone (the claim is then this process's only).
    private let leases: JobLeases?
    private let leaseSeconds: TimeInterval

    /// One slot fewer than NIO's blocking pool has threads, so file serving always finds a thread.
    public init(pool: NIOThreadPool = .singleton, slots: Int = max(1, System.coreCount - 1), leases: JobLeases? = nil,
                leaseSeconds: TimeInterval = 60) {
        self.pool = pool
        self.slots = AsyncSlots(slots)
        self.leases = leases
        self.leaseSeconds = leaseSeconds
    }

    static func leaseName(userID: String) -> String { "heavy-work:\(userID)" }

    /// Synchronous parsing on the blocking pool.
    public func run<T: Sendable>(userID: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await exclusive(userID: userID) {
            try await pool.runIfActive { try work() }
        }
    }

    /// Work that mixes parsing and database writes (a diary import): one per person, and at most
    /// `slots` on the instance, so imports can never take every thread of the cooperative pool.
    public func exclusive<T: Sendable>(userID: String, _ body: () async throws -> T) async throws -> T {
        guard busy.withLock({ $0.insert(userID).inserted }) else { throw RequestError.busy }
        defer { _ = busy.withLock { $0.remove(userID) } }
        guard let leases else { return try await slots.withSlot(body) }
        // Another instance's job for this person holds the row: busy, as here. The lease is renewed every
        // third of its length while the job runs and freed when it ends, by `JobLeases.run`.
        let name = Self.leaseName(userID: userID), slots = self.slots
        return try await withoutActuallyEscaping(body) { body in
            let work = UncheckedSendableBox(body)
            guard let result = try await leases.run(name, lease: leaseSeconds, { try await slots.withSlot(work.value) }) else {
                throw RequestError.busy
            }
            return result
        }
    }

    /// True while this person has a job running (for tests and for refusing a second one early).
    public func isBusy(userID: String) -> Bool { busy.withLock { $0.contains(userID) } }
}

/// `JobLeases.run` takes a `@Sendable` closure; the job's body is only ever called from inside it, once,
/// before `exclusive` returns (it does not escape), so passing it across is safe.
private struct UncheckedSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A counting semaphore for async code: waiters suspend (holding no thread) until a slot frees.
final class AsyncSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

    func withSlot<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
