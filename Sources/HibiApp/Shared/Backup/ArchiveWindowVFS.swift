import Foundation
import VaporCSQLite

/// A SQLite VFS that keeps a database file inside another file, from a byte offset on: the backup's tables
/// snapshot is made straight in its place inside the archive, the last member before the manifest.
///
/// Why: a snapshot made as a file of its own was then read back and written again into the archive, a second
/// gigabyte written and read, and unlinked afterwards (0.6 s); that was most of what a backup from SQLite spent
/// beyond `sqlite3 .backup` + `tar` (Benchmarks/backup.sh, 1.66x). SQLite has no such VFS built in (its
/// `appendvfs` extension adds a trailer of its own and is not compiled into SQLiteNIO's copy), so this one
/// wraps the default (unix) VFS and only shifts offsets: reads, writes, truncation and the size are those of
/// the window `[offset, end of file)`; locks, shared memory, sync and file names are the real file's.
///
/// It is used only through a URI naming it and the offset (`uri(path:offset:)`): a main database opened
/// through it without a valid `hibi_offset` is refused, so nothing else can land inside an archive by
/// accident. Journals, WAL and temporary files go to the default VFS's places unchanged.
enum ArchiveWindowVFS {
    static let name = "hibi-archive-window"
    static let offsetParameter = "hibi_offset"
    static let coalesceParameter = "hibi_coalesce"
    /// `sqlite3_file_control` operation: writes any pages still waiting (`coalescing`) and answers the first write
    /// error, if one happened where SQLite could not hear it (a write held back until the file was unlocked).
    /// Above 100, as SQLite asks of application-defined operations.
    static let flushOperation: Int32 = 0x4869_6269

