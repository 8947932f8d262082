import Crypto
import Foundation
import SystemPackage
import ZIPFoundation

/// Writes a ZIP archive to a file one member at a time, each streamed from a file in chunks, with ZIP64
/// where sizes or offsets pass 4 GiB. ZIPFoundation reads these archives; its own writer is not used here
/// because it rewrites the whole central directory on every added entry, which grows with the square of
/// the number of files (a backup has one member per photo). Used by one task at a time, hence unchecked.
final class BackupZipWriter: @unchecked Sendable {
    enum Method { case stored, deflated }

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
    /// A member being written in place by someone else (`reserveOpenEnded`): nothing may be appended after it yet.
    fileprivate var openEnded: Slot?
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
        guard lock.withLock({ openEnded == nil }) else { throw BackupError.io("\(name) begun after an open-ended member") }
        let headerAt = offset
        let (time, date) = StoredZipWriter.dosTime(modified)
        var local: [UInt8] = []
        local.le32(0x0403_4B50); local.le16(zip64 ? 45 : 20); local.le16(0x0800)
        local.le16(method == .deflated ? 8 : 0); local.le16(time); local.le16(date)
        local.le32(0); local.le32(zip64 ? 0xFFFF_FFFF : 0); local.le32(zip64 ? 0xFFFF_FFFF : 0)
        local.le16(UInt16(nameBytes.count)); local.le16(zip64 ? 20 : 0)
        local.append(contentsOf: nameBytes)
        if zip64 { local.le16(1); local.le16(16); local.le64(0); local.le64(0) }
        try write(local)
        return try Member(zip: self, name: name, nameBytes: nameBytes, method: method, zip64: zip64, headerAt: headerAt, time: time, date: date)
    }

    /// One member being written; see `begin`.
    final class Member {
        private let zip: BackupZipWriter
        private let name: String
        private let nameBytes: [UInt8]
        private let method: Method
        private let zip64: Bool
        private let headerAt: UInt64
        private let time: UInt16
        private let date: UInt16
        private let deflater: BackupZlib.Deflater?
        private var hasher = SHA256()
        private var crc: UInt32 = 0
        private var uncompressed: UInt64 = 0
        private var compressed: UInt64 = 0

        fileprivate init(zip: BackupZipWriter, name: String, nameBytes: [UInt8], method: Method, zip64: Bool, headerAt: UInt64,
                         time: UInt16, date: UInt16) throws {
            self.zip = zip
            self.name = name
            self.nameBytes = nameBytes
            self.method = method
            self.zip64 = zip64
            self.headerAt = headerAt
            self.time = time
            self.date = date
            // Level 1: table text still shrinks several times over, at a fraction of level 6's time.
            deflater = method == .deflated ? try BackupZlib.Deflater(level: 1) : nil
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            guard !bytes.isEmpty else { return }
            hasher.update(bufferPointer: bytes)
            crc = BackupZlib.crc32(bytes, crc)
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
            var patch: [UInt8] = []
            patch.le32(crc)
            if zip64 {
                patch.le32(0xFFFF_FFFF); patch.le32(0xFFFF_FFFF)
                try zip.write(patch, at: headerAt + 14)
                var sizes: [UInt8] = []
                sizes.le64(uncompressed); sizes.le64(compressed)
                try zip.write(sizes, at: headerAt + 30 + UInt64(nameBytes.count) + 4)
            } else {
                patch.le32(UInt32(compressed)); patch.le32(UInt32(uncompressed))
                try zip.write(patch, at: headerAt + 14)
            }
            zip.addCentral(headerAt: headerAt, nameBytes: nameBytes, method: method, time: time, date: date, crc: crc,
                           compressed: compressed, uncompressed: uncompressed)
            return Written(bytes: Int64(uncompressed), sha256: Hex.string(hasher.finalize()))
        }
    }

    /// Records a finished member in the central directory.
    fileprivate func addCentral(headerAt: UInt64, nameBytes: [UInt8], method: Method, time: UInt16, date: UInt16, crc: UInt32,
                                compressed: UInt64, uncompressed: UInt64) {
        var extra: [UInt8] = []
        // The central directory says ZIP64 only when a size needs it, whatever the local header had to
        // promise before the size was known: ZIPFoundation reads a ZIP64 size of 0 as "not given".
        let bigSizes = uncompressed >= 0xFFFF_FFFF || compressed >= 0xFFFF_FFFF
        let bigOffset = headerAt >= 0xFFFF_FFFF
        if bigSizes { extra.le64(uncompressed); extra.le64(compressed) }
        if bigOffset { extra.le64(headerAt) }
        if !extra.isEmpty { extra = [0x01, 0x00] + [UInt8(extra.count & 0xFF), UInt8(extra.count >> 8)] + extra }
        var central: [UInt8] = []
        central.le32(0x0201_4B50); central.le16(0x031E); central.le16(bigSizes || bigOffset ? 45 : 20); central.le16(0x0800)
        central.le16(method == .deflated ? 8 : 0); central.le16(time); central.le16(date); central.le32(crc)
        central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(compressed)); central.le32(bigSizes ? 0xFFFF_FFFF : UInt32(uncompressed))
        central.le16(UInt16(nameBytes.count)); central.le16(UInt16(extra.count)); central.le16(0); central.le16(0); central.le16(0)
        central.le32(UInt32(0o100600) << 16)
        central.le32(bigOffset ? 0xFFFF_FFFF : UInt32(headerAt))
        central.append(contentsOf: nameBytes)
        central.append(contentsOf: extra)
        lock.withLock {
            self.central.append((headerAt, central))
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
        var end: [UInt8] = []
        let needs64 = count >= 0xFFFF || directoryAt >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF
        if needs64 {
            let recordAt = offset
            end.le32(0x0606_4B50); end.le64(44); end.le16(45); end.le16(45); end.le32(0); end.le32(0)
            end.le64(count); end.le64(count); end.le64(directorySize); end.le64(directoryAt)
            end.le32(0x0706_4B50); end.le32(0); end.le64(recordAt); end.le32(1)
        }
        end.le32(0x0605_4B50); end.le16(0); end.le16(0)
        end.le16(needs64 ? 0xFFFF : UInt16(count)); end.le16(needs64 ? 0xFFFF : UInt16(count))
        end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directorySize)); end.le32(needs64 ? 0xFFFF_FFFF : UInt32(directoryAt))
        end.le16(0)
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
    /// in beside them as soon as it is ready, on the other core.
    struct Slot: Sendable {
        let name: String
        let nameBytes: [UInt8]
        let size: Int64
        let headerAt: UInt64
        let zip64: Bool
        var headerLength: UInt64 { 30 + UInt64(nameBytes.count) + (zip64 ? 20 : 0) }
    }

    func reserve(name: String, size: Int64) throws -> Slot {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF else { throw BackupError.io("name too long: \(name)") }
        let zip64 = size >= 0xF000_0000
        return try lock.withLock {
            guard openEnded == nil else { throw BackupError.io("\(name) reserved after an open-ended member") }
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
            crc = BackupZlib.crc32(bytes, crc)
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
        let (time, date) = StoredZipWriter.dosTime(modified)
        var local: [UInt8] = []
        local.le32(0x0403_4B50); local.le16(slot.zip64 ? 45 : 20); local.le16(0x0800)
        local.le16(0); local.le16(time); local.le16(date)
        local.le32(crc)
        local.le32(slot.zip64 ? 0xFFFF_FFFF : UInt32(slot.size)); local.le32(slot.zip64 ? 0xFFFF_FFFF : UInt32(slot.size))
        local.le16(UInt16(slot.nameBytes.count)); local.le16(slot.zip64 ? 20 : 0)
        local.append(contentsOf: slot.nameBytes)
        if slot.zip64 { local.le16(1); local.le16(16); local.le64(UInt64(slot.size)); local.le64(UInt64(slot.size)) }
        try write(local, at: slot.headerAt)
        addCentral(headerAt: slot.headerAt, nameBytes: slot.nameBytes, method: .stored, time: time, date: date, crc: crc,
                   compressed: UInt64(slot.size), uncompressed: UInt64(slot.size))
        return Written(bytes: slot.size, sha256: Hex.string(hasher.finalize()))
    }

    /// A stored member whose bytes someone else writes in place, straight into the archive file (the tables
    /// snapshot, made there by SQLite through `ArchiveWindowVFS`), its size unknown until it is done. It must be
    /// the last member given a place until `seal` says how long it came out: nothing else may be reserved or
    /// begun meanwhile.
    func reserveOpenEnded(name: String) throws -> Slot {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 0xFFFF else { throw BackupError.io("name too long: \(name)") }
        return try lock.withLock {
            guard openEnded == nil else { throw BackupError.io("two open-ended members in one archive") }
            // ZIP64 sizes in the local header: the member may pass 4 GiB.
            let slot = Slot(name: name, nameBytes: nameBytes, size: 0, headerAt: offset, zip64: true)
            offset += slot.headerLength
            openEnded = slot
            return slot
        }
    }

    /// Ends the open-ended member `slot` at `size` bytes after its header: reads them back from `path` (the
    /// archive itself, on another descriptor) for its CRC and SHA-256, writes its header and lets the archive go on
    /// after it. The SHA-256 is taken on a second thread while this one takes the CRC: the snapshot is read back
    /// last, alone, and its SHA-256 was a fifth of a backup's CPU (perf of Benchmarks/backup.sh's instance).
    func seal(_ slot: Slot, size: Int64, readingBack path: String, modified: Date, onBytes: (Int) -> Void = { _ in }) throws -> Written {
        let dataAt = slot.headerAt + slot.headerLength
        try lock.withLock {
            guard openEnded?.headerAt == slot.headerAt, offset == dataAt, size >= 0 else {
                throw BackupError.io("the archive grew under its open-ended member \(slot.name)")
            }
        }
        let input: FileDescriptor
        do { input = try FileDescriptor.open(FilePath(path), .readOnly) } catch { throw BackupError.io("cannot read back \(path): \(error)") }
        defer { try? input.close() }
        // The member must be exactly the bytes its writer says: the archive ends where it ends.
        let end = try input.seek(offset: 0, from: .end)
        guard end == Int64(dataAt) + size else {
            throw BackupError.io("\(slot.name) is \(end - Int64(dataAt)) bytes in the archive, its writer says \(size)")
        }
        var hasher = SHA256()
        var crc: UInt32 = 0
        var done: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.parallelPiece, alignment: 64)
        defer { buffer.deallocate() }
        while done < size {
            let want = Int(min(Int64(Self.parallelPiece), size - done))
            let count = try input.read(fromAbsoluteOffset: Int64(dataAt) + done, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            guard count > 0 else { throw BackupError.io("\(slot.name) ended early when read back") }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            try Self.hashBeside(bytes, hasher: &hasher) { crc = BackupZlib.crc32(bytes, crc) }
            done += Int64(count)
            onBytes(count)
        }
        let sized = Slot(name: slot.name, nameBytes: slot.nameBytes, size: size, headerAt: slot.headerAt, zip64: true)
        let written = try close(sized, crc: crc, hasher: hasher, modified: modified)
        lock.withLock {
            offset = dataAt + UInt64(size)
            openEnded = nil
        }
        return written
    }
}

extension BackupZipWriter {
    static let parallelPiece = 4 * 1024 * 1024

    /// `hasher` takes `bytes` on another thread while `body` runs on this one; returns when both are done.
    static func hashBeside(_ bytes: UnsafeRawBufferPointer, hasher: inout SHA256, _ body: () throws -> Void) throws {
        var failure: (any Error)?
        withoutActuallyEscaping(body) { body in
            withUnsafeMutablePointer(to: &hasher) { hasherPointer in
                withUnsafeMutablePointer(to: &failure) { failurePointer in
                    // Each iteration touches only its own state (the hasher, or the CRC, file and failure), and
                    // concurrentPerform returns only after both: the pointers never outlive this call.
                    nonisolated(unsafe) let hasher = hasherPointer
                    nonisolated(unsafe) let failure = failurePointer
                    nonisolated(unsafe) let body = body
                    nonisolated(unsafe) let bytes = bytes
                    DispatchQueue.concurrentPerform(iterations: 2) { index in
                        if index == 0 {
                            hasher.pointee.update(bufferPointer: bytes)
                        } else {
                            do { try body() } catch { failure.pointee = error }
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func le32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
    mutating func le64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) } }
}
