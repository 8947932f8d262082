import Foundation
import ZIPFoundation

/// ZIP archives whose entries are stored, not compressed: what Hibi writes for exports that are mostly
/// JPEGs (which deflate would not shrink). Reading goes through ZIPFoundation (`ZipReader` below), so
/// archives other tools re-zipped with deflate or ZIP64 are read too.
///
/// The writer makes no zip64: an archive holds at most 65,535 entries and 4 GiB, and it refuses to go
/// past that (callers check first so a download is never cut short).
public enum StoredZip {
    public static let maxEntries = 0xFFFF
    public static let maxArchiveBytes: UInt64 = 0xFFFF_FFFF

    /// A name that extracts inside the target folder on any system: relative, no `..`, no backslash or drive letter.
    public static func isSafeName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 1024, !name.hasPrefix("/"),
              !name.contains("\\"), !name.contains(":"), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            // A trailing slash marks a folder entry; an empty part anywhere else is `a//b`.
            if part.isEmpty, index == parts.count - 1, index > 0 { continue }
            if part.isEmpty || part == "." || part == ".." { return false }
        }
        return true
    }
}

public enum StoredZipError: Error, Equatable, Sendable {
    case notAnArchive
    case damaged(String)
    case unsupported(String)
    case unsafeName(String)
    case duplicateName(String)
    case tooLarge
    case inflatesTooFar(limitBytes: UInt64)

    public var text: Text {
        switch self {
        case .notAnArchive: Text(en: "not a ZIP archive", ja: "ZIP アーカイブではありません")
        case let .damaged(detail): Text(en: "the ZIP archive is damaged (\(detail))", ja: "ZIP アーカイブが壊れています(\(detail))")
        case let .unsupported(detail): Text(en: "the ZIP archive uses \(detail), which Hibi does not read; import the archive Hibi made as it is",
                                            ja: "ZIP アーカイブが Hibi の読めない形式(\(detail))です。Hibi が作ったアーカイブをそのまま読み込んでください")
        case let .unsafeName(name): Text(en: "the ZIP archive holds an unsafe file name \"\(name)\"", ja: "ZIP アーカイブに安全でないファイル名「\(name)」があります")
        case let .duplicateName(name): Text(en: "the ZIP archive holds \"\(name)\" twice", ja: "ZIP アーカイブに「\(name)」が2つあります")
        case let .inflatesTooFar(limit): Text(en: "the ZIP archive would unpack to more than \(limit / 1024 / 1024) MB, far more than its size suggests; it is refused as a possible zip bomb",
                                              ja: "ZIP アーカイブを展開すると \(limit / 1024 / 1024) MB を超え、サイズに比べて大きすぎます。zip 爆弾の可能性があるため読み込みません")
        case .tooLarge: Text(en: "too large for one ZIP archive (at most 65,535 files and 4 GiB)",
                             ja: "1つの ZIP アーカイブには大きすぎます(ファイル 65,535 個・4 GiB まで)")
        }
    }
}

/// Builds an archive piece by piece, so a caller can send each photo as soon as it is read. Its records are
/// `ZipRecord`'s, as the backup's file writer makes them.
public struct StoredZipWriter: Sendable {
    private var central = Data()
    private var count = 0
    private var offset: UInt64 = 0

    public init() {}

    /// The bytes to send for one file: its local header, then the data itself (not copied).
    public mutating func add(name: String, data: Data, modified: Date) throws(StoredZipError) -> [Data] {
        guard StoredZip.isSafeName(name) else { throw .unsafeName(name) }
        let nameBytes = Array(name.utf8)
        let headerSize = ZipRecord.localLength(name: nameBytes, zip64: false)
        guard count + 1 < StoredZip.maxEntries,
              offset + headerSize + UInt64(data.count) + UInt64(central.count + 46 + nameBytes.count + 22) <= StoredZip.maxArchiveBytes
        else { throw .tooLarge }
        let crc = CRC32.checksum(data)
        let modified = ZipRecord.dosTime(modified)
        let size = UInt64(data.count)
        let local = ZipRecord.local(name: nameBytes, method: .stored, modified: modified, crc: crc, compressed: size, uncompressed: size, zip64: false)
        central.append(contentsOf: ZipRecord.central(headerAt: offset, name: nameBytes, method: .stored, modified: modified, crc: crc,
                                                     compressed: size, uncompressed: size))
        count += 1
        offset += headerSize + size
        return [Data(local), data]
    }

