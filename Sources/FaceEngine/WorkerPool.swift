import Foundation

/// A fixed set of threads, each owning one native worker (detector + network copy), fed from a
/// bounded queue. Inference never runs on the caller's executor (e.g. the server's event loop).
final class WorkerPool: @unchecked Sendable {
    typealias Job = (OpaquePointer) -> Void

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var stopping = false
    private var alive = 0
    private let queueLimit: Int

    /// Takes ownership of the workers; they are freed when the pool shuts down.
    init(workers: [OpaquePointer], queueLimit: Int, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.queueLimit = max(0, queueLimit)
        alive = workers.count
        for (index, worker) in workers.enumerated() {
            let handle = UnsafeSendablePointer(worker)
            let thread = Thread { [self] in
                Thread.current.threadDictionary[Self.threadKey] = self.identity
                self.loop(handle.pointer)
                free(handle.pointer)
                self.condition.lock()
                self.alive -= 1
                self.condition.broadcast()
                self.condition.unlock()
            }
            thread.name = "hibi-face-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Queues a job; throws `.busy` when `queueLimit` jobs are already waiting.
    func submit(_ job: @escaping Job) throws(FaceEngineError) {
        condition.lock()
        defer { condition.unlock() }
        if jobs.count - head >= queueLimit || stopping { throw .busy }
        jobs.append(job)
        condition.signal()
    }

    private func loop(_ worker: OpaquePointer) {
        while true {
            condition.lock()
            while head == jobs.count && !stopping { condition.wait() }
            if head == jobs.count {  // stopping and nothing left
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job(worker)
        }
    }

    /// Lets queued jobs finish, stops the threads and waits for them. When the last reference to the
    /// engine goes away inside a job (on one of the pool's own threads), that thread is not waited
    /// for: it finishes its job, sees `stopping` and exits on its own.
    func shutdown() {
        let onOwnThread = (Thread.current.threadDictionary[Self.threadKey] as? Int) == identity
        condition.lock()
        stopping = true
        condition.broadcast()
        while alive > (onOwnThread ? 1 : 0) { condition.wait() }
        condition.unlock()
    }

    private static let threadKey = "hibi.face.worker-pool"
    private var identity: Int { Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self).hashValue)) }
}

/// A C handle moved into a thread that becomes its only user.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
