import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Where CPU-heavy parsing of uploads runs (a visits import, a diary archive, a large multipart
/// body): on NIO's blocking thread pool instead of the request's task, so a big import never holds a
/// thread of Swift's cooperative pool (which serves every other request, `/healthz` included).
/// At most `slots` jobs run at once on the whole instance and each person runs one at a time, so
/// one user cannot queue up the server: a second import while the first runs is refused with 409 (`RequestError.busy`).
public final class HeavyWork: Sendable {
    private let pool: NIOThreadPool
    private let slots: AsyncSlots
    private let busy = Mutex<Set<String>>([])

    /// One slot fewer than NIO's blocking pool has threads, so file serving always finds a thread.
    public init(pool: NIOThreadPool = .singleton, slots: Int = max(1, System.coreCount - 1)) {
        self.pool = pool
        self.slots = AsyncSlots(slots)
    }

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
        return try await slots.withSlot(body)
    }

    /// True while this person has a job running (for tests and for refusing a second one early).
    public func isBusy(userID: String) -> Bool { busy.withLock { $0.contains(userID) } }
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
