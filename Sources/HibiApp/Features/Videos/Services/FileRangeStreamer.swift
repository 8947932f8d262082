import Hummingbird
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Streams a byte range of a file as a response body from a few reusable buffers per stream.
///
/// Hummingbird's `FileIO.loadFile` reads through NIOFileSystem's `readChunks`, which reads up to eight
/// chunks ahead of the client and allocates a fresh buffer for each. With ten viewers those buffers,
/// allocated on thread-pool threads and freed on event-loop threads, grew glibc's heaps by 200-300 MB
/// that stayed after the viewers left. Here a stream reads into the same `ringSize` buffers over and over.
struct FileRangeStreamer: Sendable {
    let threadPool: NIOThreadPool
    let chunkLength: Int
    /// Buffers per stream: the most a stream holds is `ringSize * chunkLength`.
    let ringSize: Int
    /// Open streams per person: a browser seeking uses two or three at once; one person opening
    /// hundreds would hold a descriptor and three buffers each.
    var slots = StreamSlots(perUser: 6)
    /// A client that stops reading: after this long with every buffer still held, the stream ends
    /// (and its task with it) instead of polling for ever.
    var stallLimit: Duration = .seconds(60)

    /// A body of `range.count` bytes read from `path`. The file is opened only when the body is written,
    /// so a HEAD answer (which drops the body) opens nothing.
    func body(path: String, range: ClosedRange<Int64>, userID: String) throws(VideoError) -> ResponseBody {
        let threadPool = threadPool
        let chunkLength = chunkLength
        let ringSize = ringSize
        let stallLimit = stallLimit
        // Held by the body: released when the body has been written or dropped (a HEAD answer, a closed connection).
        let ticket = try slots.take(userID: userID)
        return ResponseBody(contentLength: range.count) { writer in
            defer { withExtendedLifetime(ticket) {} }
            // open and pread run on the thread pool: on a slow or network disk they block.
            let descriptor = try await threadPool.runIfActive { try FileRangeStreamer.open(path) }
            defer { _ = Glibc.close(descriptor) }
            let chunks = ChunkBuffer(capacity: min(chunkLength, range.count), count: ringSize)
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let length = Int(min(Int64(chunkLength), range.upperBound - offset + 1))
                let start = offset
                // Wait, rather than allocate, while the connection still holds every buffer of the ring:
                // when the event loop falls behind, `write` keeps returning before the socket has taken
                // anything, and without this bound each stream queued chunk after chunk in memory.
                var pause = 1
                let waitingSince = ContinuousClock.now
                while !chunks.nextIsFree() {
                    guard ContinuousClock.now - waitingSince < stallLimit else { throw FileStreamError.clientStalled }
                    try await Task.sleep(for: .milliseconds(pause))
                    pause = min(pause * 2, 50)
                }
                let chunk = try await threadPool.runIfActive { try chunks.read(descriptor, offset: start, length: length) }
                try await writer.write(chunk)
                offset += Int64(length)
            }
            try await writer.finish(nil)
        }
    }

    static func open(_ path: String) throws -> CInt {
        while true {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            guard errno == EINTR else { throw FileStreamError.cannotOpen(errno: errno) }
        }
    }
}

enum FileStreamError: Error {
    case cannotOpen(errno: CInt)
    case readFailed(errno: CInt)
    /// The file became shorter than the length already promised in Content-Length; the connection must
    /// end rather than send other bytes.
    case fileShrank
    /// The client took nothing for `stallLimit`.
    case clientStalled
}

/// Counts open streams per person. In memory: a stream lives on the instance that serves it.
final class StreamSlots: Sendable {
    let perUser: Int
    private let open = Mutex<[String: Int]>([:])

    init(perUser: Int) { self.perUser = perUser }

    final class Ticket: Sendable {
        let release: @Sendable () -> Void
        init(release: @escaping @Sendable () -> Void) { self.release = release }
        deinit { release() }
    }

    func take(userID: String) throws(VideoError) -> Ticket {
        let taken = open.withLock { counts -> Bool in
            guard counts[userID, default: 0] < perUser else { return false }
            counts[userID, default: 0] += 1
            return true
        }
        guard taken else { throw .tooManyStreams(limit: perUser) }
        return Ticket { [self] in
            open.withLock { counts in
                let left = counts[userID, default: 1] - 1
                counts[userID] = left > 0 ? left : nil
            }
        }
    }

    func count(userID: String) -> Int { open.withLock { $0[userID, default: 0] } }
}

/// The stream's buffers, handed to a thread-pool thread for each read. Only one side touches them at a time:
/// the streaming task waits for the read to finish before it looks at them again, and the thread pool
/// completes the continuation after its last access, which orders the two.
///
/// `write` returns as soon as the connection has queued a chunk, usually before the socket has taken it,
/// so the chunk just written is still referenced; the next buffers of a small ring usually are not. Filling
/// a referenced one would make ByteBuffer copy-on-write allocate a fresh one, and a fresh chunk per read,
/// freed on another thread, is what made glibc's heaps grow by hundreds of MB.
private final class ChunkBuffer: @unchecked Sendable {
    /// A buffer in its own box, so that filling it mutates it in place.
    private final class Slot {
        var bytes: ByteBuffer
        init(_ bytes: ByteBuffer) { self.bytes = bytes }
    }
    private let ring: [Slot]
    private var next = 0

    init(capacity: Int, count: Int) {
        let allocator = ByteBufferAllocator()
        ring = (0..<count).map { _ in Slot(allocator.buffer(capacity: capacity)) }
    }

    /// Whether the connection has let go of the buffer the next read will fill.
    func nextIsFree() -> Bool {
        ring[next].bytes.modifyIfUniquelyOwned { _ in } != nil
    }

    /// Fills the next buffer with exactly `length` bytes from `offset` and returns it.
    func read(_ descriptor: CInt, offset: Int64, length: Int) throws -> ByteBuffer {
        let slot = ring[next]
        next = (next + 1) % ring.count
        // clear() keeps the storage when nothing else holds it and allocates only if the connection still does.
        slot.bytes.clear(minimumCapacity: length)
        while slot.bytes.readableBytes < length {
            let wanted = length - slot.bytes.readableBytes
            let position = off_t(offset) + off_t(slot.bytes.readableBytes)
            var result = 0
            var failure: CInt = 0
            slot.bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { pointer in
                result = pread(descriptor, pointer.baseAddress, wanted, position)
                if result < 0 { failure = errno }
                return max(result, 0)
            }
            if result > 0 { continue }
            if result == 0 { throw FileStreamError.fileShrank }
            guard failure == EINTR else { throw FileStreamError.readFailed(errno: failure) }
        }
        return slot.bytes
    }
}
