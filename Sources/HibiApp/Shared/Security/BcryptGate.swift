import Foundation

/// Bounds the bcrypt work sign-ins may do at once. Each unknown name used to cost a decoy bcrypt at cost 12
/// (about a quarter second of one core), all at once: one client with eight connections and fresh names
/// made the owner's sign-in take 3.5-4.9 s instead of 0.56 s.
///
/// Why these numbers and this order: at most `slots` (2) hashes run at a time, so on a small server (the
/// reference machine has 2 cores) bcrypt can never take every core from the event loops and other requests.
/// Waiting work is two FIFO queues: hashes for names that exist (the owner's sign-in, a password change)
/// go before decoys, so a flood of unknown names queues behind the owner rather than in front, and the
/// owner waits at most for the hashes already running. Each queue is bounded: a decoy that finds
/// `decoyQueue` others waiting is refused at once (the caller answers 429) instead of holding a connection
/// and memory; the account queue is larger, since its attempts are already limited per account and address.
public actor BcryptGate {
    public enum Priority: Sendable { case account, decoy }

    public let slots: Int
    public let accountQueue: Int
    public let decoyQueue: Int
    private var running = 0
    private var accountWaiting: [CheckedContinuation<Void, Never>] = []
    private var decoyWaiting: [CheckedContinuation<Void, Never>] = []
    /// Told of each hash that gets a slot (the server counts them on /metrics).
    private let onRun: (@Sendable (Priority) -> Void)?

    public init(slots: Int = 2, accountQueue: Int = 64, decoyQueue: Int = 16, onRun: (@Sendable (Priority) -> Void)? = nil) {
        self.slots = max(1, slots)
        self.accountQueue = accountQueue
        self.decoyQueue = decoyQueue
        self.onRun = onRun
    }

    /// Runs `work` in a slot, after the work queued before it at its priority (and, for decoys, after every
    /// account hash). Nil when its queue is full: nothing ran.
    public func run<T: Sendable>(_ priority: Priority, _ work: @Sendable () async throws -> T) async rethrows -> T? {
        guard await acquire(priority) else { return nil }
        defer { release() }
        onRun?(priority)
        return try await work()
    }

    private func acquire(_ priority: Priority) async -> Bool {
        if running < slots {
            running += 1
            return true
        }
        switch priority {
        case .account:
            guard accountWaiting.count < accountQueue else { return false }
            await withCheckedContinuation { accountWaiting.append($0) }
        case .decoy:
            guard decoyWaiting.count < decoyQueue else { return false }
            await withCheckedContinuation { decoyWaiting.append($0) }
        }
        return true  // the slot was handed over by `release`, still counted in `running`
    }

    private func release() {
        if !accountWaiting.isEmpty {
            accountWaiting.removeFirst().resume()
        } else if !decoyWaiting.isEmpty {
            decoyWaiting.removeFirst().resume()
        } else {
            running -= 1
        }
    }
}