    /// A URI opening the database kept at `offset` in the file at `path` through this VFS (SQLiteNIO and
    /// the backup API both open URIs).
    static func uri(path: String, offset: UInt64) throws -> String {
        try register()
        // RFC 3986 path characters; '?', '#' and '%' in a file name would otherwise end or change the path.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        guard let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw BackupError.io("cannot name \(path) as a SQLite URI")
        }
        return "file:\(encoded)?vfs=\(name)&\(offsetParameter)=\(offset)"
    }

    /// `uri` with its pages written in runs instead of one `pwrite` each: for the backup API's copy, which writes
    /// every page in order on one connection while nothing else reads the file. A gigabyte's copy made 254,000
    /// four-kilobyte writes (strace of `sqlite3 .backup`), each taking the file's lock that the media files'
    /// writes into the same archive wait on. The runs are 64 KB (`coalesceCapacity`).
    static func coalescing(_ uri: String) -> String {
        uri.hasPrefix("file:") && uri.contains("vfs=\(name)&") ? uri + "&\(coalesceParameter)=1" : uri
    }

    static func register() throws {
        guard registered else { throw BackupError.io("SQLite has no default VFS to build the archive window on") }
    }

    /// What the callbacks need, reached through the VFS's `pAppData` (C callbacks capture nothing).
    private struct Shared {
        let real: UnsafeMutablePointer<sqlite3_vfs>
        let methods: UnsafeMutablePointer<sqlite3_io_methods>
    }

    /// Our `sqlite3_file`: the methods pointer SQLite reads, then the window's state, then the real file.
    private struct Window {
        var offset: Int64
        /// Pages written one after another wait here and go to the real file in one write (`coalescing`).
        var buffer: UnsafeMutableRawPointer?
        var capacity: Int
        /// The window position of `buffer`'s first byte, and how many bytes wait.
        var start: Int64
        var length: Int
        /// The first failed held-back write: every later call answers it.
        var failure: Int32
    }

    private static let windowAt = MemoryLayout<UnsafeRawPointer>.stride
    private static let innerAt = (windowAt + MemoryLayout<Window>.stride + 15) / 16 * 16
    /// 64 KB: the unix VFS writes at most 128 KB - 1 bytes per call (`seekAndWriteFd` masks the length with
    /// 0x1ffff, since SQLite itself never writes more than a page), and a run of sixteen 4 KB pages already takes
    /// the file's lock sixteen times less often.
    private static let coalesceCapacity = 1 << 16

    /// Registered once for the process (a static's initializer runs exactly once, thread-safely); the structs
    /// live as long as the process, as SQLite requires of a registered VFS.
    private static let registered: Bool = {
        guard let real = sqlite_nio_sqlite3_vfs_find(nil) else { return false }
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: windowMethods())
        let shared = UnsafeMutablePointer<Shared>.allocate(capacity: 1)
        shared.initialize(to: Shared(real: real, methods: methods))
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        // Version 2: up to xCurrentTimeInt64; the system-call hooks (version 3) are the real VFS's business.
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = Int32(innerAt) + real.pointee.szOsFile
        vfs.pointee.mxPathname = real.pointee.mxPathname
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(shared)
        vfs.pointee.xOpen = { vfs, path, file, flags, outFlags in ArchiveWindowVFS.open(vfs, path, file, flags, outFlags) }
        vfs.pointee.xDelete = { vfs, path, syncDirectory in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xDelete else { return SQLITE_IOERR }
            return call(real, path, syncDirectory)
        }
        vfs.pointee.xAccess = { vfs, path, flags, result in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xAccess else { return SQLITE_IOERR }
            return call(real, path, flags, result)
        }
        vfs.pointee.xFullPathname = { vfs, path, count, output in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xFullPathname else { return SQLITE_CANTOPEN }
            return call(real, path, count, output)
        }
        // Extensions are not loadable in this SQLite (SQLITE_OMIT_LOAD_EXTENSION): the dl hooks stay empty.
        vfs.pointee.xRandomness = { vfs, count, output in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xRandomness else { return 0 }
            return call(real, count, output)
        }
        vfs.pointee.xSleep = { vfs, microseconds in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xSleep else { return 0 }
            return call(real, microseconds)
        }
        vfs.pointee.xCurrentTime = { vfs, now in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xCurrentTime else { return SQLITE_ERROR }
            return call(real, now)
        }
        vfs.pointee.xGetLastError = { vfs, count, output in
            guard let real = ArchiveWindowVFS.real(vfs), let call = real.pointee.xGetLastError else { return 0 }
            return call(real, count, output)
        }
        vfs.pointee.xCurrentTimeInt64 = { vfs, now in
            guard let real = ArchiveWindowVFS.real(vfs), real.pointee.iVersion >= 2, let call = real.pointee.xCurrentTimeInt64 else { return SQLITE_ERROR }
            return call(real, now)
        }
        return sqlite_nio_sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    private static func shared(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<Shared>? {
        vfs?.pointee.pAppData?.assumingMemoryBound(to: Shared.self)
    }

    private static func real(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
        shared(vfs)?.pointee.real
    }

    private static func inner(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file>? {
        file.map { UnsafeMutableRawPointer($0).advanced(by: innerAt).assumingMemoryBound(to: sqlite3_file.self) }
    }

    private static func window(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<Window>? {
        file.map { UnsafeMutableRawPointer($0).advanced(by: windowAt).assumingMemoryBound(to: Window.self) }
    }

    private static func offset(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int64 {
        window(file)?.pointee.offset ?? 0
    }

    /// Writes what waits in the buffer; called before anything but a write that continues it.
    private static func flush(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int32 {
        guard let state = window(file) else { return SQLITE_IOERR }
        guard state.pointee.failure == SQLITE_OK else { return state.pointee.failure }
        guard state.pointee.length > 0, let buffer = state.pointee.buffer else { return SQLITE_OK }
        let length = state.pointee.length
        state.pointee.length = 0
        guard let real = target(file), let at = shifted(state.pointee.start, file), let count = Int32(exactly: length) else {
            state.pointee.failure = SQLITE_IOERR
            return SQLITE_IOERR
        }
        let code = real.io.xWrite?(real.file, buffer, count, at) ?? SQLITE_IOERR
        if code != SQLITE_OK { state.pointee.failure = code }
        return code
    }

    /// A write joined to the run waiting in the buffer, or starting a new one; nil if it must go straight through
    /// (no buffer on this file, or larger than it).
    private static func hold(_ data: UnsafeRawPointer, _ count: Int, at position: Int64, _ file: UnsafeMutablePointer<sqlite3_file>?) -> Int32? {
        guard let state = window(file), let buffer = state.pointee.buffer, count > 0, count <= state.pointee.capacity else { return nil }
        if state.pointee.length > 0, position == state.pointee.start + Int64(state.pointee.length),
           state.pointee.length + count <= state.pointee.capacity {
            (buffer + state.pointee.length).copyMemory(from: data, byteCount: count)
            state.pointee.length += count
            return SQLITE_OK
        }
        let code = flush(file)
        guard code == SQLITE_OK else { return code }
        buffer.copyMemory(from: data, byteCount: count)
        state.pointee.start = position
        state.pointee.length = count
        return SQLITE_OK
    }

    /// The real VFS's file behind ours, with its methods.
    private struct Target {
        let file: UnsafeMutablePointer<sqlite3_file>
        let io: sqlite3_io_methods
    }

    private static func target(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Target? {
        guard let inner = inner(file), let io = inner.pointee.pMethods else { return nil }
        return Target(file: inner, io: io.pointee)
    }

    /// The window's offset from the URI: a whole number, at least 0; anything else is refused (-1).
    private static func requestedOffset(_ path: sqlite3_filename?) -> Int64 {
        guard let path, let text = sqlite_nio_sqlite3_uri_parameter(path, offsetParameter),
              let value = Int64(String(cString: text)), value >= 0 else { return -1 }
        return value
    }

    private static func open(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ path: sqlite3_filename?, _ file: UnsafeMutablePointer<sqlite3_file>?,
                             _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
        guard let shared = shared(vfs), let file, let inner = inner(file), let realOpen = shared.pointee.real.pointee.xOpen else { return SQLITE_CANTOPEN }
        file.pointee.pMethods = nil
        var offset: Int64 = 0
        var coalesce = false
        if flags & SQLITE_OPEN_MAIN_DB != 0 {
            offset = requestedOffset(path)
            guard offset >= 0 else { return SQLITE_CANTOPEN }
            coalesce = path.flatMap { sqlite_nio_sqlite3_uri_parameter($0, coalesceParameter) }.map { String(cString: $0) } == "1"
        }
        inner.pointee.pMethods = nil
        let code = realOpen(shared.pointee.real, path, inner, flags, outFlags)
        guard code == SQLITE_OK else {
            // The real VFS may have set its methods before failing; then its file must still be closed.
            if let methods = inner.pointee.pMethods { _ = methods.pointee.xClose?(inner) }
            return code
        }
        let buffer = coalesce ? UnsafeMutableRawPointer.allocate(byteCount: coalesceCapacity, alignment: 4096) : nil
        window(file)?.initialize(to: Window(offset: offset, buffer: buffer, capacity: buffer == nil ? 0 : coalesceCapacity, start: 0, length: 0,
                                           failure: SQLITE_OK))
        file.pointee.pMethods = UnsafePointer(shared.pointee.methods)
        return SQLITE_OK
    }

    /// `position` inside the window as a position in the real file; nil if it does not fit in 64 bits.
    private static func shifted(_ position: Int64, _ file: UnsafeMutablePointer<sqlite3_file>?) -> Int64? {
        let (sum, overflow) = position.addingReportingOverflow(offset(file))
        return overflow || position < 0 ? nil : sum
    }

    /// Writes the held pages, then hands the real file to `body`: the first failure answers (`otherwise` when
    /// there is no real file or method).
    private static func forward(_ file: UnsafeMutablePointer<sqlite3_file>?, otherwise: Int32, _ body: (Target) -> Int32?) -> Int32 {
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        guard let real = target(file) else { return otherwise }
        return body(real) ?? otherwise
    }

    /// As `forward`, but `body` runs even when the held pages could not be written (an unlock, an unmap: what was
    /// taken is given back); the kept failure still answers.
    private static func release(_ file: UnsafeMutablePointer<sqlite3_file>?, otherwise: Int32, _ body: (Target) -> Int32?) -> Int32 {
        let flushed = flush(file)
        guard let real = target(file) else { return flushed == SQLITE_OK ? otherwise : flushed }
        let code = body(real) ?? otherwise
        return flushed == SQLITE_OK ? code : flushed
    }

    private static func windowMethods() -> sqlite3_io_methods {
        var methods = sqlite3_io_methods()
        // Version 2: shared memory for WAL (a copied WAL database opens in WAL mode until it is switched to a
        // rollback journal), but no memory mapping (version 3), whose offsets would be the real file's.
        methods.iVersion = 2
        methods.xClose = { file in
            let code = ArchiveWindowVFS.release(file, otherwise: SQLITE_OK) { real in
                defer { real.file.pointee.pMethods = nil }
                return real.io.xClose?(real.file)
            }
            if let state = ArchiveWindowVFS.window(file) {
                state.pointee.buffer?.deallocate()
                state.pointee.buffer = nil
            }
            return code
        }
        methods.xRead = { file, buffer, amount, position in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                ArchiveWindowVFS.shifted(position, file).flatMap { real.io.xRead?(real.file, buffer, amount, $0) }
            }
        }
        methods.xWrite = { file, buffer, amount, position in
            guard let buffer, position >= 0 else { return SQLITE_IOERR }
            if let held = ArchiveWindowVFS.hold(buffer, Int(amount), at: position, file) { return held }
            return ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                ArchiveWindowVFS.shifted(position, file).flatMap { real.io.xWrite?(real.file, buffer, amount, $0) }
            }
        }
        methods.xTruncate = { file, size in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                ArchiveWindowVFS.shifted(size, file).flatMap { real.io.xTruncate?(real.file, $0) }
            }
        }
        methods.xSync = { file, flags in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { $0.io.xSync?($0.file, flags) }
        }
        methods.xFileSize = { file, size in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                guard let size, let call = real.io.xFileSize else { return nil }
                var whole: sqlite3_int64 = 0
                let code = call(real.file, &whole)
                // Before the first page is written the real file ends at or before the window: an empty database.
                if code == SQLITE_OK { size.pointee = max(0, whole - ArchiveWindowVFS.offset(file)) }
                return code
            }
        }
        methods.xLock = { file, level in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { $0.io.xLock?($0.file, level) }
        }
        methods.xUnlock = { file, level in
            ArchiveWindowVFS.release(file, otherwise: SQLITE_IOERR) { $0.io.xUnlock?($0.file, level) }
        }
        methods.xCheckReservedLock = { file, result in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { $0.io.xCheckReservedLock?($0.file, result) }
        }
        methods.xFileControl = { file, operation, argument in
            let flushed = ArchiveWindowVFS.flush(file)
            if operation == ArchiveWindowVFS.flushOperation { return flushed }
            guard flushed == SQLITE_OK else { return flushed }
            guard let real = ArchiveWindowVFS.target(file) else { return SQLITE_NOTFOUND }
            switch operation {
            case SQLITE_FCNTL_SIZE_HINT:
                // A size the database will grow to, in the window's terms.
                guard let argument, let at = ArchiveWindowVFS.shifted(argument.load(as: Int64.self), file) else { return SQLITE_NOTFOUND }
                var hint = at
                return real.io.xFileControl?(real.file, operation, &hint) ?? SQLITE_NOTFOUND
            case SQLITE_FCNTL_MMAP_SIZE:
                // Mapped reads would see the real file's offsets: never.
                return SQLITE_NOTFOUND
            default:
                return real.io.xFileControl?(real.file, operation, argument) ?? SQLITE_NOTFOUND
            }
        }
        methods.xSectorSize = { file in
            guard let real = ArchiveWindowVFS.target(file) else { return 4096 }
            return real.io.xSectorSize?(real.file) ?? 4096
        }
        methods.xDeviceCharacteristics = { file in
            guard let real = ArchiveWindowVFS.target(file) else { return 0 }
            return real.io.xDeviceCharacteristics?(real.file) ?? 0
        }
        methods.xShmMap = { file, region, size, extend, mapped in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                real.io.iVersion >= 2 ? real.io.xShmMap?(real.file, region, size, extend, mapped) : nil
            }
        }
        methods.xShmLock = { file, offset, count, flags in
            ArchiveWindowVFS.forward(file, otherwise: SQLITE_IOERR) { real in
                real.io.iVersion >= 2 ? real.io.xShmLock?(real.file, offset, count, flags) : nil
            }
        }
        methods.xShmBarrier = { file in
            _ = ArchiveWindowVFS.release(file, otherwise: SQLITE_OK) { real in
                if real.io.iVersion >= 2 { real.io.xShmBarrier?(real.file) }
                return SQLITE_OK
            }
        }
        methods.xShmUnmap = { file, delete in
            ArchiveWindowVFS.release(file, otherwise: SQLITE_OK) { real in
                real.io.iVersion >= 2 ? real.io.xShmUnmap?(real.file, delete) : nil
            }
        }
        return methods
    }
}
