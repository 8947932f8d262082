import Foundation

/// Fixed threads, each owning one context, fed from a bounded FIFO. Native inference blocks for
/// tens of milliseconds, so it runs here rather than on Swift's cooperative pool (which would
/// stall the server's other tasks) and never queues without limit.
final class WorkerPool<Context: Sendable>: @unchecked Sendable {
    typealias Job = @Sendable (Context) -> Void

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [Job] = []
    private var head = 0
    private var accepting = true
    private let queueLimit: Int

    init(contexts: [Context], queueLimit: Int, name: String) {
        self.queueLimit = queueLimit
        for (index, context) in contexts.enumerated() {
            let thread = Thread { [self] in self.run(context) }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Queues a job, or refuses with `busy` when every worker is occupied and the line is full.
    func submit(_ job: @escaping Job) throws(FaceEngineError) {
        condition.lock()
        defer { condition.unlock() }
        guard accepting else { throw .engineFailure("the face engine has shut down") }
        guard jobs.count - head < queueLimit + idleWorkers else { throw .busy }
        jobs.append(job)
        condition.signal()
    }

    // Guarded by `condition`.
    private var idleWorkers = 0

    private func run(_ context: Context) {
        while true {
            condition.lock()
            idleWorkers += 1
            while accepting && head == jobs.count { condition.wait() }
            idleWorkers -= 1
            if head == jobs.count {
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
            job(context)
        }
    }

    /// Lets queued jobs finish, then ends the threads.
    func shutdown() {
        condition.lock()
        accepting = false
        condition.broadcast()
        condition.unlock()
    }
}