    /// The central directory and its end record, which make the archive readable.
    public func finish() -> Data {
        central + ZipRecord.end(count: UInt64(count), directoryAt: offset, directorySize: UInt64(central.count))
    }
}

/// Reads ZIP archives through ZIPFoundation: stored or deflated entries and ZIP64, as other tools write
/// them when they re-zip an export. Every name is checked before any entry is handed out, and inflating is
/// capped twice, relative to the archive's size and in absolute terms, so a zip bomb is refused instead
/// of expanded: by the sizes the directory declares before reading, and by the bytes actually produced
/// while reading (a directory can lie).
public struct ZipReader: @unchecked Sendable {
    public struct Entry: Sendable {
        public let name: String
        public let size: UInt64
    }

    /// Deflate rarely shrinks real data (XML, JSON, photos) past 1:100; bombs shrink it by 1:1000 and more.
    public static let maxExpansionRatio: UInt64 = 200

    private let archive: Archive
    /// The archive file, open (its name may already be gone), for bounded inflating.
    private let file: FileHandle?
    private let members: [String: Member]
    private let raw: [String: ZIPFoundation.Entry]
    public let entries: [String: Entry]
    /// Largest number of bytes all entries may inflate to together.
    public let limit: UInt64

    public static func looksLikeArchive(_ data: Data) -> Bool {
        data.count >= 4 && data.prefix(2) == Data([0x50, 0x4B]) && [Data([3, 4]), Data([5, 6])].contains(data.dropFirst(2).prefix(2))
    }

