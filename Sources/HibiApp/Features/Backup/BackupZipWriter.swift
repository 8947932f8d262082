import Crypto
import Foundation
import SystemPackage
import ZIPFoundation

/// Writes a backup's ZIP archive to a file, each member streamed from a file in chunks, with ZIP64 where sizes or
/// offsets pass 4 GiB; the records are `ZipRecord`'s, as `StoredZipWriter`'s are. ZIPFoundation reads these
/// archives; its own writer is not used here because it rewrites the whole central directory on every added
/// entry, which grows with the square of the number of files (a backup has one member per photo). Members are
/// given their place first (`reserve`) and filled from any thread; the lock guards the shared offsets.
final class BackupZipWriter: @unchecked Sendable {
    typealias Method = ZipRecord.Method

    struct Written {
        let bytes: Int64
        let sha256: String
    }

    fileprivate let handle: FileHandle
    fileprivate var offset: UInt64 = 0
    /// Central directory records by the offset of their member's local header: members given their place in
    /// advance (`reserve`) may be finished in any order, the directory still lists them as they lie in the file.
    fileprivate var central: [(at: UInt64, record: [UInt8])] = []
    fileprivate var count: UInt64 = 0
    private let chunkSize = 256 * 1024
    /// Guards `offset`, `central` and `count` for members filled from other threads.
    fileprivate let lock = NSLock()

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw BackupError.io("cannot create \(path)")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Adds the file at `source` as `name`, reading it `chunkSize` at a time; returns its size and SHA-256.
    /// `onBytes` hears of each chunk read, for progress.
    @discardableResult
    func add(name: String, source: String, method: Method, modified: Date, onBytes: (Int) -> Void = { _ in }) throws -> Written {
        guard let input = FileHandle(forReadingAtPath: source) else { throw BackupError.io("cannot read \(source)") }
        defer { try? input.close() }
        let size = try Int64(input.seekToEnd())
        try input.seek(toOffset: 0)
        let member = try begin(name: name, method: method, modified: modified, expectedSize: size)
        var read: Int64 = 0
        while read < size {
            let chunk = try input.read(upToCount: Int(min(Int64(chunkSize), size - read))) ?? Data()
            if chunk.isEmpty { break }
            read += Int64(chunk.count)
            try chunk.withUnsafeBytes { try member.write($0) }
            onBytes(chunk.count)
        }
        // A file that shrank while being read would leave a member shorter than its header says.
        guard read == size else { throw BackupError.io("\(source) changed while it was being read") }
        return try member.finish()
    }

    /// Starts a member whose bytes are written as they come (`Member.write`), hashed, checksummed and,
    /// for `.deflated`, compressed on the way; `Member.finish` patches the sizes into its header. Without
    /// an `expectedSize` (a table streamed from the database) the header carries ZIP64 sizes, so any size fits.
    func begin(name: String, method: Method, modified: Date, expectedSize: Int64? = nil) throws -> Member {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF else { throw BackupError.io("name too long: \(name)") }
        // Deflate can grow incompressible data a little; a margin keeps the 32-bit fields honest.
        let zip64 = (expectedSize ?? Int64.max) >= 0xF000_0000
        let headerAt = offset
        let modified = ZipRecord.dosTime(modified)
        try write(ZipRecord.local(name: nameBytes, method: method, modified: modified, crc: 0, compressed: 0, uncompressed: 0, zip64: zip64))
        return try Member(zip: self, name: name, nameBytes: nameBytes, method: method, zip64: zip64, headerAt: headerAt, modified: modified)
    }

    /// One member being written; see `begin`.
    final class Member {
        private let zip: BackupZipWriter
        private let name: String
        private let nameBytes: [UInt8]
        private let method: Method
        private let zip64: Bool
        private let headerAt: UInt64
        private let modified: (time: UInt16, date: UInt16)
        private let deflater: Zlib.Deflater?
        private var hasher = SHA256()
        private var crc: UInt32 = 0
        private var uncompressed: UInt64 = 0
        private var compressed: UInt64 = 0

        fileprivate init(zip: BackupZipWriter, name: String, nameBytes: [UInt8], method: Method, zip64: Bool, headerAt: UInt64,
                         modified: (time: UInt16, date: UInt16)) throws {
            self.zip = zip
            self.name = name
            self.nameBytes = nameBytes
            self.method = method
            self.zip64 = zip64
            self.headerAt = headerAt
            self.modified = modified
            // Level 1: table text still shrinks several times over, at a fraction of level 6's time.
            deflater = method == .deflated ? try Zlib.Deflater(level: 1) : nil
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            guard !bytes.isEmpty else { return }
            hasher.update(bufferPointer: bytes)
            crc = CRC32.update(crc, with: bytes)
            uncompressed += UInt64(bytes.count)
            if let deflater {
                try deflater.process(bytes, finish: false) { output in
                    try zip.write(output)
                    compressed += UInt64(output.count)
                }
            } else {
                try zip.write(bytes)
                compressed += UInt64(bytes.count)
            }
        }

        func finish() throws -> Written {
            if let deflater {
                try deflater.process(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { output in
                    try zip.write(output)
                    compressed += UInt64(output.count)
                }
            }
            if !zip64 {
                guard uncompressed <= 0xFFFF_FFFF else { throw BackupError.io("\(name) grew past 4 GiB while it was being read") }
                guard compressed <= 0xFFFF_FFFF else { throw BackupError.io("\(name) grew past 4 GiB when compressed") }
            }
            // The header again, now with the CRC and sizes: as long as the one written first.
            try zip.write(ZipRecord.local(name: nameBytes, method: method, modified: modified, crc: crc, compressed: compressed,
                                          uncompressed: uncompressed, zip64: zip64), at: headerAt)
            zip.addCentral(ZipRecord.central(headerAt: headerAt, name: nameBytes, method: method, modified: modified, crc: crc,
                                             compressed: compressed, uncompressed: uncompressed), at: headerAt)
            return Written(bytes: Int64(uncompressed), sha256: Hex.string(hasher.finalize()))
        }
    }

