import CZlib
import Foundation

/// CRC-32 as ZIP and PNG use it (IEEE 802.3), zlib's: the one CRC-32 in Hibi. On Linux ZIPFoundation computes
/// CRC-32 a byte at a time in Swift; zlib's is several times faster.
public enum CRC32 {
    /// `crc` carried on over `bytes` (start from 0).
    public static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        var crc = UInt(crc)
        var offset = 0
        // zlib takes a 32-bit length; chunks are far smaller, but stay correct for any size.
        while offset < bytes.count {
            let length = min(bytes.count - offset, Int(UInt32.max))
            crc = CZlib.crc32(crc, base.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(length))
            offset += length
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    public static func checksum(_ data: some DataProtocol) -> UInt32 {
        data.regions.reduce(UInt32(0)) { crc, region in region.withUnsafeBytes { update(crc, with: $0) } }
    }
}

/// zlib's deflate, called directly: level 1 deflates table text about three times faster than ZIPFoundation's
/// default level 6, for a slightly larger member.
enum Zlib {
    struct ZlibError: Error, CustomStringConvertible {
        let description: String
    }

    /// A raw deflate stream (no zlib header, as ZIP wants it) fed in pieces.
    final class Deflater {
        private let stream: UnsafeMutablePointer<z_stream>
        private let output: UnsafeMutablePointer<Bytef>
        private let outputSize = 256 * 1024
        private var ended = false

        init(level: Int32) throws(ZlibError) {
            // zlib keeps a pointer back to its stream: the stream must not move, hence allocated once here.
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            output = .allocate(capacity: outputSize)
            let status = deflateInit2_(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            guard status == Z_OK else {
                ended = true
                throw ZlibError(description: "zlib could not start a deflate stream (\(status))")
            }
        }

        deinit {
            if !ended { deflateEnd(stream) }
            stream.deinitialize(count: 1)
            stream.deallocate()
            output.deallocate()
        }

        /// Compresses `input`; with `finish`, also flushes the end of the stream. Hands out what zlib produced.
        func process(_ input: UnsafeRawBufferPointer, finish: Bool, consumer: (UnsafeRawBufferPointer) throws -> Void) throws {
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            while true {
                stream.pointee.next_out = output
                stream.pointee.avail_out = uInt(outputSize)
                let status = CZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw ZlibError(description: "zlib failed to deflate (\(status))")
                }
                let produced = outputSize - Int(stream.pointee.avail_out)
                // Z_FINISH with room to write always makes progress; no progress would loop for ever.
                if finish && status == Z_BUF_ERROR && produced == 0 { throw ZlibError(description: "zlib made no progress finishing a stream") }
                if produced > 0 { try consumer(UnsafeRawBufferPointer(start: output, count: produced)) }
                if finish {
                    if status == Z_STREAM_END { break }
                } else if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
                    break
                }
            }
        }
    }
}

/// A gzip file (a `.fit.gz` or `.tcx.gz` inside an export) read as the bytes it unpacks to, through zlib, a
/// buffer at a time straight into the reader's buffer: memory stays at one input buffer whatever the member
/// holds, and the stream fails the moment its output passes `limit` (a small member that claims gigabytes
/// costs the time to inflate `limit` bytes, never the memory).
final class GunzipStream: ByteStream {
    struct Failure: Error, Equatable {
        let description: String
    }

    private let base: any ByteStream
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutablePointer<UInt8>
    private let inputSize = 64 * 1024
    private var ended = false
    private var baseEnded = false
    private var finished = false
    let limit: UInt64
    private(set) var produced: UInt64 = 0

    init(_ base: any ByteStream, limit: UInt64) throws {
        self.base = base
        self.limit = limit
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(capacity: inputSize)
        // 16 + MAX_WBITS: a gzip header and trailer (CRC and size, checked by zlib) around the deflate stream.
        let status = inflateInit2_(stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            ended = true
            throw Failure(description: "zlib could not start an inflate stream (\(status))")
        }
    }

    deinit {
        if !ended { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        while true {
            if stream.pointee.avail_in == 0 && !baseEnded {
                let n = try base.read(into: input, count: inputSize)
                if n <= 0 { baseEnded = true } else {
                    stream.pointee.next_in = input
                    stream.pointee.avail_in = uInt(n)
                }
            }
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = uInt(min(count, Int(UInt32.max)))
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw Failure(description: "not a readable gzip file")
            }
            let made = min(count, Int(UInt32.max)) - Int(stream.pointee.avail_out)
            let (sum, over) = produced.addingReportingOverflow(UInt64(made))
            guard !over, sum <= limit else { throw Failure(description: "unpacks to more than \(limit / 1_048_576) MB") }
            produced = sum
            if status == Z_STREAM_END { finished = true }
            if made > 0 || finished { return made }
            if baseEnded && stream.pointee.avail_in == 0 { throw Failure(description: "the gzip file ends early") }
        }
    }
}