    /// Reads an archive held in memory through a private temporary file. ZIPFoundation's in-memory
    /// archive keeps the whole Data alive for ever when it turns out not to be a readable archive (its
    /// fopencookie stream is never closed on that path: found by scripts/fuzz, `run.sh zip`), so every
    /// damaged upload would have leaked its full size. The file-backed path closes what it opened.
    public init(data: Data, maxTotalBytes: UInt64) throws(StoredZipError) {
        guard Self.looksLikeArchive(data) else { throw .notAnArchive }
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("hibi-zip-\(UUID().uuidString).zip")
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw .damaged("the archive could not be staged for reading")
        }
        // The archive keeps its file open; the name can go at once.
        defer { try? FileManager.default.removeItem(atPath: path) }
        try self.init(path: path, maxTotalBytes: maxTotalBytes)
    }

    public init(path: String, maxTotalBytes: UInt64) throws(StoredZipError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
        guard let head = FileHandle(forReadingAtPath: path).flatMap({ handle in defer { try? handle.close() }; return try? handle.read(upToCount: 4) }),
              Self.looksLikeArchive(head) else { throw .notAnArchive }
        guard let file = FileHandle(forReadingAtPath: path) else { throw .notAnArchive }
        let members = try Self.scanCentralDirectory(file, fileSize: size)
        let archive: Archive
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch { throw .damaged("no readable central directory") }
        try self.init(archive: archive, archiveBytes: size, maxTotalBytes: maxTotalBytes, file: file, members: members)
    }

    /// The central directory's own records, read with a fixed-layout scan and nothing more: each member's
    /// method, compressed size and local header, so no member may claim more bytes than the file holds and
    /// deflated members can be inflated with a bound (see `inflateBounded`). Anything this scan cannot
    /// follow is left to ZIPFoundation, which refuses it.
    struct Member: Sendable {
        let method: UInt64
        let compressedSize: UInt64
        let localHeaderOffset: UInt64
    }

    static func scanCentralDirectory(_ handle: FileHandle, fileSize: UInt64) throws(StoredZipError) -> [String: Member] {
        var members: [String: Member] = [:]
        func read(at offset: UInt64, count: Int) -> [UInt8] {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: count) else { return [] }
            return [UInt8](data)
        }
        func u16(_ b: [UInt8], _ i: Int) -> UInt64 { i + 2 <= b.count ? UInt64(b[i]) | UInt64(b[i + 1]) << 8 : 0 }
        func u32(_ b: [UInt8], _ i: Int) -> UInt64 { u16(b, i) | u16(b, i + 2) << 16 }
        func u64(_ b: [UInt8], _ i: Int) -> UInt64 { u32(b, i) | u32(b, i + 4) << 32 }
        // End of central directory: the last signature within the final 64 KiB + 22 bytes.
        let tailLength = min(fileSize, 65_557)
        let tail = read(at: fileSize - tailLength, count: Int(tailLength))
        guard tail.count >= 22, let eocd = stride(from: tail.count - 22, through: 0, by: -1)
            .first(where: { u32(tail, $0) == 0x0605_4B50 }) else { return members }
        let count = u16(tail, eocd + 10)
        let start = u32(tail, eocd + 16)
        // Read up to the end record rather than trusting the directory size it states: ZIPFoundation
        // does not trust it either (it walks records from the start offset).
        let end = fileSize - tailLength + UInt64(eocd)
        guard start < end else { return members }
        let length = end - start
        let directory = read(at: start, count: Int(length))
        var offset = 0
        for _ in 0..<count {
            guard offset + 46 <= directory.count, u32(directory, offset) == 0x0201_4B50 else { return members }
            var compressed = u32(directory, offset + 20)
            var localOffset = u32(directory, offset + 42)
            let nameLength = Int(u16(directory, offset + 28)), extraLength = Int(u16(directory, offset + 30))
            let commentLength = Int(u16(directory, offset + 32))
            let uncompressedPresent = u32(directory, offset + 24) == 0xFFFF_FFFF
            if compressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF {
                // ZIP64: the real values sit in the extra field (header 0x0001), in this order and only those
                // the record marks as too large: uncompressed size, compressed size, local header offset.
                // Python's zipfile writes the offset there past 2 GiB, so a large export re-zipped by a script has it.
                var field = offset + 46 + nameLength
                let end = min(field + extraLength, directory.count)
                while field + 4 <= end {
                    let id = u16(directory, field), size = Int(u16(directory, field + 2))
                    if id == 0x0001 {
                        var at = field + 4 + (uncompressedPresent ? 8 : 0)
                        if compressed == 0xFFFF_FFFF {
                            compressed = u64(directory, at)
                            at += 8
                        }
                        if localOffset == 0xFFFF_FFFF { localOffset = u64(directory, at) }
                        break
                    }
                    field += 4 + size
                }
            }
            guard compressed <= fileSize, localOffset <= fileSize else { throw .damaged("a member claims more bytes than the archive holds") }
            if offset + 46 + nameLength <= directory.count {
                let name = String(decoding: directory[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
                members[name] = Member(method: u16(directory, offset + 10), compressedSize: compressed, localHeaderOffset: localOffset)
            }
            offset += 46 + nameLength + extraLength + commentLength
        }
        return members
    }

    /// Inflates a deflated member with ZIPFoundation's own zlib loop, fed by a reader that stops at the
    /// member's end. ZIPFoundation's reader keeps handing the loop empty chunks once the member's bytes
    /// are used up, so a deflate stream that never ends (a 244-byte archive from the fuzzer) spun for
    /// ever; here asking past the end is an error.
    private func inflateBounded(_ member: Member, consumer: (Data) throws -> Void) throws -> UInt32 {
        guard let file else { throw StoredZipError.damaged("archive file") }
        try file.seek(toOffset: member.localHeaderOffset)
        let header = [UInt8](try file.read(upToCount: 30) ?? Data())
        guard header.count == 30, header[0] == 0x50, header[1] == 0x4B, header[2] == 3, header[3] == 4 else {
            throw StoredZipError.damaged("local header")
        }
        let start = member.localHeaderOffset + 30 + (UInt64(header[26]) | UInt64(header[27]) << 8) + (UInt64(header[28]) | UInt64(header[29]) << 8)
        let size = member.compressedSize
        return try Data.decompress(size: Int64(size), bufferSize: 64 * 1024, skipCRC32: false, provider: { position, chunk in
            guard position >= 0, UInt64(position) < size else { throw StoredZipError.damaged("deflate stream runs past its member") }
            try file.seek(toOffset: start + UInt64(position))
            let wanted = Int(min(UInt64(chunk), size - UInt64(position)))
            guard let data = try file.read(upToCount: wanted), !data.isEmpty else { throw StoredZipError.damaged("member cut short") }
            return data
        }, consumer: consumer)
    }

    private init(archive: Archive, archiveBytes: UInt64, maxTotalBytes: UInt64, file: FileHandle?, members: [String: Member]) throws(StoredZipError) {
        self.file = file
        self.members = members
        let (relative, overflow) = archiveBytes.multipliedReportingOverflow(by: Self.maxExpansionRatio)
        let limit = min(maxTotalBytes, overflow ? UInt64.max : max(relative, 64 * 1024))
        var raw: [String: ZIPFoundation.Entry] = [:]
        var entries: [String: Entry] = [:]
        var declared: UInt64 = 0
        for entry in archive {
            let name = entry.path
            guard StoredZip.isSafeName(name) else { throw .unsafeName(name) }
            if entry.type == .directory { continue }
            guard entry.type == .file else { throw .unsupported("links") }
            guard raw[name] == nil else { throw .duplicateName(name) }
            guard entry.compressedSize <= archiveBytes else { throw .damaged("\(name) claims more bytes than the archive holds") }
            let (sum, over) = declared.addingReportingOverflow(entry.uncompressedSize)
            guard !over, sum <= limit else { throw .inflatesTooFar(limitBytes: limit) }
            declared = sum
            raw[name] = entry
            entries[name] = Entry(name: name, size: entry.uncompressedSize)
        }
        self.archive = archive
        self.raw = raw
        self.entries = entries
        self.limit = limit
    }

    /// Streams an entry's inflated bytes to `consumer`, checked against its CRC; stops with
    /// `inflatesTooFar` the moment it produces more than its directory entry declared.
    public func stream(_ name: String, chunkSize: Int = 256 * 1024, consumer: (Data) throws -> Void) throws(StoredZipError) {
        guard let entry = raw[name] else { throw .damaged("no entry \(name)") }
        let declared = entry.uncompressedSize
        var produced: UInt64 = 0
        let crc: UInt32
        do {
            // The consumer form of extract computes the CRC but leaves comparing it to the caller.
            let take: (Data) throws -> Void = { chunk in
                produced += UInt64(chunk.count)
                guard produced <= declared else { throw StoredZipError.inflatesTooFar(limitBytes: declared) }
                try consumer(chunk)
            }
            if let member = members[name], member.method == 8, member.localHeaderOffset != 0xFFFF_FFFF {
                crc = try inflateBounded(member, consumer: take)
            } else if entry.isCompressed, entry.compressedSize > 0 {
                // A deflated member the scan above could not place: not read with an unbounded loop.
                throw StoredZipError.unsupported("an archive layout Hibi cannot check (\(name))")
            } else {
                crc = try archive.extract(entry, bufferSize: chunkSize, consumer: take)
            }
        } catch let error as StoredZipError {
            throw error
        } catch Archive.ArchiveError.invalidCRC32 {
            throw .damaged("checksum of \(name)")
        } catch {
            throw .damaged("\(name) cannot be read")
        }
        guard produced == declared else { throw .damaged("size of \(name)") }
        guard crc == entry.checksum else { throw .damaged("checksum of \(name)") }
    }

    /// An entry's bytes, checked against the CRC the archive recorded; nil when there is no such entry.
    public func contents(of name: String) throws(StoredZipError) -> Data? {
        guard entries[name] != nil else { return nil }
        var data = Data()
        try stream(name) { data.append($0) }
        return data
    }
}