    /// Records a finished member in the central directory.
    fileprivate func addCentral(_ record: [UInt8], at headerAt: UInt64) {
        lock.withLock {
            central.append((headerAt, record))
            count += 1
        }
    }

    /// Writes the central directory and end records, syncs, and closes the file.
    func finish() throws {
        let directoryAt = offset
        let records = central.sorted { $0.at < $1.at }.flatMap(\.record)
        let directorySize = UInt64(records.count)
        try write(records)
        central = []
        let end = ZipRecord.end(count: count, directoryAt: directoryAt, directorySize: directorySize)
        try write(end)
        try handle.synchronize()
        try handle.close()
    }

    func abandon() {
        try? handle.close()
    }

    fileprivate func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Appends at the end of what is written or reserved so far.
    fileprivate func write(_ bytes: UnsafeRawBufferPointer) throws {
        let at = lock.withLock { () -> UInt64 in
            defer { offset += UInt64(bytes.count) }
            return offset
        }
        try write(bytes, at: at)
    }

    fileprivate func write(_ bytes: [UInt8], at position: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: position) }
    }

    /// Positioned writes (pwrite): members filled from several threads each write into their own place.
    fileprivate func write(_ bytes: UnsafeRawBufferPointer, at position: UInt64) throws {
        var done = 0
        while done < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let written = pwrite(handle.fileDescriptor, base + done, bytes.count - done, off_t(position) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw BackupError.io("cannot write the archive (errno \(errno))")
            }
            done += written
        }
    }

    /// A stored member whose size is known, given its place in the archive now and filled later (`fill`), from
    /// any thread: the media files go in while the tables' snapshot is still being made, and the snapshot goes
    /// in after them as soon as it is ready, on the other core.
    struct Slot: Sendable {
        let name: String
        let nameBytes: [UInt8]
        let size: Int64
        let headerAt: UInt64
        let zip64: Bool
        var headerLength: UInt64 { ZipRecord.localLength(name: nameBytes, zip64: zip64) }
    }

    func reserve(name: String, size: Int64) throws -> Slot {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF else { throw BackupError.io("name too long: \(name)") }
        let zip64 = size >= 0xF000_0000
        return lock.withLock {
            let slot = Slot(name: name, nameBytes: nameBytes, size: size, headerAt: offset, zip64: zip64)
            offset += slot.headerLength + UInt64(max(0, size))
            return slot
        }
    }

    /// Copies `source` into its reserved place, hashing it on the way; the file must still have the size it was
    /// reserved with. The SHA-256 is taken on this thread: media files are written while the tables snapshot is
    /// made, and a third busy thread on two cores slowed the PostgreSQL snapshot, the longer of the two, by more
    /// than it saved (Benchmarks/backup.sh).
    func fill(_ slot: Slot, from source: String, modified: Date, onBytes: (Int) -> Void = { _ in }) throws -> Written {
        let input: FileDescriptor
        do { input = try FileDescriptor.open(FilePath(source), .readOnly) } catch { throw BackupError.io("cannot read \(source): \(error)") }
        defer { try? input.close() }
        var hasher = SHA256()
        var crc: UInt32 = 0
        var done: Int64 = 0
        let dataAt = slot.headerAt + slot.headerLength
        // A large file (a video) is read in larger pieces.
        let piece = slot.size >= Int64(Self.parallelPiece) ? Self.parallelPiece : chunkSize
        // One buffer, filled by plain read(2)s: FileHandle read a gigabyte 4 KB at a time into a growing Data
        // (half a million reads and two thousand mremaps per backup, strace).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 64)
        defer { buffer.deallocate() }
        while done < slot.size {
            let want = Int(min(Int64(piece), slot.size - done))
            let count = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            if count == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hasher.update(bufferPointer: bytes)
            crc = CRC32.update(crc, with: bytes)
            try write(bytes, at: dataAt + UInt64(done))
            done += Int64(count)
            onBytes(count)
        }
        // A file that shrank or grew since its place was reserved would not fit it.
        var extra: UInt8 = 0
        guard done == slot.size, try withUnsafeMutableBytes(of: &extra, { try input.read(into: $0) }) == 0 else {
            throw BackupError.io("\(source) changed while it was being read")
        }
        return try close(slot, crc: crc, hasher: hasher, modified: modified)
    }

    /// The local header of a filled slot, now that its CRC is known, and its central directory record.
    private func close(_ slot: Slot, crc: UInt32, hasher: SHA256, modified: Date) throws -> Written {
        let modified = ZipRecord.dosTime(modified)
        let size = UInt64(slot.size)
        try write(ZipRecord.local(name: slot.nameBytes, method: .stored, modified: modified, crc: crc, compressed: size, uncompressed: size,
                                  zip64: slot.zip64), at: slot.headerAt)
        addCentral(ZipRecord.central(headerAt: slot.headerAt, name: slot.nameBytes, method: .stored, modified: modified, crc: crc,
                                     compressed: size, uncompressed: size), at: slot.headerAt)
        return Written(bytes: slot.size, sha256: Hex.string(hasher.finalize()))
    }
}

extension BackupZipWriter {
    /// Read size for large files (videos, the tables snapshot).
    static let parallelPiece = 4 * 1024 * 1024
}
